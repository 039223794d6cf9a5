"""Write screenshots/*.svg from the demo store: main screen, review card, merge dialog, history.

Usage: python scripts/export_screenshots.py [--theme NAME]
"""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.worker import WorkerState  # noqa: E402

from memtui.demo import make_demo_store  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.widgets import MemoryPane  # noqa: E402

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


async def settle(app: MemtuiApp, pilot) -> None:  # type: ignore[no-untyped-def]
    quiet = 0
    while quiet < 3:
        await pilot.pause(0.03)
        busy = any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)
        quiet = 0 if busy else quiet + 1


async def select(app: MemtuiApp, pilot, path: str) -> None:  # type: ignore[no-untyped-def]
    for pane in app.query(MemoryPane):
        try:
            row = pane.get_row_index(path)
        except Exception:
            continue
        pane.focus()
        await pilot.pause()
        pane.move_cursor(row=row, animate=False)
        await settle(app, pilot)
        return


async def shoot(theme: str, out: Path) -> None:
    parent = Path(tempfile.gettempdir()) / "memtui-screenshots"
    shutil.rmtree(parent, ignore_errors=True)
    store = make_demo_store(TODAY, parent=parent)
    app = MemtuiApp(store, today=TODAY, watch_interval=0, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_use_bun.md")
        app.save_screenshot("main.svg", str(out))
        await pilot.press("r")
        await settle(app, pilot)
        app.save_screenshot("review.svg", str(out))
        await pilot.press("escape")
        await settle(app, pilot)
        await select(app, pilot, "feedback_commit_english.md")
        await pilot.press("m")
        await settle(app, pilot)
        app.save_screenshot("merge.svg", str(out))
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        await pilot.press("t")
        await settle(app, pilot)
        app.save_screenshot("history.svg", str(out))


def main() -> int:
    theme = sys.argv[sys.argv.index("--theme") + 1] if "--theme" in sys.argv else "memtui-dark"
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    asyncio.run(shoot(theme, out))
    print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.svg')))} to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
