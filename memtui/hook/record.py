"""Recording the agent's memory writes as their own commits (`Memtui-Actor: agent`, `Memtui-Session`).

Only in memtui's own repository, or one the person opted in (`git config memtui.recordAgentWrites true`);
from the hook, in a detached process so the agent's answer never waits for git; and the list of those
commits the TUI shows.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.hook import MemoryWrite

LOCK_RETRIES = 5
"""Tries when another hook of the same turn holds the store's lock (0.2 s apart)."""
RECORD_CONFIG = "memtui.recordAgentWrites"
"""`git config memtui.recordAgentWrites true` lets the hook commit into a repository memtui did not create."""


def memtui_repository(store_path: Path) -> bool:
    """Whether the store sits in memtui's own repository (`memtui init`), or one the person opted in.

    memtui's own repository has its top at the store's parent (the typed layout: at the store root). Any
    other repository — a user's project — is only written when `git config memtui.recordAgentWrites true`.
    """
    from memtui.core.store import detect_layout

    layout = detect_layout(store_path)
    if not any((folder / ".git").exists() for folder in (layout.root, *layout.root.parents)):
        return False  # no repository at all: spare starting git
    from memtui.audit.repo import NotInGit, try_open_repo

    repo = try_open_repo(layout)
    if repo is None:
        return False
    top = repo.work_tree
    own = layout.root.parent if layout.kind == "flat" else layout.root
    if top == own.resolve():
        return True
    try:
        return repo.config_flag(RECORD_CONFIG)
    except NotInGit:  # git missing or timed out: the hook records nothing rather than fail
        return False


def record(write: MemoryWrite) -> str | None:
    """Commit the agent's write (secrets withheld) when the store may be recorded; the commit, or None."""
    if os.environ.get("MEMTUI_HOOK_RECORD", "1") == "0" or not memtui_repository(write.store):
        return None
    from memtui import ops

    result = ops.record_agent_write(write.store, session=write.session)
    return result.commit


def record_quietly(write: MemoryWrite) -> None:
    from memtui.audit.lock import LockHeld

    for attempt in range(LOCK_RETRIES):
        try:
            record(write)
            return
        except LockHeld:
            if attempt + 1 < LOCK_RETRIES:
                time.sleep(0.2)  # another hook of the same turn is committing; ours is included or goes next
        except Exception:  # noqa: BLE001 - a git failure must never reach the agent
            debug()
            return


def record_detached(write: MemoryWrite) -> None:
    """Record the write in a detached process, so the agent's answer never waits for git.

    Claude Code waits for the hook process to exit; committing (a dozen git processes, the lock, the secret
    scan) would put the answer over its budget. `MEMTUI_HOOK_SYNC=1`, or a system without fork, records
    inline instead.
    """
    if os.environ.get("MEMTUI_HOOK_SYNC") == "1" or not hasattr(os, "fork"):
        record_quietly(write)
        return
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)  # the middle process exits at once; the grandchild is adopted by init
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)  # Claude Code reads our pipes until they close: release them
        record_quietly(write)
    finally:
        os._exit(0)


@dataclass(frozen=True)
class AgentWrite:
    """One agent-write commit: what the agent wrote, when, and in which Claude Code session."""

    commit: str
    date: str
    session: str | None
    memories: tuple[str, ...]


def agent_writes(store_path: Path, limit: int | None = None) -> list[AgentWrite]:
    """The store's agent-write commits, newest first, with the session each came from (`Memtui-Session`)."""
    from memtui.audit.repo import try_open_repo
    from memtui.core.store import detect_layout

    repo = try_open_repo(detect_layout(store_path))
    if repo is None:
        return []
    out = []
    for event in repo.history(limit=limit):
        if event.action == "agent-write":
            sessions = event.trailers.get("Memtui-Session", [])
            out.append(AgentWrite(event.commit, event.date, sessions[0] if sessions else None, event.memories))
    return out


def debug() -> None:
    """With MEMTUI_HOOK_DEBUG=1, the traceback goes to stderr (Claude Code's debug log only)."""
    if os.environ.get("MEMTUI_HOOK_DEBUG") == "1":
        import traceback

        traceback.print_exc(file=sys.stderr)
