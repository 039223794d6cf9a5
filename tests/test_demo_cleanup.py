"""`check --demo` and `memtui --demo` leave no `memtui-demo-*` folder behind (issue 8 item 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.demo import DEMO_PREFIX, OWNER_FILE, demo_store


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "memtui", *args], capture_output=True, text=True, timeout=120, env=env)


def test_check_demo_leaves_nothing_in_the_temp_folder(tmp_path: Path) -> None:
    out = _run(tmp_path, "check", "--demo", "--today", "2026-11-30")
    assert out.returncode == 1 and "memories" in out.stdout, out.stderr  # the demo has error findings on purpose
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(DEMO_PREFIX)] == []


def test_a_demo_left_by_a_killed_process_is_removed_by_the_next_one(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=60)
    stale = tmp_path / f"{DEMO_PREFIX}stale"
    (stale / "atlas" / "memory").mkdir(parents=True)
    (stale / OWNER_FILE).write_text(str(gone.pid))
    alive = tmp_path / f"{DEMO_PREFIX}alive"
    alive.mkdir()
    (alive / OWNER_FILE).write_text(str(os.getpid()))  # a demo some running memtui still uses
    unowned = tmp_path / f"{DEMO_PREFIX}unowned"
    unowned.mkdir()
    assert _run(tmp_path, "check", "--demo", "--today", "2026-11-30").returncode == 1
    assert not stale.exists() and alive.exists() and unowned.exists()


def test_demo_store_context_removes_its_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    with demo_store() as store:
        assert (store / "MEMORY.md").exists()
        base = store.parent.parent
    assert not base.exists()
