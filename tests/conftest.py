"""Shared fixtures: real files in temporary folders and real git repositories (never mocks)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
TODAY = dt.date(2026, 11, 30)


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write a folder of files; bytes are written as they are."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run real git and return its output."""
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    return out.stdout


def init_repo(top: Path, *, identity: bool = True, when: dt.date | None = None) -> Path:
    """A real git repository with one commit of everything in `top` (made on the day `when`, if given)."""
    git(top, "init", "-q", "-b", "main")
    if identity:
        git(top, "config", "user.name", "Test Person")
        git(top, "config", "user.email", "test@example.com")
    git(top, "add", "-A")
    git(
        top,
        "-c",
        "user.name=Setup",
        "-c",
        "user.email=setup@example.com",
        "commit",
        "-q",
        "-m",
        "initial",
        "--allow-empty",
        env=_dated(when),
    )
    return top


def _dated(when: dt.date | None) -> dict[str, str] | None:
    """Environment that makes git date a commit at noon UTC on `when`."""
    if when is None:
        return None
    stamp = f"{when.isoformat()}T12:00:00+00:00"
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def memory(name: str, mtype: str | None = "feedback", body: str = "", description: str = "", **extra: str) -> str:
    """The text of a Gen A memory file."""
    lines = ["---", f"name: {name}", f"description: {description or name.replace('_', ' ')}"]
    if mtype:
        lines.append(f"type: {mtype}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    lines.append("---")
    if not body:
        body = f"Rule for {name}.\n\n**Why:** a reason.\n\n**How to apply:** always."
    return "\n".join(lines) + "\n\n" + body + "\n"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A fresh copy of the bundled demo store, dated around TODAY, under real git."""
    from memtui.demo import make_demo_store

    return make_demo_store(TODAY, parent=tmp_path)


@pytest.fixture
def make_store(tmp_path: Path) -> Callable[..., Path]:
    """Build `<tmp>/project/memory` from a dict of files; optionally put `<tmp>/project` under git."""

    def build(files: dict[str, str | bytes], *, in_git: bool = False, index: str | None = None) -> Path:
        top = tmp_path / "project"
        store = top / "memory"
        store.mkdir(parents=True, exist_ok=True)
        write_files(store, files)
        if index is not None:
            (store / "MEMORY.md").write_text(index, encoding="utf-8")
        if in_git:
            init_repo(top)
        return store

    return build


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git subcommand of every git memtui runs from now on, in order: the real git runs, it is only counted."""
    import memtui.audit.repo as repo_module

    calls: list[str] = []
    real = repo_module.run_git

    def counting(cwd: Path, args: Sequence[str], **kw: Any) -> subprocess.CompletedProcess[bytes]:
        calls.append(args[0])
        return real(cwd, args, **kw)

    monkeypatch.setattr(repo_module, "run_git", counting)
    return calls


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read the real ~/.claude or the developer's git config."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    for var in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_DATE",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _keep_every_notification(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every toast an app shows: a toast expires after its timeout, and on a busy machine a test can look
    after it expired (a theme error said at start was gone by the time the demo store had been analysed)."""
    from textual.app import App

    original = App.notify

    def notify(self: App[Any], message: str, *args: Any, **kwargs: Any) -> None:
        self.__dict__.setdefault("said", []).append(SimpleNamespace(title=kwargs.get("title", ""), message=message))
        original(self, message, *args, **kwargs)

    monkeypatch.setattr(App, "notify", notify)


def said(app: Any) -> list[SimpleNamespace]:
    """Every notification the app showed, expired or not, oldest first (each has `title` and `message`)."""
    return list(app.__dict__.get("said", []))


def hold_history_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Put a `git` on PATH that, while the returned gate file exists, holds every read of the store's file dates
    (the `git log` the fix-date preview runs) before running the real git, and adds a line to the returned file as
    each one starts waiting: history as slow as the test wants, with nothing but real git answering. A read is held
    a minute at most, so code that waits for it on the UI thread fails the test instead of hanging it."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, gate, entered = tmp_path / "gitgate", tmp_path / "gate", tmp_path / "entered"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'  *" --name-only --no-renames -- "*) if [ -e "{gate}" ]; then echo held >> "{entered}"; n=0; '
        f'while [ -e "{gate}" ] && [ $n -lt 6000 ]; do sleep 0.01; n=$((n + 1)); done; fi ;;\n'
        "esac\n"
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return gate, entered
