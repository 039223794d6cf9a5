"""Driving the app headless (tests, screenshots, benchmarks): wait for background work, select a memory."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.pilot import Pilot, WaitForScreenTimeout
from textual.worker import WorkerState

from memtui.tui.widgets import MemoryPane

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp


def busy(app: MemtuiApp) -> bool:
    """Whether any worker (loading, analysis, an op, a reload) is still pending or running."""
    return app.reading or any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)


async def settle(app: MemtuiApp, pilot: Pilot[None], *, limit: int = 3000, seconds: float = 300) -> None:
    """Wait until background work is done and has stayed done for a few frames (bounded, never a hang).

    The bounds are generous (`limit` frames, at most `seconds`) because a loaded CI machine analyses the demo
    store slowly: Textual's own 30 s wait for a busy screen is retried within them, and a real deadlock still
    ends in TimeoutError."""
    quiet = 0
    deadline = time.monotonic() + seconds
    for _ in range(limit):
        try:
            await pilot.pause(0.02)
        except WaitForScreenTimeout:
            quiet = 0  # the screen was still busy after Textual's 30 s: keep waiting, within our own bound
        else:
            quiet = quiet + 1 if not busy(app) else 0
        if quiet >= 3:
            return
        if time.monotonic() > deadline:
            break
    raise TimeoutError("background work never finished")


async def select_memory(app: MemtuiApp, pilot: Pilot[None], path: str) -> MemoryPane:
    """Focus the pane holding a memory and put the cursor on it."""
    for pane in app.query(MemoryPane):
        try:
            row = pane.get_row_index(path)
        except Exception:  # not in this pane
            continue
        pane.focus()
        await pilot.pause()
        pane.move_cursor(row=row, animate=False)
        await pilot.pause(0.1)
        return pane
    raise LookupError(f"{path} is not shown in any pane")
