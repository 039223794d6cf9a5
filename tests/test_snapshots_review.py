"""SVG snapshots of review cards at the smallest supported terminal (80×24) and a large one (160×48).

At 80×24 no key is lost: the footer is compact and starts with `?`, whose help lists every key of the review.
Update the pictures with `pytest tests/test_snapshots_review.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_snapshots import _svg, demo_fixed, svg_snapshot  # noqa: F401  (fixtures)
from test_tui import TODAY, settle
from textual.widgets import Footer

from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import HelpScreen
from memtui.tui.review import ReviewScreen, described


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_review_pair_card(demo_fixed: Path, svg_snapshot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.pause(0.3)
        assert svg_snapshot == _svg(app)


async def test_review_list_card_at_80x24(demo_fixed: Path, svg_snapshot) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        bulk = next(i for i, c in enumerate(screen.cards) if c.is_bulk and c.kind == "schema")
        screen.index = bulk
        screen.show_card()
        await pilot.pause(0.1)
        await pilot.press("space")
        await pilot.pause(0.3)
        assert svg_snapshot == _svg(app)


async def test_no_key_is_lost_at_80x24(demo_fixed: Path) -> None:  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.query_one(Footer).compact
        footer = app.export_screenshot().split("Help", 1)
        assert len(footer) == 2, "the footer shows ? Help even at 80 columns"
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HelpScreen)
        for b in described(ReviewScreen.BINDINGS):
            assert b.description in app.screen.text
