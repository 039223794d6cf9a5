"""SVG snapshots of review cards at the smallest supported terminal (80×24) and a large one (160×48).

At 80×24 no key is lost: the card's keys are a key line that wraps (the footer would cut them), and `?` lists
every key of the review.
Update the pictures with `pytest tests/test_snapshots_review.py --snapshot-update`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from test_review_flow import open_review
from test_snapshots import _svg, demo_fixed, svg_snapshot  # noqa: F401  (fixtures)
from test_tui import TODAY, settle
from textual.binding import Binding
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


async def test_a_pair_cards_explanation_is_whole_at_80x24(demo_fixed: Path) -> None:  # noqa: F811
    """Why the pair is there and what to do about it is the card's point: its last words are on screen too."""
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        await pilot.pause(0.3)
        shown = " ".join(line.strip() for line in _screen_lines(app.export_screenshot()))
        assert card.explanation.split()[-1] in shown and "as superseded." in shown


async def test_review_list_card_at_80x24(demo_fixed: Path, svg_snapshot) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(app, pilot)
        bulk = next(i for i, c in enumerate(screen.cards) if c.is_bulk and c.kind == "schema")
        screen.index = bulk
        screen.show_card()
        await pilot.pause(0.1)
        await pilot.press("space")
        await pilot.pause(0.3)
        assert svg_snapshot == _svg(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (140, 40)], ids=["80x24", "120x40", "140x40"])
async def test_no_key_is_lost_on_a_narrow_terminal(demo_fixed: Path, size: tuple[int, int]) -> None:  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=size) as pilot:
        screen = await open_review(app, pilot)
        # where the footer would cut the card's keys at the right edge, a key line that wraps stands in for it
        narrow = screen.has_class("-narrow")
        assert screen.query_one("#review-keys").display == narrow != screen.query_one(Footer).display
        if size[0] == 80:
            assert narrow
        shown = _screen_lines(app.export_screenshot())
        bottom = " ".join(shown[-3:]).lower()
        live = [b for b in screen.live_bindings() if isinstance(b, Binding)]
        assert len(live) >= 10
        for b in live:
            assert b.description.lower()[1:] in bottom, f"{b.key} {b.description} is on the screen at {size}"
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HelpScreen)
        for b in described(ReviewScreen.BINDINGS):
            assert b.description in app.screen.text


async def test_a_wide_review_keeps_its_footer(demo_fixed: Path) -> None:  # noqa: F811
    app = MemtuiApp(demo_fixed, today=TODAY, watch_interval=0)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_review(app, pilot)
        assert not screen.has_class("-narrow") and screen.query_one(Footer).display
        assert not screen.query_one("#review-keys").display


def _screen_lines(svg: str) -> list[str]:
    """The text of an SVG screenshot, one string per terminal row (its text runs joined left to right)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        text = html.unescape(m.group(3)).replace("\xa0", " ")
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), text))
    return ["".join(t for _, t in sorted(rows[y])) for y in sorted(rows)]
