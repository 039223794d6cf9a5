"""kill -9 at every write of a decision leaves a consistent store, and opening the store heals what was left.

A subprocess runs the real `memtui` command with os.replace / os.rename / os.unlink wrapped to SIGKILL itself
at the K-th call; right after, before any memtui runs, the store must be consistent: no index line points at
a missing file, no memory is both live and archived, and every memory's text is still somewhere (work tree or
git). Then `memtui check` (or opening the workspace) finishes or rolls back what the journal says.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, said, write_files

from memtui import ops
from memtui.ops import transaction
from memtui.workspace import open_store

TIMEOUT = 120

KILLER = textwrap.dedent("""
    import os, sys
    KILL_AT = int(os.environ["KILL_AT"])
    count = 0
    def wrap(name):
        original = getattr(os, name)
        def wrapped(*a, **k):
            global count
            result = original(*a, **k)
            count += 1
            if count == KILL_AT:
                os.kill(os.getpid(), 9)
            return result
        setattr(os, name, wrapped)
    for name in ("replace", "rename", "unlink"):
        wrap(name)
    from memtui.cli import main
    rc = main(sys.argv[1:])
    sys.stderr.write(f"POINTS {count}\\n")
    raise SystemExit(rc)
""")
LINK = re.compile(r"\\]\\(([^)\\s]+)\\)")


def project(tmp_path: Path) -> tuple[Path, Path]:
    top = tmp_path / "p"
    files: dict[str, str | bytes] = {"README.txt": "project\n"}
    index = ["# Memory index", ""]
    for i in range(4):
        files[f"memory/feedback_rule_{i}.md"] = memory(f"feedback_rule_{i}", body=f"Rule {i} (unique-{i}).")
        index.append(f"- [rule {i}](feedback_rule_{i}.md) — rule {i}")
    files["memory/MEMORY.md"] = "\n".join(index) + "\n"
    write_files(top, files)
    init_repo(top)
    return top, top / "memory"


def killed(args: list[str], k: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KILL_AT": str(k), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-c", KILLER, *args], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


def inconsistencies(top: Path) -> list[str]:
    """Index lines to missing files, and memories both live and archived (compared by their unique body line)."""
    store, archive = top / "memory", top / "memory.archive"
    problems = []
    for folder, name in ((store, "MEMORY.md"), (archive, "ARCHIVE.md")):
        index = folder / name
        if index.exists():
            problems += [f"{name} -> {t}" for t in LINK.findall(index.read_text()) if not (folder / t).exists()]
    if archive.is_dir():
        live = {p.name for p in store.glob("*.md")}
        problems += [f"{p.name} live and archived" for p in archive.glob("feedback_*.md") if p.name in live]
    return problems


def texts_everywhere(top: Path) -> str:
    """Every memory text in the work tree and in git's history."""
    tree = "".join(p.read_text(errors="replace") for p in top.rglob("*.md") if ".git" not in p.parts)
    return tree + git(top, "log", "--all", "-p", "--format=")


ACTIONS = {
    "archive": ["archive", "{store}", "feedback_rule_1.md", "--reason", "killed"],
    "bulk-archive": ["archive", "{store}", "feedback_rule_1.md", "feedback_rule_2.md", "--reason", "killed"],
    "restore": ["restore", "{store}", "feedback_rule_0.md"],
    "merge": ["merge", "{store}", "feedback_rule_1.md", "feedback_rule_2.md", "--into", "feedback_m.md"],
    "undo": ["undo", "{store}"],
}


@pytest.mark.parametrize("action", list(ACTIONS))
def test_a_kill_at_any_write_leaves_a_consistent_store_and_opening_heals_it(tmp_path: Path, action: str) -> None:
    def fresh(name: str) -> tuple[Path, Path, list[str]]:
        top, store = project(tmp_path / name)
        if action in ("restore", "undo"):
            ops.archive(store, "feedback_rule_0.md", reason="setup")
        return top, store, [a.format(store=store) for a in ACTIONS[action]]

    top, store, args = fresh("count")
    counted = killed(args, 0)
    assert counted.returncode == 0, counted.stderr
    points = int(counted.stderr.rsplit("POINTS ", 1)[1].split()[0])
    assert points >= 2
    for k in range(1, points + 1):
        top, store, args = fresh(f"k{k}")
        out = killed(args, k)
        assert out.returncode == -signal.SIGKILL, (k, out.stderr)
        assert inconsistencies(top) == [], f"kill after write {k} of {points}"
        everything = texts_everywhere(top)
        for i in range(4):
            assert f"unique-{i}" in everything, f"kill after write {k}: memory {i} lost"
        open_store(store)  # what the TUI's start, `check` and `history` do first
        assert inconsistencies(top) == []
        assert not list((top / ".git").glob("memtui-*.journal")), f"kill after write {k}: journal left after opening"
        assert git(top, "diff", "--cached", "--name-only") == ""


KILLED_AFTER_THE_INDEX = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memtui import ops
    from memtui.ops import transaction
    original = transaction.atomic_write
    def write_then_die(path, data, **kw):
        original(path, data, **kw)
        if Path(path).name == "MEMORY.md":
            os.kill(os.getpid(), 9)  # the index rewritten, the decision not committed
    transaction.atomic_write = write_then_die
    ops.archive(Path(sys.argv[1]), "feedback_rule_1.md", reason="killed")
""")


def test_healing_leaves_a_file_the_agent_writes_while_it_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recovery from a killed decision put files back with no last check: the agent's rewrite of MEMORY.md, landing
    after recovery looked at the file and before its rename, was lost. It is now checked right before the rename,
    left as the agent wrote it, and said."""
    top, store = project(tmp_path)
    index = store / "MEMORY.md"
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_THE_INDEX, str(store)], capture_output=True, timeout=TIMEOUT
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    agent = index.read_bytes() + b"- [agent](feedback_agent.md) - the agent's line\n"
    real_write = transaction.atomic_write

    def agent_writes_as_recovery_puts_back(path: Path, data: bytes, **kw: object) -> None:
        if path == index:
            index.write_bytes(agent)  # after recovery's look at the file, before its temp file and rename
        real_write(path, data, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "atomic_write", agent_writes_as_recovery_puts_back)
    notes = transaction.heal(store)
    assert index.read_bytes() == agent
    assert any("left as they are" in n and "MEMORY.md" in n for n in notes), notes
    assert (store / "feedback_rule_1.md").exists() and not (top / "memory.archive" / "feedback_rule_1.md").exists()


def test_opening_the_workspace_rolls_back_an_interrupted_decision(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    index_before = (store / "MEMORY.md").read_bytes()
    out = killed(["archive", str(store), "feedback_rule_1.md", "--reason", "killed"], 2)
    assert out.returncode == -signal.SIGKILL
    assert list((top / ".git").glob("memtui-*.journal"))  # the decision was interrupted mid-way
    ws = open_store(store)
    assert any("rolled back" in note for note in ws.healed)  # the TUI says this once it opens
    assert not list((top / ".git").glob("memtui-*.journal"))
    assert (store / "feedback_rule_1.md").exists() and (store / "MEMORY.md").read_bytes() == index_before
    assert "feedback_rule_1.md" in [m.path for m in ws.store.memories]
    assert not (top / "memory.archive" / "feedback_rule_1.md").exists()


def test_check_says_it_healed_the_store(tmp_path: Path) -> None:
    top, store = project(tmp_path)
    out = killed(["archive", str(store), "feedback_rule_1.md", "--reason", "killed"], 2)
    assert out.returncode == -signal.SIGKILL
    check = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(store), "--json"], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert check.returncode in (0, 1), check.stderr
    assert "interrupted memtui action was rolled back" in check.stderr
    assert check.stdout.lstrip().startswith("{")  # the JSON stays clean: notes go to stderr


async def test_the_tui_says_when_opening_healed_the_store(tmp_path: Path) -> None:
    from memtui.tui.app import MemtuiApp
    from memtui.tui.pilot import settle

    top, store = project(tmp_path)
    out = killed(["archive", str(store), "feedback_rule_1.md", "--reason", "killed"], 2)
    assert out.returncode == -signal.SIGKILL
    app = MemtuiApp(store, watch_interval=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert any(n.title == "Store healed" and "rolled back" in n.message for n in said(app)), said(app)
    assert (store / "feedback_rule_1.md").exists()
