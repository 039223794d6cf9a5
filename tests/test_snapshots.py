"""SVG snapshots of the main screen (at 140×40, 80×24 and 160×48), a review card and the archive dialog (update: pytest --snapshot-update)."""

from __future__ import annotations

import fcntl
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from syrupy.extensions.image import SVGImageSnapshotExtension
from test_tui import SIZE, TODAY, select, settle
from textual.widgets import Input, TextArea

from memtui.demo import make_demo_store
from memtui.tui.app import MemtuiApp

FIXED = Path(tempfile.gettempdir()) / "memtui-snapshots"
LOCK = Path(tempfile.gettempdir()) / "memtui-snapshots.lock"


@pytest.fixture
def svg_snapshot(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(SVGImageSnapshotExtension)


@pytest.fixture
def demo_fixed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The demo store at a fixed path with fixed dates, so the pictures do not change between runs.

    The path is shared by every checkout on the machine (it shows in the header), so a lock keeps two test
    runs from rebuilding it under each other; a run that cannot get it in 120 s fails and says why.
    """
    with open(LOCK, "a+") as lock:
        deadline = time.monotonic() + 120
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"another test run held {LOCK} for 120 s")
                time.sleep(0.2)
        shutil.rmtree(FIXED, ignore_errors=True)
        monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None, raising=False)
        monkeypatch.setattr(TextArea, "_toggle_cursor", lambda self: None, raising=False)
        yield make_demo_store(TODAY, parent=FIXED)


def _svg(app: MemtuiApp) -> str:
    return re.sub(r"\bterminal-\d+-", "terminal-", app.export_screenshot())


async def test_main_screen(demo_fixed: Path, svg_snapshot) -> None:  # type: ignore[no-untyped-def]
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_use_bun.md")
        await settle(app, pilot)
        assert svg_snapshot == _svg(app)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_main_screen_at(demo_fixed: Path, svg_snapshot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The smallest terminal people use (one pane under tabs, the one-line key footer) and a large one (age and
    description columns)."""
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_use_bun.md")
        await settle(app, pilot)
        assert svg_snapshot == _svg(app)


async def test_review_card(demo_fixed: Path, svg_snapshot) -> None:  # type: ignore[no-untyped-def]
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert svg_snapshot == _svg(app)


async def test_archive_dialog(demo_fixed: Path, svg_snapshot) -> None:  # type: ignore[no-untyped-def]
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "reference_grafana.md")
        await pilot.press("a")
        await settle(app, pilot)
        assert svg_snapshot == _svg(app)
