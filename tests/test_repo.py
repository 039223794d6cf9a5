"""StoreRepo's named git questions (no GitPython-shaped shim), on real repositories in temp folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui.audit.repo import StoreRepo, open_repo
from memtui.core.store import detect_layout


def _repo(tmp_path: Path) -> tuple[StoreRepo, Path]:
    top = tmp_path / "project"
    write_files(top, {"memory/feedback_a.md": memory("a"), "memory/MEMORY.md": "- [a](feedback_a.md) — a\n"})
    init_repo(top)
    return open_repo(detect_layout(top / "memory")), top


def test_there_is_no_gitpython_shaped_shim_left(tmp_path: Path) -> None:
    repo, _ = _repo(tmp_path)
    assert not hasattr(repo, "repo")


def test_diff_since_shows_a_files_change_from_a_commit_to_the_disk(tmp_path: Path) -> None:
    repo, top = _repo(tmp_path)
    base = git(top, "rev-parse", "HEAD").strip()
    path = top / "memory" / "feedback_a.md"
    path.write_text(memory("a", body="A new rule."), encoding="utf-8")

    diff = repo.diff_since(base, "memory/feedback_a.md")

    assert "+A new rule." in diff
    assert not diff.endswith("\n")
    assert repo.diff_since(base, "memory/MEMORY.md") == ""
    (top / "memory" / "feedback_new.md").write_text("new\n", encoding="utf-8")
    assert repo.diff_since(base, "memory/feedback_new.md") == ""  # untracked: the caller shows the file itself


def test_config_flag_is_true_only_when_git_says_true(tmp_path: Path) -> None:
    repo, top = _repo(tmp_path)
    assert repo.config_flag("memtui.recordAgentWrites") is False
    git(top, "config", "memtui.recordAgentWrites", "yes")
    assert repo.config_flag("memtui.recordAgentWrites") is True
    git(top, "config", "memtui.recordAgentWrites", "off")
    assert repo.config_flag("memtui.recordAgentWrites") is False
    git(top, "config", "memtui.recordAgentWrites", "banana")
    assert repo.config_flag("memtui.recordAgentWrites") is False


def test_history_is_parsed_in_one_place_from_real_git_output(tmp_path: Path) -> None:
    """`events_from_log` and `dates_from_log` read what StoreRepo asks git for; the repository only runs git."""
    from memtui.audit.history import DATES_FORMAT, HISTORY_FORMAT, dates_from_log, events_from_log
    from memtui.audit.trailers import message

    repo, top = _repo(tmp_path)
    (top / "memory" / "feedback_a.md").write_text(memory("a", body="Changed."), encoding="utf-8")
    git(top, "add", "-A")
    text = message("verify", "a", "", [("Memtui-Memory", "memory/feedback_a.md"), ("Memtui-Reason", "still true")])
    git(top, "commit", "-q", "-m", text)

    raw = git(top, "log", "-z", HISTORY_FORMAT)
    events = events_from_log(raw)
    assert [(e.action, e.memory, e.reason) for e in events] == [("verify", "memory/feedback_a.md", "still true")]
    assert events_from_log(raw, ["memory/other.md"]) == []
    assert repo.history() == events

    out = git(top, "log", "-z", DATES_FORMAT, "--name-only", "--no-renames").encode()
    dates = dates_from_log(out, repo.work_tree, top / "memory")
    assert set(dates.first) == {"feedback_a.md", "MEMORY.md"} and dates.source == "git"
    assert dates.last == repo.file_dates().last


def test_an_agent_write_names_every_file_it_committed_past_those_its_trailers_name(
    tmp_path: Path, git_calls: list[str]
) -> None:
    """An agent-write commit's trailers name 50 of the files it wrote; its event names all of them (read from git,
    one call for every such commit, once per HEAD): a file's history, the preview's, and `memtui history`."""
    import json
    import os
    import subprocess
    import sys

    from memtui import ops
    from memtui.workspace import open_store

    repo, top = _repo(tmp_path)
    store = top / "memory"
    names = [f"memory/feedback_rule_{i:03}.md" for i in range(70)]
    write_files(top, {n: memory(n) for n in names})
    ops.record_agent_write(store)
    (store / "feedback_rule_069.md").write_text(memory("last", body="Again."), encoding="utf-8")
    ops.record_agent_write(store)

    git_calls.clear()
    events = repo.history()
    assert [(e.action, len(e.memories)) for e in events] == [("agent-write", 1), ("agent-write", 70)]
    assert list(events[1].memories) == names  # the 50 its trailers name first, then the rest, as git lists them
    assert git_calls == ["log", "log"]  # the history, then the files of the one commit that names only some
    assert repo.history() == events and git_calls == ["log", "log"]  # both read again from the cache
    assert [e.commit for e in repo.history(["memory/feedback_rule_060.md"])] == [events[1].commit]
    assert [e.memory for e in repo.history(["memory/feedback_rule_069.md"])] == ["memory/feedback_rule_069.md"] * 2

    ws = open_store(store)
    late = next(m for m in ws.store.memories if m.path == "feedback_rule_060.md")
    assert [e.action for e in ws.history(late)] == ["agent-write"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    cli = [sys.executable, "-m", "memtui", "history", str(store)]
    text = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=120).stdout
    assert "… 67 more" in text
    listed = json.loads(subprocess.run([*cli, "--json"], capture_output=True, text=True, env=env, timeout=120).stdout)
    assert len(listed[1]["memories"]) == 70
    one = subprocess.run([*cli, "feedback_rule_060.md"], capture_output=True, text=True, env=env, timeout=120).stdout
    assert "agent-write" in one and "memory/feedback_rule_060.md" in one


def test_an_archive_undone_or_restored_keeps_the_day_its_memory_was_written(tmp_path: Path) -> None:
    """Putting a memory back is not writing it: it must not turn fresh and read as the newer of a pair."""
    import datetime as dt

    from memtui import ops

    top = tmp_path / "project"
    write_files(top, {"memory/feedback_a.md": memory("a"), "memory/MEMORY.md": "- [a](feedback_a.md) — a\n"})
    written = dt.date(2025, 3, 4)
    init_repo(top, when=written)
    store = top / "memory"

    ops.archive(store, "feedback_a.md", reason="retired")
    ops.undo(store)
    assert open_repo(detect_layout(store)).file_dates().last["feedback_a.md"] == written

    ops.archive(store, "feedback_a.md", reason="retired again")
    archived = next(
        p for p in open_repo(detect_layout(store)).file_dates().last if p.endswith("feedback_a.md") and "/" in p
    )
    ops.restore(store, Path(archived).name)
    assert open_repo(detect_layout(store)).file_dates().last["feedback_a.md"] == written


def test_a_decision_undone_is_no_writing_day_and_one_redone_is_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial verified a stale memory, undid the verify, and found it fresh: the undone verify still counted as
    the day the memory was last written. Undone, it is not; redone, the decision's own day is back (not the redo's).
    Each commit is made on its own day, so the days tell them apart."""
    import datetime as dt

    from memtui import ops

    top = tmp_path / "project"
    write_files(top, {"memory/feedback_a.md": memory("a"), "memory/MEMORY.md": "- [a](feedback_a.md) — a\n"})
    written = dt.date(2025, 3, 4)
    init_repo(top, when=written)
    store = top / "memory"

    def on(day: str) -> None:
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T12:00:00+00:00")
        monkeypatch.setenv("GIT_AUTHOR_DATE", f"{day}T12:00:00+00:00")

    def last() -> dt.date:
        return open_repo(detect_layout(store)).file_dates().last["feedback_a.md"]

    on("2026-10-01")
    ops.verify(store, "feedback_a.md")
    assert last() == dt.date(2026, 10, 1), "a verify writes the file: its day is the verify's"
    on("2026-10-02")
    ops.undo(store)
    assert last() == written, "undone, the verify is no writing day"
    on("2026-10-03")
    ops.redo(store)
    assert last() == dt.date(2026, 10, 1), "redone, the verify's own day is back"
    on("2026-10-04")
    ops.undo(store)  # the redo undone: back to the day before the verify
    assert last() == written
    on("2026-10-05")
    ops.redo(store)
    assert last() == dt.date(2026, 10, 1)


def test_commits_by_path_says_of_every_path_what_commits_touching_says_of_one(tmp_path: Path) -> None:
    repo, top = _repo(tmp_path)
    base = git(top, "rev-parse", "HEAD").strip()
    names = ["memory/feedback_a.md", "memory/with space.md", "memory/规则.md"]
    for round_ in range(3):
        for name in names[: round_ + 1]:
            (top / name).write_text(f"round {round_}\n", encoding="utf-8")
        git(top, "add", "-A")
        git(top, "commit", "-qm", f"round {round_}")

    by_path = repo.commits_by_path(base)

    assert set(by_path) == set(names)
    for name in [*names, "memory/MEMORY.md"]:
        assert by_path.get(name, []) == repo.commits_touching(base, [name]), name
    assert len(by_path["memory/feedback_a.md"]) == 3 and len(by_path["memory/规则.md"]) == 1


def test_diffs_since_says_of_every_file_what_diff_since_says_of_each_in_one_git_call(
    tmp_path: Path, git_calls: list[str]
) -> None:
    """One `git diff` of many files, split by file, is each file's own `git diff`: names with a space, non-ASCII,
    a quote (git quotes its header) or a tab; a file deleted, added to the index, changed in mode only, renamed by
    the agent (both names asked), untracked or unchanged; and with the user's git set to rename, copy, drop the
    a/ b/ prefixes or name them its own way, none of which may mix one file's patch into another's."""
    repo, top = _repo(tmp_path)
    mem = top / "memory"
    names = ["with space.md", "规则.md", 'say "hi".md', "tab\there.md", "gone.md", "moved.md", "mode.md", "same.md"]
    write_files(mem, {n: memory(n.removesuffix(".md"), body=f"The rule of {n}.") for n in names})
    git(top, "add", "-A")
    git(top, "commit", "-qm", "the agent's first writes")
    base = git(top, "rev-parse", "HEAD").strip()
    for n in ["with space.md", "规则.md", 'say "hi".md', "tab\there.md", "feedback_a.md"]:
        (mem / n).write_text(memory(n.removesuffix(".md"), body=f"The rule of {n}, changed."), encoding="utf-8")
    git(top, "commit", "-qam", "the agent changed some")
    (mem / "规则.md").write_text(memory("规则", body="Changed again, not committed."), encoding="utf-8")
    (mem / "gone.md").unlink()
    git(top, "mv", "memory/moved.md", "memory/moved again.md")
    (mem / "mode.md").chmod(0o755)
    (mem / "staged.md").write_text(memory("staged"), encoding="utf-8")
    git(top, "add", "memory/staged.md")
    (mem / "untracked.md").write_text(memory("untracked"), encoding="utf-8")
    asked = [f"memory/{n}" for n in [*names, "moved again.md", "staged.md", "untracked.md", "feedback_a.md"]]
    asked.append("memory/never existed.md")
    for setting in ([], ["diff.renames", "copies"], ["diff.noprefix", "true"], ["diff.mnemonicPrefix", "true"]):
        if setting:
            git(top, "config", *setting)
        one_by_one = {p: d for p in asked if (d := repo.diff_since(base, p))}
        git_calls.clear()

        assert repo.diffs_since(base, asked) == one_by_one, setting
        assert git_calls == ["diff"], setting  # one git call, and never the file-by-file fallback
    assert set(one_by_one) == {f"memory/{n}" for n in names if n != "same.md"} | {
        "memory/moved again.md",
        "memory/staged.md",
        "memory/feedback_a.md",
    }
    assert "say" in one_by_one['memory/say "hi".md'] and "+The rule of 规则.md" not in one_by_one["memory/规则.md"]
    assert repo.diffs_since(base, []) == {}


def test_patches_by_path_reads_only_the_output_it_knows() -> None:
    """Anything but the file list then one patch a file, in the same order, is not guessed at: the caller asks
    git file by file."""
    from memtui.audit.history import patches_by_path

    one = b"diff --git a/m/x y.md b/m/x y.md\n--- a/m/x y.md\n+++ b/m/x y.md\n@@ -1 +1 @@\n-a\n+b\n"
    listed = b":100644 100644 1111111 0000000 M\0m/x y.md\0\0"
    assert patches_by_path(b"") == {}
    assert patches_by_path(listed + one) == {"m/x y.md": one}
    assert patches_by_path(listed + one + one.replace(b"x y", b"z")) is None  # a patch no file was listed for
    assert patches_by_path(listed + b"* Unmerged path m/x y.md\n") is None
    assert patches_by_path(listed + one.replace(b"x y", b"other")) is None  # listed as one file, patched as another
    assert patches_by_path(listed[:-3]) is None  # cut short
