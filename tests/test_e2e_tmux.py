"""End to end: the real `memtui` command in a real terminal (tmux) archives a memory with a typed reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for_any(session: str, texts: tuple[str, ...], timeout: float = 20.0) -> str:
    """Poll the screen until one of `texts` shows (bounded; the failure message shows the screen)."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if any(t in screen for t in texts):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"none of {texts!r} appeared; screen was:\n{screen}")


def wait_for(session: str, text: str, timeout: float = 20.0) -> str:
    """Poll the screen until `text` shows (bounded; the failure message shows the screen)."""
    return wait_for_any(session, (text,), timeout)


def test_archive_with_a_typed_reason_in_a_real_terminal(tmp_path: Path) -> None:
    top = tmp_path / "proj"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [Tabs](feedback_tabs.md) — tabs\n- [Tea](user_tea.md) — tea\n",
            "memory/feedback_tabs.md": memory("feedback_tabs", description="Indent with tabs"),
            "memory/user_tea.md": memory("user_tea", "user", body="User drinks tea."),
        },
    )
    init_repo(top)
    session = f"memtui-e2e-{os.getpid()}"
    memtui = str(Path(sys.executable).with_name("memtui"))
    env = f"HOME={os.environ['HOME']} GIT_CONFIG_GLOBAL={os.environ.get('GIT_CONFIG_GLOBAL', '')} TERM=xterm-256color"
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "36", f"env {env} {memtui} {top / 'memory'}")
    try:
        wait_for(session, "Feedback (1)")
        wait_for(session, "findings to review")
        tmux("send-keys", "-t", session, "2")
        tmux("send-keys", "-t", session, "a")
        wait_for(session, "Why is this memory retired")
        tmux("send-keys", "-t", session, "-l", "We switched to spaces")
        tmux("send-keys", "-t", session, "Enter")
        wait_for(session, "Feedback (0)")
        tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0:
                break  # memtui quit and the session closed
            time.sleep(0.1)
        else:
            screen = tmux("capture-pane", "-p", "-t", session)
            raise AssertionError(f"memtui did not quit on q; screen was:\n{screen}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    log = git(top, "log", "-1", "--format=%B")
    assert "Memtui-Action: archive" in log and "Memtui-Reason: We switched to spaces" in log
    assert (top / "memory.archive" / "feedback_tabs.md").exists()


def test_review_in_a_real_terminal_shows_its_own_keys_and_moves_on_only_after_the_commit(tmp_path: Path) -> None:
    import datetime as dt

    from memtui.demo import make_demo_store

    store = make_demo_store(dt.date(2026, 11, 30), parent=tmp_path)
    session = f"memtui-e2e-review-{os.getpid()}"
    memtui = str(Path(sys.executable).with_name("memtui"))
    env = f"HOME={os.environ['HOME']} GIT_CONFIG_GLOBAL={os.environ.get('GIT_CONFIG_GLOBAL', '')} TERM=xterm-256color"
    tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "40", f"env {env} {memtui} {store} --today 2026-11-30")
    try:
        wait_for(session, "findings to review", timeout=40)
        tmux("send-keys", "-t", session, "r")
        screen = wait_for(session, "pairs 1 /")
        pairs = int(screen.split("pairs 1 / ", 1)[1].split()[0])
        screen = wait_for_any(session, ("Keep both", "keep both"))  # the footer, or the narrow key line
        assert "approve" not in screen.lower()  # a pair card: only the pair's keys
        tmux("send-keys", "-t", session, "?")
        screen = wait_for(session, "Keys · review")
        assert "Keep both — " in screen and "focus User" not in screen  # each key with what it does
        tmux("send-keys", "-t", session, "Escape")
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "a")
        screen = wait_for(session, "Why is this memory retired")
        assert "superseded by" in screen
        tmux("send-keys", "-t", session, "Enter")
        # the header counts the pairs still to decide: one fewer once the archive is committed
        wait_for(session, f"pairs 1 / {pairs - 1} ", timeout=30)
        tmux("send-keys", "-t", session, "Escape")
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode != 0:
                break
            time.sleep(0.1)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    log = git(store.parent, "log", "-1", "--format=%B")
    assert "Memtui-Action: archive" in log and "superseded by" in log
