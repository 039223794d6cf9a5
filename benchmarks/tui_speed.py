"""How fast the workstation shows its first screen and answers a key, on 1,000 and 10,000 memories.

Issue #4: first screen within 1 s (1,000) and 2 s (10,000), analysis may follow in a worker; a key press
redraws within 100 ms at 10,000. Key cost is reported against the same key on a 10-memory store measured in
the same run (Pilot's own per-key overhead is in both).
Usage: python benchmarks/tui_speed.py
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402
from textual.worker import WorkerState  # noqa: E402

from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.dialogs import ConfirmDialog  # noqa: E402
from memtui.tui.widgets import MemoryPane  # noqa: E402

TODAY = dt.date(2026, 11, 30)


async def measure(store: Path, keys: int = 30) -> dict[str, float]:
    start = time.perf_counter()
    app = MemtuiApp(store, today=TODAY, watch_interval=0)
    async with app.run_test(size=(140, 40)) as pilot:
        while app.ws is None or not any(p.row_count for p in app.query(MemoryPane)):
            await pilot.pause(0.02)
        first = time.perf_counter() - start
        while app.ws is None or not app.ws.analysed:
            await pilot.pause(0.02)
        analysed = time.perf_counter() - start
        while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
            await pilot.pause(0.02)
        if isinstance(app.screen, ConfirmDialog):
            await pilot.press("n")  # the synthetic store is not in git: decline the offer of a repository
            await pilot.pause(0.1)
        await pilot.press("2")
        pane = app.query_one("#pane-feedback", MemoryPane)
        times = []
        for i in range(keys):
            before = pane.cursor_row
            t = time.perf_counter()
            await pilot.press("j" if i % 2 == 0 else "k")
            for _ in range(1000):
                if pane.cursor_row != before:
                    break
                await pilot.pause(0)
            else:
                raise RuntimeError("the cursor did not move")
            await pilot.pause(0)  # let the redraw happen
            times.append(time.perf_counter() - t)
        # the app's own cost of a key: the action plus the redraw it causes, without Pilot's key simulation
        direct = []
        for i in range(keys):
            t = time.perf_counter()
            pane.action_cursor_down() if i % 2 == 0 else pane.action_cursor_up()
            await pilot.pause(0)
            app.screen._refresh_layout() if hasattr(app.screen, "_refresh_layout") else None
            await pilot.pause(0)
            direct.append(time.perf_counter() - t)
        t = time.perf_counter()
        await pilot.press("slash", "x")
        await pilot.pause(0.15)
        filter_s = time.perf_counter() - t - 0.15
    return {
        "first_screen_s": round(first, 3),
        "analysed_s": round(analysed, 3),
        "key_ms_median": round(statistics.median(times) * 1000, 1),
        "key_ms_max": round(max(times) * 1000, 1),
        "key_direct_ms_median": round(statistics.median(direct) * 1000, 1),
        "key_direct_ms_max": round(max(direct) * 1000, 1),
        "filter_extra_ms": round(max(filter_s, 0) * 1000, 1),
    }


async def main() -> None:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (10, 1000, 10000):
            store = make_store(Path(tmp) / str(n), n)
            out[n] = await measure(store)
    base = out[10]["key_ms_median"]
    for n in (1000, 10000):
        out[n]["key_vs_10_memories"] = round(out[n]["key_ms_median"] / base, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
