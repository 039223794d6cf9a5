"""A write lock per store, so two memtui actions never write the same store at once.

Two layers: a process-wide `threading.Lock` (the TUI runs actions in worker threads, and threads of one
process share a PID) and an exclusive `flock` on a file in the repository's git folder (other processes).
The kernel drops an flock when its holder dies, so a kill -9 never leaves a lock to reclaim by hand; the file
itself stays (removing it would let a third process lock a different inode). The file holds the holder's PID
so a refusal can name it. It is memtui's own file: taking Claude Code's `.consolidate-lock` would reset the
agent's consolidation timer.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtui.core.errors import MemtuiError

_PROCESS_LOCK = threading.Lock()


class LockHeld(MemtuiError):
    """Another memtui action (another process, or another thread of this one) is writing this store."""

    title = "Store busy"


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


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        return os.read(fd, 64).decode("ascii", "replace").strip()
    except OSError:
        return ""


@contextmanager
def store_lock(path: Path, *, now: float | None = None) -> Iterator[None]:
    """Hold the store's write lock for the duration of the block; raises LockHeld if anyone else has it.

    `now` is accepted for compatibility and ignored: a held flock is never stale (its holder is alive).
    """
    if not _PROCESS_LOCK.acquire(blocking=False):
        raise LockHeld("another memtui action is still running in this window; try again when it is done")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                who = f" (PID {holder})" if holder.isdigit() else ""
                raise LockHeld(
                    f"another memtui process{who} is writing this store; try again when it is done"
                ) from None
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, str(os.getpid()).encode())
            try:
                yield
            finally:
                try:
                    os.ftruncate(fd, 0)
                except OSError:
                    pass
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        _PROCESS_LOCK.release()
