"""Layouts and trailer conventions (issue 8 items 1 and 8): a store at the root of its own repository, a
repository root holding `memory/`, and one path convention for every action's trailers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.core.store import load_store

TIMEOUT = 60


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real `memtui` command."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=TIMEOUT,
    )


def files(n: int = 3) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {
        f"feedback_r{i}.md": memory(f"feedback_r{i}", body=f"Rule {i} (unique {i}).") for i in range(n)
    }
    out["MEMORY.md"] = "# Memory\n\n" + "".join(f"- [r{i}](feedback_r{i}.md) — rule {i}\n" for i in range(n))
    return out


def test_store_at_the_root_of_its_own_repository_works_for_every_action(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    write_files(store, files())
    init_repo(store)  # `cd memory && git init`
    for args in (["check", str(store)], ["history", str(store)]):
        out = run(*args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    out = run("archive", str(store), "feedback_r1.md", "--reason", "old")
    assert out.returncode == 0, out.stderr
    archived = store / ".memtui-archive" / "feedback_r1.md.archived"
    assert archived.exists() and not (store / "feedback_r1.md").exists()
    # nothing in the loaded folder ends in .md that Claude Code should not load
    loaded = {p.relative_to(store).as_posix() for p in store.rglob("*.md") if ".git" not in p.parts}
    assert loaded == {"MEMORY.md", "feedback_r0.md", "feedback_r2.md"}
    assert git(store, "ls-files", ".memtui-archive").split() == [
        ".memtui-archive/ARCHIVE.md.archived",
        ".memtui-archive/feedback_r1.md.archived",
    ]
    report = json.loads(run("check", str(store), "--json").stdout)
    assert {(m["path"], m["status"]) for m in report["memories"]} >= {
        (".memtui-archive/feedback_r1.md.archived", "archived")
    }
    hist = json.loads(run("history", str(store), "feedback_r1.md", "--json").stdout)
    assert [e["action"] for e in hist] == ["archive"] and hist[0]["memory"] == "feedback_r1.md"
    assert run("restore", str(store), "feedback_r1.md").returncode == 0
    assert (store / "feedback_r1.md").exists() and not archived.exists()
    assert run("undo", str(store)).returncode == 0
    assert archived.exists() and not (store / "feedback_r1.md").exists()
    assert git(store, "status", "--porcelain") == ""


def test_a_repository_root_holding_memory_is_the_store(tmp_path: Path) -> None:
    top = tmp_path / "proj"
    write_files(top / "memory", files())
    write_files(top, {"main.c": "int x;\n"})
    init_repo(top)
    out = run("check", str(top))
    assert out.returncode == 0 and str(top / "memory") in out.stdout, out.stdout + out.stderr
    assert run("archive", str(top), "feedback_r0.md", "--reason", "old").returncode == 0
    assert (top / "memory.archive" / "feedback_r0.md").exists()
    assert run("history", str(top)).returncode == 0
    assert run("undo", str(top)).returncode == 0 and (top / "memory" / "feedback_r0.md").exists()


def test_every_action_writes_repository_relative_trailer_paths_and_history_finds_keep_both(tmp_path: Path) -> None:
    top = tmp_path / "proj"
    write_files(top / "memory", files())
    init_repo(top)
    store = top / "memory"
    loaded = load_store(store)
    a, b = loaded.get("feedback_r0.md"), loaded.get("feedback_r1.md")
    assert a is not None and b is not None
    ops.keep_both(store, a, b, kind="duplicate")
    body = git(top, "log", "-1", "--format=%B")
    assert "Memtui-Memory: memory/feedback_r0.md" in body and "Memtui-Memory: memory/feedback_r1.md" in body
    assert run("verify", str(store), "feedback_r1.md").returncode == 0
    hist = json.loads(run("history", str(store), "feedback_r1.md", "--json").stdout)
    assert [e["action"] for e in hist] == ["verify", "keep-both"]
    assert all(e["memory"] == "memory/feedback_r1.md" for e in hist)  # labelled by the file asked about
