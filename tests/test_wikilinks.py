"""Wikilinks between memories (real files, real git, the real command): `[[name]]` resolves as the agent reads it,
a link to no live memory is a `broken-wikilink` finding, archiving says who still links to what it retires, and a
merge points `[[A]]` in the other memories at the merged one in the same commit, changing nothing but the link."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.analysis.check import check_store
from memtui.analysis.wikilinks import Resolver, links_left, wikilinks
from memtui.audit.repo import open_repo, parse_trailers
from memtui.core.store import load_store

DAY = dt.date(2026, 11, 30)
OLD = dt.date(2026, 9, 1)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD").strip())


def wiki_findings(store: Path) -> list:
    report = check_store(load_store(store), DAY)
    return [f for f in report.findings if f.kind == "broken-wikilink"]


DEPLOY = memory(
    "feedback_deploy_bun",
    description="Deploy with bun",
    body="Deploy with bun.\n\n**Why:** the lockfile resolves faster.\n\n**How to apply:** run `bun install`.",
)
TOOLING = memory(
    "deploy-tooling",
    description="Deploy tooling",
    body="Use the deploy script.\n\n**Why:** it checks the env first.\n\n**How to apply:** `./deploy.sh`.",
)
# links by name, by file name, with other separators, with an alias and a heading; in code and paths: no links
LINKER = (
    '---\nname: release-notes\ndescription: "how releases go, see [[feedback_deploy_bun|the bun rule]]"\n'
    "type: project\n---\r\n"
    "Releases follow [[feedback-deploy-bun#Why]] and [[deploy-tooling]].\r\n"
    "The script is [[deploy_tooling]]; `[[feedback_deploy_bun]]` in code is text.\r\n"
    "```\r\n[[feedback_deploy_bun]]\r\n```\r\n"
    "Plans live in [[../plans/ROADMAP.md]] and [[notes.md]]; [[ ]] is empty.\r\n\r\n"
    "**Why:** one place.\r\n\r\n**How to apply:** read it.\r\n"
)
INDEX = (
    "# Memory\n\n- [Deploy bun](feedback_deploy_bun.md) — bun, not [[deploy-tooling]]\n"
    "- [Deploy tooling](deploy_tooling.md) — tooling\n- [Release notes](release_notes.md) — releases\n"
)


def _store(tmp_path: Path, extra: dict[str, str | bytes] | None = None, *, when: dt.date | None = None) -> Path:
    top = tmp_path / "app"
    write_files(
        top / "memory",
        {
            "MEMORY.md": INDEX,
            "feedback_deploy_bun.md": DEPLOY,
            "deploy_tooling.md": TOOLING,
            "release_notes.md": LINKER.encode("utf-8"),
            **(extra or {}),
        },
    )
    init_repo(top, when=when)
    return top / "memory"


# ---------------------------------------------------------------------------------------------- reading links


def test_links_keep_alias_and_heading_out_of_the_target_and_code_is_no_link() -> None:
    text = "a [[x|X]] b [[y#Why]] [[ z \\| alias]] `[[code]]` ``[[a `b` c]]``\n```\n[[fenced]]\n```\n[[after]]\n"
    found = wikilinks(text)
    assert [(w.target, w.line) for w in found] == [("x", 1), ("y", 1), ("z", 1), ("after", 5)]
    assert all(text[w.start : w.end] == w.target for w in found)  # what a rewrite replaces: the target, no more
    # lines as an editor counts them: a form feed or a Unicode line separator inside a line starts no new one
    assert [w.line for w in wikilinks("a\x0cb\u2028 [[x]]\r\n[[y]]")] == [1, 2]


def test_a_link_resolves_by_name_file_name_or_spelling_and_paths_and_empty_targets_are_no_links(
    tmp_path: Path,
) -> None:
    store = load_store(_store(tmp_path))
    resolver = Resolver(store)
    assert resolver.resolve("feedback_deploy_bun", "x.md").live == "feedback_deploy_bun.md"  # by name
    assert resolver.resolve("deploy_tooling", "x.md").live == "deploy_tooling.md"  # by file name
    assert resolver.resolve("Feedback-Deploy-Bun", "x.md").live == "feedback_deploy_bun.md"  # a near miss reaches it
    assert resolver.resolve("deploy_tooling.md", "x.md").live == "deploy_tooling.md"
    assert resolver.resolve("../plans/ROADMAP.md", "x.md") is None  # a path: no link between memories
    assert resolver.resolve("notes.md", "x.md") is None
    assert resolver.resolve("", "x.md") is None
    assert resolver.resolve("ghost", "x.md") is not None and resolver.resolve("ghost", "x.md").live is None  # type: ignore[union-attr]
    assert wiki_findings(store.root) == []  # every link of the store reaches a memory, MEMORY.md's too


def test_a_link_to_no_memory_is_an_info_finding_one_per_memory_and_target_with_its_lines(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Drinks tea, see [[tea-notes]] and again [[Tea_Notes|notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    found = wiki_findings(store)
    assert len(found) == 1
    f = found[0]
    assert (f.severity, f.paths, f.cue, f.line) == ("info", ("user_tea.md",), "tea-notes", 7)
    assert f.message == "user_tea.md:7: [[tea-notes]] (2 times, lines 7) links to no memory (none is named tea-notes)"
    assert f.to_json()["details"] == {
        "target": "tea-notes",
        "lines": [7],
        "archived": None,
        "suggestion": None,
        "suggested_link": None,
    }


def test_a_link_that_differs_by_a_type_prefix_names_the_memory_it_probably_means(tmp_path: Path) -> None:
    """KoEnVue: `[[harness-design]]` where the memory is named `feedback-harness-design`."""
    linker = memory("workflow", body="Follow [[deploy-bun]].\n\n**Why:** x.\n\n**How to apply:** y.")
    store = _store(tmp_path, {"feedback_workflow.md": linker})
    (f,) = wiki_findings(store)
    assert f.severity == "info" and f.details["suggestion"] == "feedback_deploy_bun.md"
    assert f.details["suggested_link"] == "feedback_deploy_bun"
    assert "probably [[feedback_deploy_bun]] (feedback_deploy_bun.md)" in f.message


def test_the_real_command_reports_it_in_text_and_json(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Drinks tea, see [[tea-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    out = run("check", str(store), "--json", "--today", "2026-11-30")
    data = json.loads(out.stdout)
    (f,) = [f for f in data["findings"] if f["kind"] == "broken-wikilink"]
    assert f["severity"] == "info" and f["paths"] == ["user_tea.md"] and f["line"] == 7
    text = run("check", str(store), "--today", "2026-11-30").stdout
    assert "INFO    broken-wikilink     user_tea.md:7: [[tea-notes]] links to no memory" in text


# ---------------------------------------------------------------------------------------------- archive


def test_archiving_a_linked_memory_says_who_links_to_it_and_the_link_then_names_its_successor(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    assert links_left(load_store(store), ["deploy_tooling.md"]) == [
        "1 memory links to deploy_tooling.md: release_notes.md (and MEMORY.md) — archived, it is a memory the "
        "agent no longer loads: the links stay, and the review lists them"
    ]
    before = (store / "release_notes.md").read_bytes()
    out = run(
        "archive",
        str(store),
        "deploy_tooling.md",
        "--reason",
        "bun does it",
        "--superseded-by",
        "feedback_deploy_bun.md",
    )
    assert out.returncode == 0, out.stderr  # a warning, not a refusal
    assert "note: 1 memory links to deploy_tooling.md: release_notes.md" in out.stdout
    assert (store / "release_notes.md").read_bytes() == before  # archive rewrites no link
    found = {f.paths: f for f in wiki_findings(store)}
    assert set(found) == {("release_notes.md",), ("MEMORY.md",)}
    f = found["release_notes.md",]
    assert f.severity == "warning"
    assert f.message == (
        "release_notes.md:6: [[deploy-tooling]] (2 times, lines 6, 7) links to archived memory "
        "../memory.archive/deploy_tooling.md, superseded by feedback_deploy_bun.md (link [[feedback_deploy_bun]] "
        "instead): the agent no longer loads it"
    )
    assert f.details["suggestion"] == "feedback_deploy_bun.md" and f.details["lines"] == [6, 7]


def test_archiving_a_memory_nobody_links_to_says_nothing_of_links(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = ops.archive(store, "release_notes.md", reason="done", today=DAY)
    assert not any("link" in note for note in result.notes), result.notes


def test_archiving_two_memories_together_leaves_out_the_links_between_them(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = ops.archive_many(store, ["release_notes.md", "deploy_tooling.md"], reason="gone", today=DAY)
    # release_notes.md links to deploy_tooling.md, but goes with it: only MEMORY.md's link is left behind
    assert [n for n in result.notes if "links to" in n] == [
        "MEMORY.md links to deploy_tooling.md — archived, it is a memory the agent no longer loads: the links stay, "
        "and the review lists them"
    ]


# ---------------------------------------------------------------------------------------------- merge


def test_a_merge_points_every_link_at_the_merged_memory_in_the_same_commit_changing_only_the_link(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, when=OLD)
    before = (store / "release_notes.md").read_bytes()
    out = run("merge", str(store), "deploy_tooling.md", "feedback_deploy_bun.md", "--into", "feedback_deploy_bun.md")
    assert out.returncode == 0, out.stderr
    assert "now link to [[feedback_deploy_bun]] in release_notes.md, MEMORY.md" in out.stdout
    after = (store / "release_notes.md").read_bytes()
    # the link by name and the one by file name both point at the merged memory; alias, heading, CRLF, code stay
    assert after == before.replace(b"[[deploy-tooling]]", b"[[feedback_deploy_bun]]").replace(
        b"[[deploy_tooling]]", b"[[feedback_deploy_bun]]"
    )
    index = (store / "MEMORY.md").read_text()
    assert "— bun, not [[feedback_deploy_bun]]" in index
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["merge"]
    assert trailers["Memtui-Relinked"] == ["memory/release_notes.md", "memory/MEMORY.md"]
    assert git(store.parent, "show", "--no-renames", "--name-only", "--format=", "HEAD").split() == [
        "memory.archive/ARCHIVE.md",
        "memory.archive/deploy_tooling.md",
        "memory/MEMORY.md",
        "memory/deploy_tooling.md",
        "memory/feedback_deploy_bun.md",
        "memory/release_notes.md",
    ]
    assert wiki_findings(store) == []
    # a link rewritten is nothing new said: the memory keeps the day it was written
    dates = open_repo(load_store(store).layout).file_dates()
    assert dates.last["release_notes.md"] == OLD and dates.last["feedback_deploy_bun.md"] > OLD
    ops.undo(store, today=DAY)  # undo takes the links back with the merge
    assert (store / "release_notes.md").read_bytes() == before
    # and the relinked file's own history shows the undo beside the merge (a trial found only the merge there)
    said = run("history", str(store), "release_notes.md").stdout.splitlines()
    assert said[0].split()[1] == "undo" and "merge (undone)" in said[1], said


def test_a_link_by_file_name_is_rewritten_to_the_merged_memorys_file_name(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf" + memory("user_tea", "user", body="Tea, after [[deploy_tooling]] runs.").encode()
    store = _store(tmp_path, {"user_tea.md": bom})
    ops.merge(store, ["deploy_tooling.md", "feedback_deploy_bun.md"], into="deploy_tooling.md", today=DAY)
    # into deploy_tooling.md (named deploy-tooling): a link by file name keeps naming the file, the BOM stays
    assert (store / "user_tea.md").read_bytes() == bom
    text = (store / "release_notes.md").read_text()
    assert "[[deploy-tooling|the bun rule]]" in text and "[[deploy-tooling#Why]]" in text


def test_a_linker_holding_a_secret_is_left_as_it_is_and_named(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "A" * 93
    leaky = memory("user_tea", "user", body=f"Tea with [[deploy-tooling]]; key {key}.")
    store = _store(tmp_path, {"user_tea.md": leaky})
    result = ops.merge(store, ["deploy_tooling.md", "feedback_deploy_bun.md"], into="feedback_deploy_bun.md", today=DAY)
    assert (store / "user_tea.md").read_text() == leaky
    assert any("user_tea.md: it holds what looks like a secret" in n for n in result.notes), result.notes
    assert "memory/user_tea.md" not in head(store)["Memtui-Relinked"]


# ---------------------------------------------------------------------------------------------- relink


def test_relink_points_a_dead_link_at_a_live_memory_in_one_commit(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Tea, see [[tea-notes|notes]] and [[Tea_Notes#Brewing]].")
    store = _store(tmp_path, {"user_tea.md": ghost}, when=OLD)
    out = run("relink", str(store), "tea-notes", "--to", "release_notes.md")
    assert out.returncode == 0, out.stderr
    assert open_repo(load_store(store).layout).file_dates().last["user_tea.md"] == OLD  # nothing new said
    text = (store / "user_tea.md").read_text()
    assert text == ghost.replace("[[tea-notes|", "[[release-notes|").replace("[[Tea_Notes#", "[[release-notes#")
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["relink"] and trailers["Memtui-Memory"] == ["memory/user_tea.md"]
    assert wiki_findings(store) == []
    again = run("relink", str(store), "tea-notes", "--to", "release_notes.md")
    assert again.returncode == 1 and "no [[tea-notes]] reaching no live memory is in any live memory" in again.stderr


def test_relink_in_named_memories_only_as_the_help_writes_it(tmp_path: Path) -> None:
    """`relink STORE LINK --to FILE FILE...` (the form README gave) was refused by argparse: the files are --in."""
    ghost = memory("user_tea", "user", body="Tea, see [[tea-notes]].")
    other = memory("user_coffee", "user", body="Coffee, see [[tea-notes]] too.")
    store = _store(tmp_path, {"user_tea.md": ghost, "user_coffee.md": other})
    out = run("relink", str(store), "tea-notes", "--to", "release_notes.md", "--in", "user_tea.md")
    assert out.returncode == 0, out.stderr
    assert "[[release-notes]]" in (store / "user_tea.md").read_text()
    assert (store / "user_coffee.md").read_text() == other, "only the memory named"


def test_relink_leaves_a_link_that_reaches_a_live_memory(tmp_path: Path) -> None:
    """relink rewrote every link of the target, even one that reaches a live memory (written back meanwhile)."""
    ghost = memory("user_tea", "user", body="Tea, see [[release-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    before = commits(store)
    with pytest.raises(ops.OpError, match="reaching no live memory"):
        ops.relink(store, "release-notes", to="deploy_tooling.md", today=DAY)
    assert (store / "user_tea.md").read_text() == ghost and commits(store) == before


def test_relink_is_refused_when_the_memory_changed_since_it_was_seen(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Tea, see [[tea-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    seen = load_store(store).get("user_tea.md")
    assert seen is not None
    (store / "user_tea.md").write_text(ghost + "\nThe agent wrote more.\n")
    before = commits(store)
    with pytest.raises(ops.ChangedOnDisk):
        ops.relink(
            store,
            "tea-notes",
            to="release_notes.md",
            files=["user_tea.md"],
            expected_hashes={"user_tea.md": seen.content_hash},
            today=DAY,
        )
    assert (store / "user_tea.md").read_text().endswith("The agent wrote more.\n")
    assert commits(store) == before


def test_relink_to_an_archived_memory_is_refused(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Tea, see [[tea-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    ops.archive(store, "release_notes.md", reason="done", today=DAY)
    with pytest.raises(ops.OpError):
        ops.relink(store, "tea-notes", to="../memory.archive/release_notes.md", today=DAY)
    assert (store / "user_tea.md").read_text() == ghost


def successor_linking_store(tmp_path: Path) -> Path:
    """`old-rule` archived as superseded by `aa_successor`, which links to it, as `zz_other` does: one wikilink card
    listing the successor first (offered nothing: never itself) and a memory offered the successor."""
    files = {
        "aa_successor.md": memory("aa_successor", "user", body="Tea at four, see [[old-rule]]."),
        "zz_other.md": memory("zz_other", "user", body="Coffee at ten, as [[old-rule]] said."),
        "old-rule.md": memory("old-rule", "user", body="Tea at three."),
    }
    top = tmp_path / "p"
    write_files(top, {f"memory/{n}": t for n, t in files.items()})
    init_repo(top)
    store = top / "memory"
    ops.archive(store, "old-rule.md", reason="time moved", superseded_by="aa_successor.md", today=DAY)
    return store


def test_a_list_card_offers_l_when_a_later_memory_it_lists_has_a_link_to_write(tmp_path: Path) -> None:
    """The successor's own link to what it replaced offers nothing (it is never offered to itself); listed first,
    it hid `l` from the card's other memories, which all offer the successor."""
    from memtui.review import build_queue, relinking

    store = successor_linking_store(tmp_path)
    [card] = [c for c in build_queue(check_store(load_store(store), DAY), None) if c.kind == "broken-wikilink"]
    assert card.is_bulk and card.paths[0] == "aa_successor.md", card.paths
    offering = relinking(card)
    assert offering is not None and offering.paths == ("zz_other.md",)
    assert "l links the marked (else all of them) to [[aa_successor]]" in card.explanation, card.explanation
    # the command line, asked for every memory holding the link, leaves the successor's own (a trial got a self-link)
    successor = (store / "aa_successor.md").read_text()
    assert run("relink", str(store), "old-rule", "--to", "aa_successor.md").returncode == 0
    assert (store / "aa_successor.md").read_text() == successor and "[[aa_successor]]" in (
        store / "zz_other.md"
    ).read_text()
