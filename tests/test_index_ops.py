"""Fixing MEMORY.md from its findings (real git, real files): `ops.index` adds the lines of memories it does not
list, `ops.drop_link` removes lines that link to a file that does not exist; the index-over-cap finding and card
name the memories Claude Code does not load."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, memory

from memtui import ops
from memtui.analysis.check import check_store
from memtui.audit.repo import parse_trailers
from memtui.core.reading import sha256
from memtui.core.store import load_store
from memtui.review import build_queue

TODAY = dt.date(2026, 11, 30)
INDEX = "# Memory index\n\n- [Role](user_role.md) — billing lead\n\nNotes kept by hand.\n"
FILES = {
    "user_role.md": memory("user_role", "user", body="Mei leads the billing team."),
    "feedback_go_errors.md": memory("feedback_go_errors", description="Wrap Go errors with %w"),
    "feedback_sql_style.md": memory("feedback_sql_style", description="SQL keywords in upper case"),
}


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD").strip())


def changed_in_head(store: Path) -> list[str]:
    return git(store.parent, "show", "--name-only", "--format=", "HEAD").split()


def kinds(store: Path, kind: str) -> list[tuple[str, ...]]:
    return [f.paths for f in check_store(load_store(store), TODAY).findings if f.kind == kind]


# ---------------------------------------------------------------------------------------------- index


def test_index_adds_a_line_for_each_memory_in_one_commit_touching_only_memory_md(
    make_store: Callable[..., Path],
) -> None:
    store = make_store(FILES, in_git=True, index=INDEX)
    before = commits(store)
    result = ops.index(store, ["feedback_go_errors.md", "feedback_sql_style.md"], today=TODAY)
    assert result.commit is not None and commits(store) == before + 1
    assert (store / "MEMORY.md").read_text() == (
        "# Memory index\n\n- [Role](user_role.md) — billing lead\n"
        "- [feedback_go_errors](feedback_go_errors.md) — Wrap Go errors with %w\n"
        "- [feedback_sql_style](feedback_sql_style.md) — SQL keywords in upper case\n"
        "\nNotes kept by hand.\n"
    )
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["index"]
    assert trailers["Memtui-Memory"] == ["memory/feedback_go_errors.md", "memory/feedback_sql_style.md"]
    assert changed_in_head(store) == ["memory/MEMORY.md"]
    assert kinds(store, "unindexed") == []


def test_index_keeps_crlf_and_a_bom_and_every_other_byte(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True)
    original = "\ufeff- [Role](user_role.md) — billing lead\r\n* [Go](feedback_go_errors.md): wrap\r\n".encode()
    (store / "MEMORY.md").write_bytes(original)
    git(store.parent, "add", "-A")
    git(store.parent, "commit", "-qm", "index")
    ops.index(store, ["feedback_sql_style.md"], today=TODAY)
    assert (store / "MEMORY.md").read_bytes() == original + (
        "- [feedback_sql_style](feedback_sql_style.md) — SQL keywords in upper case\r\n".encode()
    )


def test_index_refuses_when_memory_md_changed_since_it_was_read(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True, index=INDEX)
    seen = sha256((store / "MEMORY.md").read_bytes())
    (store / "MEMORY.md").write_text(INDEX + "- [New](feedback_new.md) — the agent wrote this meanwhile\n")
    now = (store / "MEMORY.md").read_bytes()
    before = commits(store)
    with pytest.raises(ops.ChangedOnDisk) as refused:
        ops.index(store, ["feedback_go_errors.md"], expected_index_hash=seen, today=TODAY)
    assert refused.value.path == "MEMORY.md" and "MEMORY.md changed on disk" in refused.value.message
    assert commits(store) == before and (store / "MEMORY.md").read_bytes() == now


def test_index_refuses_lines_claude_code_would_not_load(make_store: Callable[..., Path]) -> None:
    files = {f"m{i}.md": memory(f"m{i}") for i in range(199)} | FILES
    index = "# Index\n" + "".join(f"- [M{i}](m{i}.md) — hook\n" for i in range(198))  # 199 lines
    store = make_store(files, in_git=True, index=index)
    before = commits(store)
    with pytest.raises(ops.OpError) as refused:
        ops.index(store, ["m198.md", "feedback_go_errors.md", "feedback_sql_style.md"], today=TODAY)
    said = refused.value.message
    assert "MEMORY.md would be 202 lines (limit: 200)" in said, said
    assert "line 201 or anything after it" in said, said
    assert "the agent would not see the lines of feedback_go_errors.md, feedback_sql_style.md;" in said, said
    assert "nothing was changed" in said
    assert commits(store) == before and (store / "MEMORY.md").read_text() == index
    ops.index(store, ["m198.md"], today=TODAY)  # the last line that still loads is added
    assert (store / "MEMORY.md").read_text().endswith("- [m198](m198.md) — m198\n")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("user_role.md", "already listed in MEMORY.md (line 3)"),
        ("missing.md", "no such memory"),
        ("MEMORY.md", "that is an index"),
    ],
)
def test_index_refuses_what_it_cannot_add_and_writes_nothing(
    make_store: Callable[..., Path], name: str, words: str
) -> None:
    store = make_store(FILES, in_git=True, index=INDEX)
    before = commits(store)
    with pytest.raises(ops.OpError) as refused:
        ops.index(store, ["feedback_go_errors.md", name], today=TODAY)
    assert words in refused.value.message and name in refused.value.message
    assert commits(store) == before and (store / "MEMORY.md").read_text() == INDEX


def test_index_without_memory_md_refuses_and_creates_none(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True)
    with pytest.raises(ops.OpError, match="no MEMORY.md"):
        ops.index(store, ["feedback_go_errors.md"], today=TODAY)
    assert not (store / "MEMORY.md").exists()


def test_index_is_undone_like_any_decision(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True, index=INDEX)
    ops.index(store, ["feedback_go_errors.md"], today=TODAY)
    undone = ops.undo(store, today=TODAY)
    assert "index of memory/feedback_go_errors.md" in undone.summary
    assert (store / "MEMORY.md").read_text() == INDEX


# ---------------------------------------------------------------------------------------------- drop-link

BROKEN = (
    "# Memory index\n\n- [Role](user_role.md) — billing lead\n- [Gone](gone.md) — was renamed\n"
    "- [Go](feedback_go_errors.md) — wrap\n- [Gone again](./gone.md#why) — twice\n"
)


def test_drop_link_removes_the_lines_to_the_missing_file_in_one_commit(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True, index=BROKEN)
    before = commits(store)
    result = ops.drop_link(store, ["gone.md"], expected_index_hash=sha256(BROKEN.encode()), today=TODAY)
    assert result.commit is not None and commits(store) == before + 1
    assert (store / "MEMORY.md").read_text() == (
        "# Memory index\n\n- [Role](user_role.md) — billing lead\n- [Go](feedback_go_errors.md) — wrap\n"
    )
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["drop-link"] and trailers["Memtui-Link"] == ["gone.md"]
    assert changed_in_head(store) == ["memory/MEMORY.md"]
    assert kinds(store, "broken-link") == []
    assert "2 lines" in result.summary and "gone.md" in result.summary
    ops.undo(store, today=TODAY)
    assert (store / "MEMORY.md").read_text() == BROKEN


@pytest.mark.parametrize(
    ("link", "words"),
    [
        ("feedback_go_errors.md", "exists"),
        ("elsewhere.md", "no line of MEMORY.md links to elsewhere.md"),
        # a file that exists but that no line links to (a human README): the message says no line links to it
        ("feedback_sql_style.md", "no line of MEMORY.md links to feedback_sql_style.md"),
        ("https://example.com/x.md", "not a link to a file"),
    ],
)
def test_drop_link_refuses_a_link_that_is_not_broken(make_store: Callable[..., Path], link: str, words: str) -> None:
    store = make_store(FILES, in_git=True, index=BROKEN)
    before = commits(store)
    with pytest.raises(ops.OpError) as refused:
        ops.drop_link(store, ["gone.md", link], today=TODAY)
    assert words in refused.value.message and link in refused.value.message
    assert commits(store) == before and (store / "MEMORY.md").read_text() == BROKEN


def test_drop_link_refuses_when_memory_md_changed_since_it_was_read(make_store: Callable[..., Path]) -> None:
    store = make_store(FILES, in_git=True, index=BROKEN)
    seen = sha256(BROKEN.encode())
    (store / "MEMORY.md").write_text(BROKEN + "- [Later](later.md) — agent\n")
    with pytest.raises(ops.ChangedOnDisk) as refused:
        ops.drop_link(store, ["gone.md"], expected_index_hash=seen, today=TODAY)
    assert refused.value.path == "MEMORY.md"
    assert (store / "MEMORY.md").read_text().endswith("- [Later](later.md) — agent\n")


# ---------------------------------------------------------------------------------------------- over the cap


def test_the_over_cap_finding_and_card_name_the_memories_claude_code_does_not_load(
    make_store: Callable[..., Path],
) -> None:
    files = {f"m{i}.md": memory(f"m{i}") for i in range(203)}
    index = "# Index\n" + "".join(f"- [M{i}](m{i}.md) — hook\n" for i in range(203))  # m199… on lines 201…
    store = make_store(files, in_git=True, index=index)
    report = check_store(load_store(store), TODAY)
    over = [f for f in report.findings if f.kind == "index-over-cap"]
    assert len(over) == 1
    assert over[0].details["unloaded"] == [
        {"line": 201, "target": "m199.md", "title": "M199"},
        {"line": 202, "target": "m200.md", "title": "M200"},
        {"line": 203, "target": "m201.md", "title": "M201"},
        {"line": 204, "target": "m202.md", "title": "M202"},
    ]
    card = next(c for c in build_queue(report, None) if c.kind == "index-over-cap")
    assert "the agent does not see the index lines of 4 memories: m199.md, m200.md, m201.md, m202.md" in (
        card.explanation
    ), card.explanation
