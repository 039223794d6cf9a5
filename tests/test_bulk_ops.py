"""Bulk decisions (archive, verify, restore several memories), redo, and restore putting back the exact index line.

Every test runs the real ops (and the real `memtui` command) on a real git repository in a temp folder.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.audit.repo import parse_trailers
from memtui.core.reading import sha256

DAY = dt.date(2026, 11, 30)
TIMEOUT = 120
INDEX = (
    "# Memory\n\n"
    "- [Alpha rule — hand-written](feedback_a.md) — the person's own words, kept *exactly*\n"
    "- [Beta](feedback_b.md) — beta\n"
    "- [Gamma](feedback_c.md) — gamma\n"
    "\n## Notes\n\nA closing paragraph.\n"
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """`<tmp>/app/memory` with three memories and an index written by hand, committed."""
    top = tmp_path / "app"
    write_files(
        top,
        {
            "src/main.py": "print(1)\n",
            "memory/MEMORY.md": INDEX,
            "memory/feedback_a.md": memory("feedback_a", description="alpha description"),
            "memory/feedback_b.md": memory("feedback_b", description="beta description"),
            "memory/feedback_c.md": memory("feedback_c", description="gamma description"),
        },
    )
    init_repo(top)
    return top / "memory"


def commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD"))


def head_trailers(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def snapshot(store: Path) -> dict[str, bytes]:
    top = store.parent
    return {
        str(p.relative_to(top)): p.read_bytes()
        for p in sorted(top.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(top).parts
    }


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT
    )


# ------------------------------------------------------------------------------------------------ archive_many


def test_archive_many_is_one_commit_naming_every_memory(store: Path) -> None:
    before = commits(store)
    result = ops.archive_many(store, ["feedback_a.md", "feedback_b.md"], reason="both obsolete", today=DAY)
    assert commits(store) == before + 1 and result.commit
    trailers = head_trailers(store)
    assert trailers["Memtui-Memory"] == ["memory/feedback_a.md", "memory/feedback_b.md"]
    assert trailers["Memtui-Action"] == ["archive"] and trailers["Memtui-Reason"] == ["both obsolete"]
    assert not (store / "feedback_a.md").exists() and not (store / "feedback_b.md").exists()
    assert (store.parent / "memory.archive" / "feedback_a.md").exists()
    index = (store / "MEMORY.md").read_text()
    assert "feedback_a.md" not in index and "feedback_b.md" not in index and "feedback_c.md" in index


def test_archive_many_refuses_all_when_one_changed_on_disk(store: Path) -> None:
    expected = {f: sha256((store / f).read_bytes()) for f in ("feedback_a.md", "feedback_b.md")}
    (store / "feedback_b.md").write_text(memory("feedback_b", body="The agent rewrote this."))
    git(store.parent, "commit", "-qam", "agent rewrite")
    before, files = commits(store), snapshot(store)
    with pytest.raises(ops.ChangedOnDisk, match="feedback_b.md"):
        ops.archive_many(store, ["feedback_a.md", "feedback_b.md"], reason="x", expected_hashes=expected, today=DAY)
    assert commits(store) == before and snapshot(store) == files


def test_archive_many_refuses_all_when_one_is_malformed(store: Path) -> None:
    (store / "feedback_b.md").write_text('---\nname: broken\ndescription: "q" tail\ntype: feedback\n---\nbody\n')
    git(store.parent, "commit", "-qam", "broken")
    before, files = commits(store), snapshot(store)
    with pytest.raises(ops.OpError, match="feedback_b.md could not be parsed"):
        ops.archive_many(store, ["feedback_a.md", "feedback_b.md"], reason="x", today=DAY)
    assert commits(store) == before and snapshot(store) == files


def test_archive_many_refuses_all_when_one_holds_a_secret(store: Path) -> None:
    (store / "feedback_b.md").write_text(memory("feedback_b", body="key AKIAIOSFODNN7EXAMPLE here"))
    git(store.parent, "commit", "-qam", "secret (already there)")
    before, files = commits(store), snapshot(store)
    with pytest.raises(ops.SecretRefused, match="feedback_b.md"):
        ops.archive_many(store, ["feedback_a.md", "feedback_b.md"], reason="x", today=DAY)
    assert commits(store) == before and snapshot(store) == files


def test_archive_many_refuses_a_memory_named_twice_or_none(store: Path) -> None:
    with pytest.raises(ops.OpError, match="named twice"):
        ops.archive_many(store, ["feedback_a.md", "feedback_a.md"], reason="x", today=DAY)
    with pytest.raises(ops.OpError, match="at least one"):
        ops.archive_many(store, [], reason="x", today=DAY)


def test_undo_of_a_bulk_archive_puts_every_memory_back(store: Path) -> None:
    files = snapshot(store)
    ops.archive_many(store, ["feedback_a.md", "feedback_b.md", "feedback_c.md"], reason="spring clean", today=DAY)
    ops.undo(store, today=DAY)
    assert snapshot(store) == files


# ------------------------------------------------------------------------------------------------ verify_many


def test_verify_many_stamps_each_in_one_commit(store: Path) -> None:
    before = commits(store)
    result = ops.verify_many(store, ["feedback_a.md", "feedback_c.md"], today=DAY)
    assert commits(store) == before + 1 and result.commit
    assert head_trailers(store)["Memtui-Memory"] == ["memory/feedback_a.md", "memory/feedback_c.md"]
    for name in ("feedback_a.md", "feedback_c.md"):
        assert "last_verified: 2026-11-30" in (store / name).read_text()
    assert "last_verified" not in (store / "feedback_b.md").read_text()


def test_verify_many_refuses_all_when_one_has_no_front_matter(store: Path) -> None:
    (store / "feedback_b.md").write_text("Just a note without front matter.\n")
    git(store.parent, "commit", "-qam", "plain")
    before, files = commits(store), snapshot(store)
    with pytest.raises(ops.OpError, match="feedback_b.md has no front matter"):
        ops.verify_many(store, ["feedback_a.md", "feedback_b.md"], today=DAY)
    assert commits(store) == before and snapshot(store) == files


def test_verify_many_refuses_all_when_one_changed_on_disk(store: Path) -> None:
    expected = {f: sha256((store / f).read_bytes()) for f in ("feedback_a.md", "feedback_b.md")}
    (store / "feedback_a.md").write_text(memory("feedback_a", body="Rewritten meanwhile."))
    with pytest.raises(ops.ChangedOnDisk, match="feedback_a.md"):
        ops.verify_many(store, ["feedback_a.md", "feedback_b.md"], expected_hashes=expected, today=DAY)
    assert "last_verified" not in (store / "feedback_b.md").read_text()


# ------------------------------------------------------------------------------------------------ restore


def test_restore_puts_back_the_exact_index_line_at_its_old_place(store: Path) -> None:
    ops.archive(store, "feedback_a.md", reason="retired", today=DAY)
    assert "hand-written" not in (store / "MEMORY.md").read_text()
    ops.restore(store, "feedback_a.md", today=DAY)
    assert (store / "MEMORY.md").read_text() == INDEX


def test_restore_many_puts_back_every_line_and_is_one_commit(store: Path) -> None:
    ops.archive_many(store, ["feedback_a.md", "feedback_c.md"], reason="retired", today=DAY)
    before = commits(store)
    result = ops.restore_many(store, ["feedback_a.md", "feedback_c.md"], today=DAY)
    assert commits(store) == before + 1 and result.commit
    assert head_trailers(store)["Memtui-Memory"] == ["memory/feedback_a.md", "memory/feedback_c.md"]
    assert (store / "MEMORY.md").read_text() == INDEX


def test_restore_of_a_merged_away_memory_puts_its_line_back(store: Path) -> None:
    ops.merge(store, ["feedback_a.md", "feedback_b.md"], into="feedback_b.md", reason="same rule", today=DAY)
    ops.restore(store, "feedback_a.md", today=DAY)
    assert (
        "- [Alpha rule — hand-written](feedback_a.md) — the person's own words, kept *exactly*\n"
        in (store / "MEMORY.md").read_text()
    )


def test_restore_without_history_of_the_line_builds_one_from_the_description(store: Path) -> None:
    archive = store.parent / "memory.archive"
    write_files(archive, {"feedback_old.md": memory("feedback_old", description="an old rule")})
    git(store.parent, "add", "-A")
    git(store.parent, "commit", "-qm", "archived by hand")
    ops.restore(store, "feedback_old.md", today=DAY)
    assert "(feedback_old.md) — an old rule" in (store / "MEMORY.md").read_text()


def test_restore_many_refuses_all_when_one_is_not_archived(store: Path) -> None:
    ops.archive(store, "feedback_a.md", reason="retired", today=DAY)
    before, files = commits(store), snapshot(store)
    with pytest.raises(ops.PathRefused, match="nothing_here.md"):
        ops.restore_many(store, ["feedback_a.md", "nothing_here.md"], today=DAY)
    assert commits(store) == before and snapshot(store) == files


# ------------------------------------------------------------------------------------------------ redo


def test_redo_reapplies_what_undo_reverted_and_is_itself_undoable(store: Path) -> None:
    original = snapshot(store)
    archived = ops.archive(store, "feedback_a.md", reason="retired", today=DAY)
    after_archive = snapshot(store)
    ops.undo(store, today=DAY)
    assert snapshot(store) == original
    result = ops.redo(store, today=DAY)
    assert snapshot(store) == after_archive and result.action == "redo" and result.commit
    trailers = head_trailers(store)
    assert trailers["Memtui-Action"] == ["archive"] and trailers["Memtui-Reapplies"] == [archived.commit]
    assert "redo" in git(store.parent, "log", "-1", "--format=%s")
    ops.undo(store, today=DAY)  # undoing the redo takes the archive back out again
    assert snapshot(store) == original
    ops.redo(store, today=DAY)
    assert snapshot(store) == after_archive


def test_a_redo_is_recorded_as_the_decision_it_applies_again(store: Path) -> None:
    """Undo then redo of an archive: history and the revoked rules read the redo as that archive, and the next
    undo reads as an undo of it."""
    from memtui.audit.history import revoked_events
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout

    archived = ops.archive(
        store, "feedback_a.md", reason="beta replaced it", superseded_by="feedback_b.md", today=DAY
    ).commit
    original = head_trailers(store)
    ops.undo(store, today=DAY)
    redone = ops.redo(store, today=DAY).commit
    trailers = head_trailers(store)
    for key in ("Memtui-Action", "Memtui-Memory", "Memtui-Reason", "Memtui-Superseded-By", "Memtui-Archived-To"):
        assert trailers[key] == original[key], key
    assert trailers["Memtui-Reapplies"] == [archived]
    repo = open_repo(detect_layout(store))
    revoked = revoked_events(repo.history())
    assert [(e.commit, e.action, e.memory, e.reason, e.superseded_by) for e in revoked] == [
        (redone, "archive", "memory/feedback_a.md", "beta replaced it", "memory/feedback_b.md")
    ]
    ops.undo(store, today=DAY)
    undo = head_trailers(store)
    assert undo["Memtui-Action"] == ["undo"] and undo["Memtui-Reverts"] == [redone]
    assert git(store.parent, "log", "-1", "--format=%s").strip() == "memtui: undo archive of feedback_a.md"
    assert revoked_events(open_repo(detect_layout(store)).history()) == []


def test_a_redone_keep_both_still_keeps_the_pair(store: Path) -> None:
    """keep-both's hashes travel with its redo: the pair a person kept does not come back after undo and redo."""
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout, load_store
    from memtui.review import kept_pairs

    memories = {m.path: m for m in load_store(store).memories}
    ops.keep_both(store, memories["feedback_a.md"], memories["feedback_b.md"], kind="duplicate", today=DAY)
    kept = kept_pairs(open_repo(detect_layout(store)).history())
    ops.undo(store, today=DAY)
    assert kept_pairs(open_repo(detect_layout(store)).history()) == set()
    ops.redo(store, today=DAY)
    assert kept_pairs(open_repo(detect_layout(store)).history()) == kept != set()


def test_a_redo_does_not_make_the_memory_newer(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like undo, a redo puts back what its decision wrote: the file's age stays the day of that decision."""
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout

    text = (store / "feedback_c.md").read_text()
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-11-01T12:00:00+00:00")
    ops.edit(store, "feedback_c.md", text + "\nMore.\n", today=DAY)
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    assert open_repo(detect_layout(store)).file_dates().last["feedback_c.md"] == dt.date(2026, 11, 1)
    ops.undo(store, today=DAY)
    ops.redo(store, today=DAY)
    assert "More." in (store / "feedback_c.md").read_text()
    assert open_repo(detect_layout(store)).file_dates().last["feedback_c.md"] == dt.date(2026, 11, 1)


def test_redo_is_refused_unless_the_newest_decision_is_an_undo(store: Path) -> None:
    with pytest.raises(ops.OpError, match="nothing to redo"):
        ops.redo(store, today=DAY)
    ops.archive(store, "feedback_a.md", reason="retired", today=DAY)
    ops.undo(store, today=DAY)
    ops.verify(store, "feedback_b.md", today=DAY)
    before = commits(store)
    with pytest.raises(ops.OpError, match="newest decision is verify"):
        ops.redo(store, today=DAY)
    assert commits(store) == before


def test_redo_refuses_when_the_files_changed_since_the_undo(store: Path) -> None:
    ops.archive(store, "feedback_a.md", reason="retired", today=DAY)
    ops.undo(store, today=DAY)
    (store / "feedback_a.md").write_text(memory("feedback_a", body="The person edited it by hand."))
    git(store.parent, "commit", "-qam", "hand edit")
    with pytest.raises(ops.OpError, match="cannot redo"):
        ops.redo(store, today=DAY)
    assert (store / "feedback_a.md").exists()


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_archive_verify_restore_take_several_files_and_redo(store: Path) -> None:
    before = commits(store)
    out = run("archive", str(store), "feedback_a.md", "feedback_b.md", "--reason", "bulk")
    assert out.returncode == 0, out.stderr
    assert commits(store) == before + 1
    out = run("restore", str(store), "feedback_a.md", "feedback_b.md")
    assert out.returncode == 0, out.stderr
    assert (store / "MEMORY.md").read_text() == INDEX
    out = run("verify", str(store), "feedback_a.md", "feedback_c.md")
    assert out.returncode == 0, out.stderr
    assert commits(store) == before + 3
    assert run("undo", str(store)).returncode == 0
    out = run("redo", str(store))
    assert out.returncode == 0, out.stderr
    assert "redid verify" in out.stdout
    assert "last_verified" in (store / "feedback_c.md").read_text()


def test_cli_history_reads_a_redone_archive_as_the_revoked_rule(store: Path) -> None:
    assert (
        run(
            "archive",
            str(store),
            "feedback_a.md",
            "--reason",
            "beta says it better",
            "--superseded-by",
            "feedback_b.md",
        ).returncode
        == 0
    )
    assert run("undo", str(store)).returncode == 0
    assert run("history", str(store), "--revoked").stdout.strip() == "no revoked rules"
    assert run("redo", str(store)).returncode == 0
    events = json.loads(run("history", str(store), "--revoked", "--json").stdout)
    assert [(e["action"], e["memory"], e["reason"], e["superseded_by"]) for e in events] == [
        ("archive", "memory/feedback_a.md", "beta says it better", "memory/feedback_b.md")
    ]
    assert events[0]["reapplies"] and events[0]["commit"] == git(store.parent, "rev-parse", "HEAD").strip()
    text = run("history", str(store)).stdout.splitlines()
    assert "archive (redo)" in text[0] and "beta says it better" in text[0]
    assert run("undo", str(store)).returncode == 0
    assert json.loads(run("history", str(store), "--revoked", "--json").stdout) == []
    undo, redo = json.loads(run("history", str(store), "--json").stdout)[:2]
    assert undo["action"] == "undo" and undo["reverts"] == [redo["commit"]] and not undo["undone"]
    assert redo["undone"], "the JSON says what the text form marks (undone)"


def test_cli_revoked_keeps_what_a_batch_still_retires_after_one_is_restored(store: Path) -> None:
    """The trial: archive a.md and b.md in one decision, restore a.md: `history --revoked` said "no memtui events"
    while b.md was still in memory.archive/ and ARCHIVE.md. Revoked-ness is per memory, not per commit."""
    assert run("archive", str(store), "feedback_a.md", "feedback_b.md", "--reason", "batch").returncode == 0
    assert run("restore", str(store), "feedback_a.md").returncode == 0
    assert (store.parent / "memory.archive" / "feedback_b.md").exists()
    events = json.loads(run("history", str(store), "--revoked", "--json").stdout)
    assert [(e["action"], e["memories"], e["reason"]) for e in events] == [
        ("archive", ["memory/feedback_b.md"], "batch")
    ]
    text = run("history", str(store), "--revoked").stdout
    assert "memory/feedback_b.md" in text and "feedback_a.md" not in text
    # one memory's revoked history reads the whole store's restores, not only those naming it
    assert "memory/feedback_b.md" in run("history", str(store), "feedback_b.md", "--revoked").stdout
    assert run("history", str(store), "feedback_a.md", "--revoked").stdout.strip() == "no revoked rules for that memory"
    assert run("restore", str(store), "feedback_b.md").returncode == 0
    assert json.loads(run("history", str(store), "--revoked", "--json").stdout) == []


def test_undo_of_a_batch_names_every_memory(store: Path) -> None:
    """Undo of a two-memory archive said "undid archive of memory/feedback_a.md" and its commit
    "undo archive of feedback_a.md": the other memory it brought back went unsaid."""
    assert run("archive", str(store), "feedback_a.md", "feedback_b.md", "--reason", "batch").returncode == 0
    out = run("undo", str(store))
    assert out.returncode == 0, out.stderr
    assert "undid archive of 2 memories: memory/feedback_a.md, memory/feedback_b.md" in out.stdout
    subject = git(store.parent, "log", "-1", "--format=%s").strip()
    assert subject == "memtui: undo archive of 2 memories: feedback_a.md, feedback_b.md"
    assert head_trailers(store)["Memtui-Memory"] == ["memory/feedback_a.md", "memory/feedback_b.md"]
    redone = ops.redo(store, today=DAY)
    assert redone.summary.startswith("redid archive of 2 memories: feedback_a.md, feedback_b.md")


def test_check_and_the_workspace_honour_a_kept_pair_until_either_changes(store: Path) -> None:
    """After keep-both (`b` in the review) the main screen still flagged both memories, the preview still said
    "If the newer one holds, archive…", and `memtui check` still warned: only the review's queue read the
    decision. Now `check` and the workspace leave the pair out while both texts are as they were kept."""
    from memtui.core.store import load_store
    from memtui.workspace import Workspace, analyse, open_store

    _, flagged = _kept_pair_store(store)
    memories = {m.path: m for m in load_store(store).memories}
    ops.keep_both(store, memories["feedback_use_npm.md"], memories["feedback_use_bun.md"], kind="contradiction")
    assert flagged() == []
    out = run("check", str(store), "--json", "--today", DAY.isoformat())
    assert json.loads(out.stdout)["kept_pairs"] == [["feedback_use_npm.md", "feedback_use_bun.md"]]
    assert "a person kept both" in run("check", str(store), "--today", DAY.isoformat()).stdout

    def pairs(ws: Workspace) -> list[str]:
        return [f.kind for f in ws.findings_for("feedback_use_npm.md") if f.kind in ("contradiction", "duplicate")]

    ws = analyse(open_store(store, DAY))
    assert pairs(ws) == [] and ws.partners(memories["feedback_use_bun.md"], "contradiction") == []
    # an edit to either memory is a new text: the pair is flagged again
    text = (store / "feedback_use_bun.md").read_text()
    ops.edit(store, "feedback_use_bun.md", text.replace("any more.", "any more, ever."), today=DAY)
    assert flagged() == ["contradiction"]
    assert pairs(analyse(open_store(store, DAY))) == ["contradiction"]


def _kept_pair_store(store: Path) -> tuple[set[str], Callable[[], list[str]]]:
    """Two memories `check` flags as a contradiction, committed, and what `check` says of them now."""
    write_files(
        store,
        {
            "feedback_use_npm.md": memory(
                "feedback_use_npm", description="Install packages with npm", body="Use npm for installs and scripts."
            ),
            "feedback_use_bun.md": memory(
                "feedback_use_bun",
                description="The repo switched to bun",
                body="The repo switched to bun; don't run npm install any more.",
            ),
        },
    )
    git(store.parent, "add", "-A")
    git(store.parent, "commit", "-q", "-m", "two rules")
    pair = {"feedback_use_npm.md", "feedback_use_bun.md"}

    def flagged() -> list[str]:
        out = run("check", str(store), "--json", "--today", DAY.isoformat())
        return [f["kind"] for f in json.loads(out.stdout)["findings"] if set(f["paths"]) == pair]

    assert flagged() == ["contradiction"]
    return pair, flagged


def test_a_verify_after_keep_both_is_no_change_but_any_other_edit_is(store: Path) -> None:
    """A new user kept both memories of a pair (`b`), then approved the agent's write of one of them (`v`): the
    verification stamp changed the file's bytes, so the pair came back in the review and in `check`. memtui's own
    `last_verified` is no change to what a memory says; anything else still brings the pair back."""
    from memtui.core.store import load_store

    pair, flagged = _kept_pair_store(store)
    memories = {m.path: m for m in load_store(store).memories}
    ops.keep_both(store, memories["feedback_use_npm.md"], memories["feedback_use_bun.md"], kind="contradiction")
    assert run("verify", str(store), "feedback_use_bun.md").returncode == 0  # adds `last_verified`
    assert "last_verified" in (store / "feedback_use_bun.md").read_text()
    assert flagged() == []
    later = (DAY + dt.timedelta(days=3)).isoformat()
    ops.verify_many(store, sorted(pair), today=DAY + dt.timedelta(days=3))  # changes the stamp of both
    assert f"last_verified: {later}" in (store / "feedback_use_npm.md").read_text()
    assert flagged() == []
    assert json.loads(run("check", str(store), "--json").stdout)["kept_pairs"] == [sorted(pair, reverse=True)]
    # a hand edit of any other front-matter line is a change, right next to the stamp as it is
    text = (store / "feedback_use_npm.md").read_text()
    (store / "feedback_use_npm.md").write_text(text.replace("Install packages with npm", "Install with npm"))
    assert flagged() == ["contradiction"]
    (store / "feedback_use_npm.md").write_text(text)
    assert flagged() == []
    text = (store / "feedback_use_bun.md").read_text()
    ops.edit(store, "feedback_use_bun.md", text.replace("any more.", "any more, ever."), today=DAY)
    assert flagged() == ["contradiction"]


def test_a_pair_kept_before_unstamped_hashes_were_recorded_survives_a_verify(store: Path) -> None:
    """A keep-both recorded by an earlier memtui (content hashes only) is honoured after a verify too, for a
    memory that had no stamp when it was kept: its bytes without the stamp are the bytes it was kept with."""
    from memtui.audit.repo import message
    from memtui.core.store import load_store

    pair, flagged = _kept_pair_store(store)
    memories = {m.path: m for m in load_store(store).memories}
    a, b = memories["feedback_use_npm.md"], memories["feedback_use_bun.md"]
    trailers = [
        ("Memtui-Memory", "memory/feedback_use_npm.md"),
        ("Memtui-Memory", "memory/feedback_use_bun.md"),
        ("Memtui-Pair-Kind", "contradiction"),
        ("Memtui-Hashes", f"{a.content_hash[:16]},{b.content_hash[:16]}"),
    ]
    msg = message("keep-both", "feedback_use_npm.md and feedback_use_bun.md", "Both kept.", trailers)
    git(store.parent, "commit", "-q", "--allow-empty", "-m", msg)
    assert flagged() == []
    ops.verify(store, "feedback_use_bun.md", today=DAY)
    assert flagged() == []
    ops.edit(store, "feedback_use_bun.md", (store / "feedback_use_bun.md").read_text() + "\nMore.\n", today=DAY)
    assert flagged() == ["contradiction"]


def test_the_verification_stamp_is_no_change_in_either_front_matter_generation(tmp_path: Path) -> None:
    """`last_verified` is stamped at the top level (Gen A) or under `metadata:` (Gen B), added or replaced,
    shadowing duplicates dropped: each is memtui's stamp alone, and a kept memory stays as it was kept."""
    from memtui.audit.history import KeptMemory
    from memtui.core.reading import read_memory, unstamped_hash

    top = tmp_path / "p"
    files = {
        "a.md": memory("a"),
        "a_stamped.md": memory("a_stamped", last_verified="2026-01-02"),
        "a_twice.md": memory("a_twice", last_verified="2026-01-02\nlast_verified: 2026-01-03"),
        "b.md": "---\nname: b\ndescription: b rule\nmetadata:\n  type: feedback\n  modified: 2026-01-01\n---\n\nBody.\n",
        "b_stamped.md": "---\nname: b\nmetadata:\n  type: user\n  last_verified: 2026-01-01\n---\n\nBody.\n",
        "crlf.md": memory("crlf").replace("\n", "\r\n"),
    }
    write_files(top, {"memory/MEMORY.md": "", **{f"memory/{k}": v for k, v in files.items()}})
    init_repo(top)
    store = top / "memory"
    before = {name: read_memory(store / name, name, in_archive=False) for name in files}
    kept = {n: KeptMemory(n, m.content_hash[:16], unstamped_hash(m)[:16]) for n, m in before.items()}
    ops.verify_many(store, sorted(files), today=DAY)
    for name in files:
        now = read_memory(store / name, name, in_archive=False)
        assert now.content_hash != before[name].content_hash and now.field_value("last_verified") == DAY.isoformat()
        assert kept[name].unchanged(now), name
        (store / name).write_bytes((store / name).read_bytes().replace(b"ody", b"ody!").replace(b"Rule", b"Rules"))
        assert not kept[name].unchanged(read_memory(store / name, name, in_archive=False)), name


def test_cli_refuses_superseded_by_with_several_files(store: Path) -> None:
    out = run(
        "archive", str(store), "feedback_a.md", "feedback_b.md", "--reason", "x", "--superseded-by", "feedback_c.md"
    )
    assert out.returncode == 2 and "--superseded-by" in out.stderr and "Traceback" not in out.stderr
    assert (store / "feedback_a.md").exists()


@pytest.mark.parametrize(
    "command", ["check", "archive", "restore", "merge", "verify", "edit", "fix-date", "history", "undo", "redo", "init"]
)
def test_every_subcommand_help_describes_every_argument_and_the_exit_codes(command: str) -> None:
    from memtui.cli.parser import command_parser

    parser = command_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # type: ignore[union-attr]
    for action in sub._actions:
        if action.dest != "help":
            assert action.help, f"{command}: {action.dest} has no help"
    out = run(command, "--help")
    assert out.returncode == 0
    assert "exit codes:" in out.stdout and "1  refused" in out.stdout and "2  usage" in out.stdout


def test_history_says_the_agent_wrote_what_the_agent_wrote(store: Path) -> None:
    """A new user's history said they wrote the agent's writes: memtui commits them under the person's git name."""
    (store / "feedback_new.md").write_text(memory("feedback_new", body="A rule the agent learned."))
    ops.record_agent_write(store)
    event = json.loads(run("history", str(store), "--json").stdout)[0]
    assert event["action"] == "agent-write" and event["by"] == "agent" and event["author"] != "agent"
    assert "(agent, " in run("history", str(store)).stdout.splitlines()[0]
