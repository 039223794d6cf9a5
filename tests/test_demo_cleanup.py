"""`check --demo` and `memtui --demo` leave no `memtui-demo-*` folder behind (issue 8 item 9), never print the path
of a temporary copy as if it could be opened, and keep a copy in `--demo DIR` when asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memtui.demo import DEMO_PREFIX, OWNER_FILE, demo_store


def _run(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONIOENCODING": "utf-8", **env}
    return subprocess.run([sys.executable, "-m", "memtui", *args], capture_output=True, text=True, timeout=120, env=env)


def _quit_at_once() -> dict[str, str]:
    """The real TUI without a terminal, `q` pressed as soon as it is up (Textual's own environment switches)."""
    return {"TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver", "TEXTUAL_PRESS": "q"}


def _demos(tmp: Path) -> list[str]:
    return [p.name for p in tmp.iterdir() if p.name.startswith(DEMO_PREFIX)]


def test_check_demo_leaves_nothing_in_the_temp_folder(tmp_path: Path) -> None:
    out = _run(tmp_path, "check", "--demo", "--today", "2026-11-30")
    assert out.returncode == 1 and "memories" in out.stdout, out.stderr  # the demo has error findings on purpose
    assert _demos(tmp_path) == []


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


def test_check_demo_prints_no_path_of_its_temporary_copy(tmp_path: Path) -> None:
    text = _run(tmp_path, "check", "--demo", "--today", "2026-11-30")
    assert "a temporary copy deleted when this command ends" in text.stdout and "--demo DIR" in text.stdout
    assert str(tmp_path) not in text.stdout
    data = json.loads(_run(tmp_path, "check", "--demo", "--json", "--today", "2026-11-30").stdout)
    assert data["store_deleted_on_exit"] is True and data["findings"]
    assert not Path(data["store"]).exists()
    assert _demos(tmp_path) == []


def test_check_demo_dir_keeps_a_store_that_opens_and_is_never_built_over(tmp_path: Path) -> None:
    keep = tmp_path / "my demo"
    out = _run(tmp_path, "check", "--demo", str(keep), "--json", "--today", "2026-11-30")
    assert out.returncode == 1, out.stderr
    kept = json.loads(out.stdout)
    assert "store_deleted_on_exit" not in kept
    store = Path(kept["store"])
    assert store == keep / "atlas" / "memory" and (store / "MEMORY.md").is_file()
    again = json.loads(_run(tmp_path, "check", str(store), "--json", "--today", "2026-11-30").stdout)
    assert again["findings"] == kept["findings"]
    assert _demos(tmp_path) == []

    before = sorted(str(p) for p in keep.rglob("*"))
    out = _run(tmp_path, "check", "--demo", str(keep), "--today", "2026-11-30")
    assert out.returncode == 2 and "not an empty folder" in out.stderr and f"memtui {store}" in out.stderr
    assert sorted(str(p) for p in keep.rglob("*")) == before


def test_quitting_the_demo_says_whether_its_copy_is_gone_or_where_it_is_kept(tmp_path: Path) -> None:
    out = _run(tmp_path, "--demo", "--today", "2026-11-30", **_quit_at_once())
    assert out.returncode == 0, out.stderr
    assert "the demo store was a temporary copy and is deleted now" in out.stdout
    assert _demos(tmp_path) == []

    keep = tmp_path / "kept"
    out = _run(tmp_path, "--demo", str(keep), "--today", "2026-11-30", **_quit_at_once())
    assert out.returncode == 0, out.stderr
    store = keep / "atlas" / "memory"
    assert f"the demo store is kept in {store}; open it again with: memtui {store}" in out.stdout
    assert (store / "MEMORY.md").is_file() and (keep / "atlas" / ".git").is_dir()
    assert _demos(tmp_path) == []


# An error the app stops on, injected into the real command: Textual prints it and sets return_code 1, which
# memtui returned as 0, so a crash (the preview's cancelled removal once) looked like a person quitting.
_CRASH_AT_START = """
import sys
import memtui.tui.app as screen

class Stops(screen.MemtuiApp):
    def on_mount(self) -> None:
        raise RuntimeError("stopped on purpose")

screen.MemtuiApp = Stops
from memtui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_tui_stopping_on_an_error_exits_non_zero_and_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONIOENCODING": "utf-8", **_quit_at_once()}
    script = tmp_path / "crash_at_start.py"  # a file: Textual reads an app class's source file
    script.write_text(_CRASH_AT_START, encoding="utf-8")
    crashed = subprocess.run(
        [sys.executable, str(script), "--demo"], capture_output=True, text=True, timeout=120, env=env
    )
    assert crashed.returncode == 1, crashed.stdout + crashed.stderr
    assert "the screen stopped on an error (exit code 1" in crashed.stderr
    quit_ = _run(tmp_path, "--demo", **_quit_at_once())
    assert quit_.returncode == 0 and "stopped on an error" not in quit_.stderr, quit_.stderr
    assert _demos(tmp_path) == []
