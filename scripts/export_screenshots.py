"""Write screenshots/*.svg from the demo store: main screen, review card, merge dialog, history, and the main
screen and a review card in a small (80x24) and a wide (200x50) terminal.

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

from memtui.demo import make_demo_store  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.pilot import select_memory, settle  # noqa: E402

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


async def shoot(theme: str, out: Path) -> None:
    parent = Path(tempfile.gettempdir()) / "memtui-screenshots"
    shutil.rmtree(parent, ignore_errors=True)
    store = make_demo_store(TODAY, parent=parent)
    app = MemtuiApp(store, today=TODAY, watch_interval=0, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_use_bun.md")
        await settle(app, pilot)
        app.save_screenshot("main.svg", str(out))
        await pilot.press("r")
        await settle(app, pilot)
        app.save_screenshot("review.svg", str(out))
        await pilot.press("escape")
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_commit_english.md")
        await settle(app, pilot)
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
    for size, suffix in (((80, 24), "80x24"), ((200, 50), "200x50")):
        await shoot_size(theme, out, parent, size, suffix)


async def shoot_size(theme: str, out: Path, parent: Path, size: tuple[int, int], suffix: str) -> None:
    shutil.rmtree(parent, ignore_errors=True)
    store = make_demo_store(TODAY, parent=parent)
    app = MemtuiApp(store, today=TODAY, watch_interval=0, theme=theme)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_use_bun.md")
        await settle(app, pilot)
        app.save_screenshot(f"main-{suffix}.svg", str(out))
        await pilot.press("r")
        await settle(app, pilot)
        app.save_screenshot(f"review-{suffix}.svg", str(out))


def main() -> int:
    theme = sys.argv[sys.argv.index("--theme") + 1] if "--theme" in sys.argv else "memtui-dark"
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    asyncio.run(shoot(theme, out))
    print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.svg')))} to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
