"""A write lock per store, so two memtui processes never write the same store at once.

Same protocol as Claude Code's consolidation lock (seed 003): the body is the holder's PID and the mtime says
when it was taken; a lock older than an hour or whose PID is dead is reclaimed, and after writing our PID we
read it back (when two processes reclaim at once, the last writer wins). It is memtui's own file, kept in the
repository's git folder: taking Claude Code's `.consolidate-lock` would reset the agent's consolidation timer.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STALE_SECONDS = 3600


class LockHeld(Exception):
    """Another live memtui process is writing this store."""


def pid_alive(pid: int) -> bool:
    """Whether a process with this PID runs on this machine."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lock_path(git_dir: Path, store_root: Path) -> Path:
    """Where the lock for a store lives: inside the git folder, so it is never committed or seen by the agent."""
    digest = hashlib.sha1(str(store_root.resolve()).encode()).hexdigest()[:12]
    return git_dir / f"memtui-{digest}.lock"


def _holder(path: Path) -> tuple[int | None, float]:
    try:
        body = path.read_text().strip()
        mtime = path.stat().st_mtime
    except OSError:
        return None, 0.0
    try:
        return int(body), mtime
    except ValueError:
        return None, mtime


@contextmanager
def store_lock(path: Path, *, now: float | None = None) -> Iterator[None]:
    """Hold the store's write lock for the duration of the block; raises LockHeld if a live process has it."""
    pid = os.getpid()
    holder, mtime = _holder(path)
    current = time.time() if now is None else now
    if holder is not None and holder != pid and current - mtime < STALE_SECONDS and pid_alive(holder):
        raise LockHeld(f"another memtui process (PID {holder}) is writing this store; try again when it is done")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{pid}.tmp")
    tmp.write_text(str(pid))
    os.replace(tmp, path)
    if _holder(path)[0] != pid:
        raise LockHeld("another memtui process took the store's lock at the same moment; try again")
    try:
        yield
    finally:
        if _holder(path)[0] == pid:
            try:
                path.unlink()
            except OSError:
                pass
