"""Regression tests for the reliability findings (issue 7): nothing lost, nothing hangs, nothing forged.

Real git repositories in temporary folders, the real `memtui` command in subprocesses, every subprocess with a
timeout. Each test names the finding it pins down.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.audit.lock import LockHeld, store_lock
from memtui.audit.repo import open_repo, parse_trailers
from memtui.core.store import detect_layout
from memtui.ops import transaction
from memtui.ops.paths import atomic_write

TIMEOUT = 60


def wait_for(condition: Callable[[], bool], limit: float) -> bool:
    """Whether `condition` came true within `limit` seconds (checked every 20 ms)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """The real `memtui` command."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
        timeout=timeout,
    )


def project(tmp_path: Path, n: int = 4, extra: dict[str, str | bytes] | None = None) -> tuple[Path, Path]:
    """`<tmp>/p` (a git repository holding README.txt and main.c) with `memory/` of n memories and MEMORY.md."""
    top = tmp_path / "p"
    files: dict[str, str | bytes] = {"README.txt": "project\n", "main.c": "int main(void) { return 0; }\n"}
    index = ["# Memory index", ""]
    for i in range(n):
        files[f"memory/feedback_rule_{i}.md"] = memory(f"feedback_rule_{i}", body=f"Rule {i} (unique-{i}).")
        index.append(f"- [rule {i}](feedback_rule_{i}.md) — rule {i}")
    files["memory/MEMORY.md"] = "\n".join(index) + "\n"
    files.update(extra or {})
    write_files(top, files)
    init_repo(top)
    return top, top / "memory"


def tracked(top: Path) -> list[str]:
    return [p for p in git(top, "ls-files", "-z").split("\0") if p]


def assert_clean_refusal(out: subprocess.CompletedProcess[str], *words: str, code: int = 1) -> None:
    """Refused in one line naming what is wrong: exit 1 (an action refused), or `code` 2 for bad usage."""
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and out.stderr.startswith("memtui: "), out.stderr
    for w in words:
        assert w in out.stderr, out.stderr


# ----------------------------------------------------------------------------------------------- F1 / F2


def test_f1_undo_at_a_shallow_boundary_refuses_and_deletes_nothing(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    assert run("archive", str(store), "feedback_rule_1.md", "--reason", "old").returncode == 0
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{top}", str(clone)], check=True, timeout=TIMEOUT)
    git(clone, "config", "user.name", "T")
    git(clone, "config", "user.email", "t@example.com")
    before = tracked(clone)
    out = run("undo", str(clone / "memory"))
    assert_clean_refusal(out, "not in this repository")
    assert tracked(clone) == before and (clone / "main.c").exists() and (clone / "README.txt").exists()


def test_f1_undo_never_touches_paths_outside_the_store(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    # a commit carrying memtui's trailers that also changed a project file (forged or hand-made)
    (top / "main.c").write_text("changed\n")
    (store / "feedback_rule_0.md").write_text(memory("feedback_rule_0", body="edited"))
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "memtui: edit x\n\nMemtui-Action: edit\nMemtui-Memory: memory/feedback_rule_0.md")
    out = run("undo", str(store))
    assert_clean_refusal(out, "outside the store")
    assert (top / "main.c").read_text() == "changed\n"


def test_f2_rollback_keeps_what_someone_else_wrote_meanwhile(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    mine = store / "feedback_new.md"
    with pytest.raises(RuntimeError):
        with ops._decision(store) as txn:
            original = index.read_bytes()
            txn.write(index, original + b"- [x](x.md) - memtui's line\n", expected=original)
            txn.write(mine, b"memtui's new file\n", expected=None)
            index.write_bytes(original + b"- [agent](agent.md) - the agent's line\n")  # the agent, meanwhile
            raise RuntimeError("refused later")
    assert index.read_bytes().endswith(b"the agent's line\n")  # not overwritten by the rollback
    assert not mine.exists()  # memtui's own untouched write is rolled back


def test_f2_a_refused_check_read_never_writes_the_index_back(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    agent_final = index.read_bytes() + b"- [agent](agent.md) - the agent's newest line\n"
    with pytest.raises(ops.ChangedOnDisk):
        with ops._decision(store) as txn:
            original = index.read_bytes()
            index.write_bytes(b"")  # the agent truncated it and is about to write its new index
            try:
                txn.write(index, original + b"x\n", expected=original)
            except ops.ChangedOnDisk:
                index.write_bytes(agent_final)  # ...and finishes its write before memtui rolls back
                raise
    assert index.read_bytes() == agent_final  # memtui never wrote it, so it never puts anything back


def test_f2_an_agent_write_after_memtui_checked_the_file_is_refused_not_overwritten(tmp_path: Path) -> None:
    """p3_agent_writer lost one agent line in 30 rounds: memtui checked the index, journaled and wrote its temp
    file, and the agent's write landed in between; the rename then replaced it. The check now runs again right
    before the rename."""
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    agent = index.read_bytes() + b"- [agent](agent.md) - the agent's line\n"
    with pytest.raises(ops.ChangedOnDisk):
        with ops._decision(store) as txn:
            original = index.read_bytes()
            journal = txn._remember

            def agent_writes_meanwhile(path: Path, before: bytes | None, after: bytes | None) -> None:
                journal(path, before, after)
                index.write_bytes(agent)  # the agent, once memtui has checked the file and journaled its write

            txn._remember = agent_writes_meanwhile  # type: ignore[method-assign]
            txn.write(index, original + b"- [x](x.md) - memtui's line\n", expected=original)
    assert index.read_bytes() == agent
    assert not list((top / ".git").glob("memtui-tmp-*"))  # the temp file memtui had written is gone
    assert git(top, "status", "--porcelain", "--", "memory") == " M memory/MEMORY.md\n"  # the agent's, uncommitted


def test_f2_an_agent_write_while_the_rollback_puts_a_file_back_is_kept_and_the_refusal_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """p7 B3: the rollback looked at MEMORY.md (memtui's bytes), then the agent rewrote it in place, then the
    rollback renamed its copy of the old index over it: the agent's line was lost. The put-back now checks the
    file again right before its rename, as a forward write does, and leaves the agent's bytes."""
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    agent = index.read_bytes() + b"- [agent](agent.md) - the agent's line\n"
    real_write = transaction.atomic_write

    def agent_writes_as_the_rollback_puts_back(path: Path, data: bytes, **kw: object) -> None:
        if path == index:
            index.write_bytes(agent)  # after the rollback's look at the file, before its temp file and rename
        real_write(path, data, **kw)  # type: ignore[arg-type]

    with pytest.raises(ops.OpError) as info:
        with ops._decision(store) as txn:
            original = index.read_bytes()
            txn.write(index, original + b"- [x](x.md) - memtui's line\n", expected=original)
            monkeypatch.setattr(transaction, "atomic_write", agent_writes_as_the_rollback_puts_back)
            raise ops.OpError("refused later; nothing was changed")
    assert index.read_bytes() == agent
    assert "left as they are" in str(info.value) and "MEMORY.md" in str(info.value)
    assert not list((top / ".git").glob("memtui-tmp-*")) and not list((top / ".git").glob("memtui-*.journal"))


def test_f2_a_write_landing_after_the_last_read_and_before_the_rename_is_refused(tmp_path: Path) -> None:
    """The last check read the whole file and then the rename followed (0.2-4 ms apart on a large index): a write
    landing after the read was overwritten. The file's inode, size and times are now compared once more after
    the read, the last step before the rename."""
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    agent = index.read_bytes() + b"- [agent](agent.md) - the agent's line\n"
    with pytest.raises(ops.ChangedOnDisk):
        with ops._decision(store) as txn:
            original = index.read_bytes()
            check = txn._check
            calls: list[Path] = []

            def agent_writes_after_the_read(path: Path, expected: bytes | None) -> None:
                check(path, expected)
                calls.append(path)
                if path == index and len(calls) == 2:  # the check right before the rename has read the file
                    index.write_bytes(agent)

            txn._check = agent_writes_after_the_read  # type: ignore[method-assign]
            txn.write(index, original + b"- [x](x.md) - memtui's line\n", expected=original)
    assert index.read_bytes() == agent
    assert not list((top / ".git").glob("memtui-tmp-*"))


def test_atomic_write_runs_its_last_check_with_the_temp_file_on_disk_and_the_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old\n")
    seen: list[tuple[bytes, list[bytes]]] = []

    def last_check() -> None:
        seen.append((target.read_bytes(), [p.read_bytes() for p in (tmp_path / "tmp").iterdir()]))
        raise ops.ChangedOnDisk("changed", "MEMORY.md", None)

    (tmp_path / "tmp").mkdir()
    with pytest.raises(ops.ChangedOnDisk):
        atomic_write(target, b"new\n", tmp_dir=tmp_path / "tmp", before_rename=last_check)
    assert seen == [(b"old\n", [b"new\n"])]  # the check ran after the temp file was complete, before the rename
    assert target.read_bytes() == b"old\n" and not list((tmp_path / "tmp").iterdir())


# ----------------------------------------------------------------------------------------------- H3 / H4


@pytest.mark.parametrize(
    "hook",
    ["prepare-commit-msg", "post-commit", "post-index-change", "reference-transaction", "pre-commit", "commit-msg"],
)
def test_h3_no_git_hook_runs(tmp_path: Path, hook: str) -> None:
    top, store = project(tmp_path)
    marker = tmp_path / f"ran-{hook}"
    hooks = top / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / hook).write_text(f"#!/bin/sh\ntouch '{marker}'\nsleep 600\n")
    (hooks / hook).chmod(0o755)
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "old", timeout=40)
    assert out.returncode == 0, out.stderr
    assert not marker.exists()
    assert run("undo", str(store), timeout=40).returncode == 0 and not marker.exists()


def test_h3_core_hooks_path_is_skipped_too(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    hooks = tmp_path / "myhooks"
    hooks.mkdir()
    marker = tmp_path / "ran"
    for name in ("prepare-commit-msg", "post-commit", "pre-commit"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
        (hooks / name).chmod(0o755)
    git(top, "config", "core.hooksPath", str(hooks))
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "old", timeout=40)
    assert out.returncode == 0, out.stderr
    assert not marker.exists()
    assert "Memtui-Action: archive" in git(top, "log", "-1", "--format=%B")


def test_h4_threads_share_one_store_repo_without_hanging(tmp_path: Path) -> None:
    top, store = project(tmp_path, n=10)
    for i in range(10):
        git(top, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    repo = open_repo(detect_layout(store))
    errors: list[str] = []

    def hammer(kind: str) -> None:
        try:
            for _ in range(15):
                if kind == "head":
                    repo.has_head()
                elif kind == "history":
                    repo.history(limit=5)
                else:
                    repo.file_dates()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(f"{kind}: {exc}")

    threads = [threading.Thread(target=hammer, args=(k,), daemon=True) for k in ("head", "head", "history", "dates")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors


# ----------------------------------------------------------------------------------------------- F3


def test_f3_two_threads_of_one_process_are_serialised(tmp_path: Path) -> None:
    path = tmp_path / "memtui-x.lock"
    entered = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with store_lock(path):
            entered.set()
            release.wait(timeout=TIMEOUT)

    t = threading.Thread(target=holder)
    t.start()
    assert entered.wait(timeout=TIMEOUT)
    with pytest.raises(LockHeld):
        with store_lock(path):
            pass
    assert path.exists()
    release.set()
    t.join(timeout=TIMEOUT)
    with store_lock(path):
        pass


def test_f3_two_processes_never_both_hold_the_lock(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys, time
        from pathlib import Path
        from memtui.audit.lock import store_lock, LockHeld
        print("ready", flush=True)
        sys.stdin.readline()
        try:
            with store_lock(Path(sys.argv[1])):
                a = time.time(); time.sleep(0.3); print("HELD", a, time.time(), flush=True)
        except LockHeld:
            print("REFUSED", flush=True)
    """)
    for r in range(8):
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(tmp_path / f"l{r}.lock")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        for p in procs:  # both imported and waiting: release them together
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        outs = [p.communicate(timeout=TIMEOUT)[0].split() for p in procs]
        held = [(float(o[1]), float(o[2])) for o in outs if o[0] == "HELD"]
        assert held, outs
        if len(held) == 2:  # both got in: only acceptable one after the other
            (a0, a1), (b0, b1) = held
            assert a1 <= b0 or b1 <= a0, outs


def test_f3_two_cli_actions_at_once_one_succeeds_one_refuses_in_words(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    # hold the store's lock from another process while the CLI runs: the CLI refuses in words, exit 1
    layout = detect_layout(store)
    from memtui.audit.lock import lock_path

    lock = lock_path(top / ".git", layout.root)
    code = (
        "import sys, time; from pathlib import Path; from memtui.audit.lock import store_lock\n"
        "with store_lock(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(30)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
        assert_clean_refusal(out, "another memtui process")
    finally:
        holder.kill()
        holder.wait(timeout=TIMEOUT)
    assert run("archive", str(store), "feedback_rule_1.md", "--reason", "x").returncode == 0


# ----------------------------------------------------------------------------------------------- F6 / F7


def test_f6_a_stale_index_lock_is_reported_in_words(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    (top / ".git" / "index.lock").write_text("")
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert_clean_refusal(out, "index.lock", "remove")
    assert (store / "feedback_rule_1.md").exists()
    assert run("check", str(store)).returncode in (0, 1)


def test_f7_nothing_of_memtui_stays_staged_and_exact_bytes_are_committed(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    (top / "main.c").write_text("user's staged work\n")
    git(top, "add", "main.c")
    assert run("archive", str(store), "feedback_rule_1.md", "--reason", "old").returncode == 0
    staged = git(top, "diff", "--cached", "--name-only").split()
    assert staged == ["main.c"]
    assert git(top, "status", "--porcelain", "--", "memory", "memory.archive") == ""
    assert git(top, "show", "HEAD:memory.archive/feedback_rule_1.md").startswith("---")


def test_f7_temp_files_are_removed_not_committed(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    debris = store / ".feedback_rule_2.md.memtui-99999999.tmp"
    debris.write_text("half-written sk-ant-api03-" + "A" * 90)
    out = run("verify", str(store), "feedback_rule_2.md")
    assert out.returncode == 0, out.stderr
    assert not debris.exists()
    assert not [p for p in tracked(top) if ".tmp" in p]


KILLER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memtui import ops
    original = ops._Txn.move
    def move_then_die(self, src, dest, *, expected):
        original(self, src, dest, expected=expected)
        os.kill(os.getpid(), 9)
    ops._Txn.move = move_then_die
    ops.archive(Path(sys.argv[1]), "feedback_rule_1.md", reason="killed mid-move")
""")


def test_f7_a_kill_mid_move_is_rolled_back_by_the_next_action(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    index_before = (store / "MEMORY.md").read_bytes()
    proc = subprocess.run([sys.executable, "-c", KILLER, str(store)], capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    assert not (store / "feedback_rule_1.md").exists()  # the half-move the kill left
    out = run("verify", str(store), "feedback_rule_2.md")
    assert out.returncode == 0, out.stderr
    assert "interrupted" in out.stdout
    assert (store / "feedback_rule_1.md").exists()
    assert not (top / "memory.archive" / "feedback_rule_1.md").exists()
    assert (store / "MEMORY.md").read_bytes() == index_before
    assert git(top, "diff", "--cached", "--name-only") == ""
    log = git(top, "log", "--format=%s")
    assert "record agent writes" not in log  # the half-move was not recorded as the agent's doing


MERGE_KILLER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memtui import ops
    from memtui.ops import transaction
    original = transaction.atomic_write
    seen = []
    def write_then_maybe_die(path, data, **kw):
        if Path(path).name == "MEMORY.md":
            seen.append(path)
            if len(seen) == 2:  # the second memory's line going: MEMORY.md holds memtui's 1st version (retargeted)
                os.kill(os.getpid(), 9)
        original(path, data, **kw)
    transaction.atomic_write = write_then_maybe_die
    ops.merge(Path(sys.argv[1]), ["feedback_rule_1.md", "feedback_rule_2.md"], into="feedback_merged.md", reason="dupes")
""")


def test_f7_a_kill_between_two_writes_of_one_file_is_rolled_back(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    index_before = (store / "MEMORY.md").read_bytes()
    proc = subprocess.run([sys.executable, "-c", MERGE_KILLER, str(store)], capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (store / "MEMORY.md").read_bytes() != index_before
    out = run("verify", str(store), "feedback_rule_3.md")
    assert out.returncode == 0, out.stderr
    assert (store / "MEMORY.md").read_bytes() == index_before
    assert (store / "feedback_rule_1.md").exists() and (store / "feedback_rule_2.md").exists()
    assert not (store / "feedback_merged.md").exists()
    assert not list((top / "memory.archive").glob("feedback_rule_*.md"))
    assert "record agent writes" not in git(top, "log", "--format=%s")


# ----------------------------------------------------------------------------------------------- F9


def test_f9_merge_in_progress_is_refused(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    git(top, "checkout", "-q", "-b", "other")
    (top / "main.c").write_text("other\n")
    git(top, "commit", "-qam", "other")
    git(top, "checkout", "-q", "main")
    (top / "main.c").write_text("main\n")
    git(top, "commit", "-qam", "main")
    subprocess.run(["git", "merge", "-q", "other"], cwd=top, capture_output=True, timeout=TIMEOUT)
    assert (top / ".git" / "MERGE_HEAD").exists()
    (store / "feedback_agent.md").write_text(memory("feedback_agent"))
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert_clean_refusal(out, "merge is in progress")
    assert "memory/feedback_agent.md" not in git(top, "diff", "--cached", "--name-only")


def test_f9_conflict_markers_are_never_committed(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    path = store / "feedback_rule_2.md"
    path.write_text(memory("feedback_rule_2", body="stashed version"))
    git(top, "stash", "-q")
    path.write_text(memory("feedback_rule_2", body="committed version"))
    git(top, "commit", "-qam", "change")
    subprocess.run(["git", "stash", "pop"], cwd=top, capture_output=True, timeout=TIMEOUT)
    assert "<<<<<<<" in path.read_text()
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert_clean_refusal(out, "conflict")
    assert "<<<<<<<" not in git(top, "show", "HEAD:memory/feedback_rule_2.md")


def test_f9_git_dir_exported_still_commits_into_the_stores_own_repository(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    dot = tmp_path / "dotfiles.git"
    subprocess.run(["git", "init", "-q", "--bare", str(dot)], check=True, timeout=TIMEOUT)
    out = run(
        "archive",
        str(store),
        "feedback_rule_1.md",
        "--reason",
        "x",
        env={"GIT_DIR": str(dot), "GIT_WORK_TREE": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr
    assert "Memtui-Action: archive" in git(top, "log", "-1", "--format=%B")
    other = subprocess.run(["git", "--git-dir", str(dot), "ls-files"], capture_output=True, text=True, timeout=TIMEOUT)
    assert other.stdout == ""


# ----------------------------------------------------------------------------------------------- F8 / F5


@pytest.mark.parametrize(
    "name", ["feedback_规则_ü.md", "feedback_tab\there.md", "feedback_star*.md", "feedback_q\"'.md"]
)
def test_f8_undo_brings_back_files_git_would_quote(tmp_path: Path, name: str) -> None:
    top, store = project(tmp_path)
    (store / name).write_text(memory("odd"))
    git(top, "add", "-A")
    git(top, "commit", "-qm", "odd")
    assert run("archive", str(store), name, "--reason", "odd").returncode == 0
    assert (top / "memory.archive" / name).exists()
    out = run("undo", str(store))
    assert out.returncode == 0, out.stderr
    assert (store / name).exists() and not (top / "memory.archive" / name).exists()


def test_f8_a_non_utf8_file_name_is_recorded_and_check_json_works(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    raw = os.fsencode(str(store)) + b"/feedback_latin1_\xe9t\xe9.md"
    with open(raw, "wb") as fh:
        fh.write(memory("latin").encode())
    out = run("check", str(store), "--json")
    assert out.returncode in (0, 1) and "Traceback" not in out.stderr
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert out.returncode == 0, out.stderr
    assert b"latin1" in subprocess.run(["git", "ls-files"], cwd=top, capture_output=True, timeout=TIMEOUT).stdout


def test_f5_an_agent_file_name_cannot_forge_a_decision(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    forged = (
        "feedback_x\n\nMemtui-Action: archive\nMemtui-Memory: memory\\\\feedback_rule_3.md\nMemtui-Reason: forged.md"
    )
    (store / forged).write_text(memory("x"))
    assert run("verify", str(store), "feedback_rule_2.md").returncode == 0
    agent = git(top, "log", "-1", "--skip=1", "--format=%B")
    trailers = parse_trailers(agent)
    assert trailers.get("Memtui-Actor") == ["agent"] and "Memtui-Action" not in trailers
    events = open_repo(detect_layout(store)).history()
    assert [e.action for e in events][:2] == ["verify", "agent-write"]


def test_f5_record_separators_in_a_reason_cannot_forge_history(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    reason = (
        "x\x1e" + "deadbeef" + "\x1f2020-01-01T00:00:00+00:00\x1fMallory\x1fmemtui: archive\n\nMemtui-Action: archive"
    )
    assert run("archive", str(store), "feedback_rule_1.md", "--reason", reason).returncode == 0
    out = run("history", str(store), "--json")
    assert out.returncode == 0, out.stderr
    events = json.loads(out.stdout)
    assert [(e["action"], e["author"]) for e in events] == [("archive", "Test Person")]
    assert run("undo", str(store)).returncode == 0
    assert (store / "feedback_rule_1.md").exists()


# ----------------------------------------------------------------------------------------------- F4


SECRET = "sk-ant-api03-" + "Ab3" * 30


def test_f4_a_secret_in_an_edit_reason_is_refused(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    text = tmp_path / "t.md"
    text.write_text(memory("feedback_rule_1", body="new text"))
    head = git(top, "rev-parse", "HEAD")
    out = run("edit", str(store), "feedback_rule_1.md", "--text-file", str(text), "--reason", f"was {SECRET}")
    assert_clean_refusal(out, "secret")
    assert git(top, "rev-parse", "HEAD") == head


def test_f4_non_markdown_and_undecodable_files_are_scanned_before_the_agent_commit(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    (store / ".env").write_text(f"KEY={SECRET}\n")
    (store / "latin.md").write_bytes(f"---\nname: l\ntype: user\n---\ncaf\xe9 {SECRET}\n".encode("latin-1"))
    (store / "utf16.md").write_bytes(f"key {SECRET}\n".encode("utf-16"))
    (store / "fine.txt").write_text("no secret here\n")
    out = run("verify", str(store), "feedback_rule_2.md")
    assert out.returncode == 0, out.stderr
    files = tracked(top)
    assert "memory/fine.txt" in files
    assert not {"memory/.env", "memory/latin.md", "memory/utf16.md"} & set(files)
    assert "memtui: warning: not recorded" in out.stderr


def test_f4_init_scans_every_file(tmp_path: Path) -> None:
    store = tmp_path / "p" / "memory"
    write_files(
        store,
        {
            "a.md": memory("a"),
            "key.pem": f"-----BEGIN RSA PRIVATE KEY-----\n{'A' * 64}\n-----END RSA PRIVATE KEY-----\n",
        },
    )
    out = run("init", str(store))
    assert_clean_refusal(out, "key.pem")
    assert not (tmp_path / "p" / ".git").exists()


# ----------------------------------------------------------------------------------------------- F10 / F11


def test_f10_a_symlinked_index_is_refused(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("# somebody else's file\n")
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").symlink_to(outside)
    git(top, "add", "-A")
    git(top, "commit", "-qm", "link")
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert_clean_refusal(out, "symlink")
    assert (store / "MEMORY.md").is_symlink() and outside.read_text() == "# somebody else's file\n"


def test_f10_a_symlinked_archive_folder_is_refused(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (top / "memory.archive").symlink_to(elsewhere)
    out = run("archive", str(store), "feedback_rule_1.md", "--reason", "x")
    assert_clean_refusal(out, "symlink")
    assert list(elsewhere.iterdir()) == [] and (store / "feedback_rule_1.md").exists()


def test_f11_terminal_escapes_are_not_printed_raw(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    name = "feedback_\x1b]0;pwned\x07.md"
    (store / name).write_text(memory("esc"))
    out = run("archive", str(store), name, "--reason", "x")
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    hist = run("history", str(store))
    assert "\x1b" not in hist.stdout and "\x07" not in hist.stdout
    bad = run("archive", str(store), "missing\x1b[31m.md", "--reason", "x")
    assert bad.returncode == 1 and "\x1b" not in bad.stderr


@pytest.mark.parametrize("into", ["", ".", "..", ".hidden", "x\ny"])
def test_f11_bad_merge_target_names_are_refused(tmp_path: Path, into: str) -> None:
    top, store = project(tmp_path)
    out = run("merge", str(store), "feedback_rule_1.md", "feedback_rule_2.md", "--into", into)
    assert_clean_refusal(out, code=2)  # a name that cannot be a memory's is a bad argument
    assert (store / "feedback_rule_1.md").exists() and (store / "feedback_rule_2.md").exists()


def test_f11_verify_stamps_the_key_yaml_reads_when_it_is_duplicated(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    path = store / "feedback_dup.md"
    path.write_text(
        "---\nname: dup\ndescription: dup keys\ntype: feedback\nlast_verified: 2020-01-01\n"
        "last_verified: 2020-01-02\n---\n\nBody.\n"
    )
    result = ops.verify(store, "feedback_dup.md")
    assert result.commit
    from memtui.core.frontmatter import parse

    assert str(parse(path.read_text()).data["last_verified"]) == result.summary.split("(")[-1].rstrip(")")
    assert path.read_text().count("last_verified") == 1


AGENT_COMMIT_KILLER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memtui import ops
    from memtui.audit import repo
    def die(cwd, subject, new, old, paths):
        repo.run_git(cwd, ["update-ref", "-m", subject, "HEAD", new, old])
        os.kill(os.getpid(), 9)  # HEAD moved to the agent-write commit, the index not yet refreshed (a power loss)
    repo.move_head_and_sync_index = die
    ops.verify(Path(sys.argv[1]), "feedback_rule_2.md")
""")


def test_f7_a_kill_after_the_commit_never_leaves_the_index_behind(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    (store / "feedback_agent_new.md").write_text(memory("feedback_agent_new"))
    proc = subprocess.run([sys.executable, "-c", AGENT_COMMIT_KILLER, str(store)], capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "record agent writes" in git(top, "log", "-1", "--format=%s")
    out = run("verify", str(store), "feedback_rule_3.md")
    assert out.returncode == 0, out.stderr
    assert git(top, "diff", "--cached", "--name-only") == ""  # a plain `git commit` would delete nothing


def test_f7_memtui_killed_with_its_process_group_right_after_head_moved_still_leaves_the_index_in_line(
    tmp_path: Path,
) -> None:
    """p1_kill_random kills memtui's whole process group at a random moment; a kill after HEAD moved and before the
    index was refreshed left memtui's commit staged in reverse. Both steps now run in one child of its own session,
    which finishes them. A `git` on PATH holds the child right after `update-ref` until memtui has been killed."""
    top, store = project(tmp_path)
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    moved, release, synced = tmp_path / "moved", tmp_path / "release", tmp_path / "synced"
    wrapper = bin_dir / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'"{real}" "$@"; rc=$?\n'
        'case " $* " in\n'
        f'  *" update-ref "*) : > "{moved}"; while [ ! -e "{release}" ]; do sleep 0.05; done ;;\n'
        f'  *" reset "*) : > "{synced}" ;;\n'
        "esac\n"
        "exit $rc\n"
    )
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtui", "verify", str(store), "feedback_rule_2.md"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(moved.exists, TIMEOUT), "memtui never moved HEAD"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=TIMEOUT)
        release.touch()
    assert wait_for(synced.exists, TIMEOUT), "nothing refreshed the index after memtui was killed"
    assert "verify" in git(top, "log", "-1", "--format=%s")
    assert git(top, "diff", "--cached", "--name-only") == ""


# ----------------------------------------------------------------------------------------------- take back (p7)


def git_wrapper(tmp_path: Path, cases: str) -> dict[str, str]:
    """An environment whose `git` is a script running the real git, with `cases` (shell `case` arms on all its
    arguments, `$REAL` the real git) in front: the way these tests make one git call fail or another git act."""
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nREAL="{real}"\ncase "$*" in\n{cases}\nesac\nexec "$REAL" "$@"\n')
    wrapper.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def refused_with_an_agent_memory(
    tmp_path: Path, cases: str
) -> tuple[Path, Path, str, subprocess.CompletedProcess[str]]:
    """A project whose agent wrote a new memory, and a decision refused after recording it (self-supersede), with
    git wrapped by `cases`; the project, its store, HEAD before, and the refusal."""
    top, store = project(tmp_path)
    (store / "feedback_agent_new.md").write_text(memory("feedback_agent_new", body="The agent's rule."))
    head = git(top, "rev-parse", "HEAD").strip()
    env = git_wrapper(tmp_path, cases)
    out = run(
        "archive", str(store), "feedback_rule_1.md", "--reason", "x", "--superseded-by", "feedback_rule_1.md", env=env
    )
    assert_clean_refusal(out, "superseded by itself")
    return top, store, head, out


def said_recorded(top: Path, message: str) -> bool:
    """Whether a refusal says the agent's writes were recorded as a commit, asserting that commit is in HEAD's
    history when it does."""
    if "recorded as their own commit" not in message:
        return False
    sha = message.split("recorded as their own commit, ", 1)[1][:8]
    assert subprocess.run(["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=top).returncode == 0, message
    return True


def test_take_back_with_gits_index_locked_says_the_truth_and_leaves_nothing_staged(tmp_path: Path) -> None:
    """p7 B6: another git took `index.lock` right after take_back moved HEAD back, so the index could not follow.
    The refusal said the agent's writes were recorded as a commit no longer in HEAD's history, and left them
    staged (a plain `git commit` would take them). HEAD now goes forward on the agent's commit again, index and
    HEAD agree, and the refusal says the commit stays."""
    lock = tmp_path / "p" / ".git" / "index.lock"
    top, store, head, out = refused_with_an_agent_memory(
        tmp_path, f'  *"memtui: take back"*) "$REAL" "$@"; rc=$?; : > "{lock}"; exit $rc ;;'
    )
    assert said_recorded(top, out.stderr)
    assert "feedback_agent_new.md" in git(top, "show", "--name-only", "--format=", "HEAD")
    assert git(top, "diff", "--cached", "--name-only") == ""
    assert not list((top / ".git").glob("memtui-sync-*"))
    lock.unlink()  # the other git finished
    assert run("verify", str(store), "feedback_rule_2.md").returncode == 0
    assert git(top, "diff", "--cached", "--name-only") == "" and git(top, "status", "--porcelain", "--", "memory") == ""


def test_take_back_retries_gits_index_at_once(tmp_path: Path) -> None:
    """git's index was busy for a moment when take_back refreshed it: a retry takes the agent's commit back for good,
    and the refusal's "nothing was changed" stays true."""
    once = tmp_path / "busy-once"
    top, store, head, out = refused_with_an_agent_memory(
        tmp_path,
        f'  *"memtui: take back"*) "$REAL" "$@"; rc=$?; : > "{once}"; exit $rc ;;\n'
        f'  *" reset "*) if [ -e "{once}" ]; then rm -f "{once}"; '
        f"echo \"fatal: Unable to create '{tmp_path}/p/.git/index.lock': File exists.\" >&2; exit 128; fi ;;",
    )
    assert not once.exists()  # the failure was injected
    assert not said_recorded(top, out.stderr)
    assert git(top, "rev-parse", "HEAD").strip() == head
    assert git(top, "status", "--porcelain", "--", "memory") == "?? memory/feedback_agent_new.md\n"
    assert not list((top / ".git").glob("memtui-sync-*"))


def test_a_take_back_whose_index_stays_behind_says_so_and_the_next_action_in_the_same_process_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When neither the index can follow HEAD back nor HEAD go forward again, the refusal says the agent's files
    show as staged until memtui's next action; that action, in the same process (the TUI), brings the index in line
    (it skipped every memtui-sync file of its own process id)."""
    top, store = project(tmp_path)
    (store / "feedback_agent_new.md").write_text(memory("feedback_agent_new", body="The agent's rule."))
    head = git(top, "rev-parse", "HEAD").strip()
    lock = top / ".git" / "index.lock"
    env = git_wrapper(
        tmp_path,
        '  *"memtui: keep"*) echo "fatal: cannot lock ref HEAD" >&2; exit 128 ;;\n'
        f'  *"memtui: take back"*) "$REAL" "$@"; rc=$?; : > "{lock}"; exit $rc ;;',
    )
    monkeypatch.setenv("PATH", env["PATH"])
    with pytest.raises(ops.OpError) as info:
        ops.archive(store, "feedback_rule_1.md", reason="x", superseded_by="feedback_rule_1.md")
    message = str(info.value)
    assert not said_recorded(top, message) and git(top, "rev-parse", "HEAD").strip() == head
    assert "show as staged until memtui's next action" in message
    assert git(top, "diff", "--cached", "--name-only") == "memory/feedback_agent_new.md\n"  # as it says
    lock.unlink()
    result = ops.verify(store, "feedback_rule_2.md")
    assert result.agent_commit and "feedback_agent_new.md" in git(top, "show", "--name-only", result.agent_commit)
    assert git(top, "diff", "--cached", "--name-only") == ""
    assert not list((top / ".git").glob("memtui-sync-*"))


def test_take_back_declining_after_a_user_commit_leaves_no_sync_file(tmp_path: Path) -> None:
    """p7 B5: the user committed between take_back's look at HEAD and its update-ref. take_back declines and the
    agent's commit stays under the user's, as the refusal says; the memtui-sync file it had written was kept (it
    was removed only when HEAD was still on the agent's commit) and would have reset the user's index later."""
    top, store, head, out = refused_with_an_agent_memory(
        tmp_path, '  *"memtui: take back"*) "$REAL" commit -q --allow-empty -m "the user\'s commit" ;;'
    )
    assert said_recorded(top, out.stderr)
    assert git(top, "log", "-1", "--format=%s").strip() == "the user's commit"
    assert not list((top / ".git").glob("memtui-sync-*"))
    assert git(top, "diff", "--cached", "--name-only") == ""
