"""A new user's trial of the review: its keys move as the main screen's do, keys typed before the first card is
shown act on it, the group line never splits an item, and the help says in sentences what each key does and
reflows to the terminal.

Real demo stores under real git, the real app through Pilot. Each test failed on the review before this change
(`k` filtered by kind and `g` jumped a group; keys typed while the store was analysed were lost; the group line
read "… · 7" / "schema 10 · …"; the help listed bare labels in lines hard-wrapped at 100 columns), except two
guards: keys sent with `r` once the review is ready, and the group line at 120 columns, where it fits on one line.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from test_review_flow import SIZE, make_app, open_review
from test_snapshots_review import _screen_lines
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from memtui.tui import app as app_module
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ArchiveDialog, HelpScreen, help_text
from memtui.tui.history import HistoryScreen
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen, described
from memtui.tui.widgets import MemoryPane


def type_fast(app: MemtuiApp, *keys: str) -> None:
    """Keys back to back, as a terminal hands a quick typist's keys to the app: all queued before any is handled
    (Pilot's `press` waits for each key to be handled before the next)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def until(pilot: Pilot[None], ready: Callable[[], bool], frames: int = 3000) -> None:
    for _ in range(frames):
        if ready():
            return
        await pilot.pause(0.02)
    raise TimeoutError("never ready")


def header(screen: ReviewScreen) -> str:
    return str(screen.query_one("#card-header").render())


# ---------------------------------------------------------------------------------------------- 1. keys


def test_the_review_binds_the_main_screens_movement_keys_to_moving() -> None:
    """j/k/g/G move on the main screen (its panes); in the review they move too, never filter or jump a group."""
    main = {b.key: b.action for b in MemoryPane.BINDINGS if isinstance(b, Binding)}
    assert main == {"j": "cursor_down", "k": "cursor_up", "g": "scroll_top", "G": "scroll_bottom"}
    review = {k: b.action for b in ReviewScreen.BINDINGS if isinstance(b, Binding) for k in b.key.split(",")}
    assert (review["j"], review["k"], review["g"], review["G"]) == ("skip", "previous", "first", "last")
    assert review["n"] == "next_group" and review["N"] == "previous_group" and review["slash"] == "filter"


async def test_j_k_g_G_n_N_and_slash_move_through_the_review(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        groups = [c.group for c in screen.cards]
        await pilot.press("j", "j")
        assert screen.index == 2 and header(screen).startswith("pairs 3 / ")
        await pilot.press("k")  # back one card (it used to show one kind only)
        assert screen.index == 1 and screen.only is None
        await pilot.press("g")  # the first card still to decide (it used to jump to the next group)
        assert screen.index == 0
        await pilot.press("G")
        assert screen.index == len(screen.cards) - 1
        await pilot.press("g", "n")
        assert screen.current().group == "agent" and screen.index == groups.index("agent")  # type: ignore[union-attr]
        await pilot.press("n")
        assert screen.current().group == "expired"  # type: ignore[union-attr]
        await pilot.press("N", "N")
        assert screen.index == 0
        await pilot.press("slash")
        assert screen.only == "pairs" and "only pairs (/)" in header(screen)


# ---------------------------------------------------------------------------------------------- 2. typing ahead


@pytest.mark.parametrize("keys", [("s", "s"), ("a",)], ids=["skip-skip", "archive"])
async def test_keys_typed_before_the_first_card_is_shown_act_on_it(
    demo: Path, monkeypatch: pytest.MonkeyPatch, keys: tuple[str, ...]
) -> None:
    """The review opened while the store is still being analysed (the first seconds of a large store): the keys a
    quick typist sends meanwhile wait for the first card instead of being lost."""
    gate = threading.Event()
    analyse = app_module.analyse

    def slow_analysis(ws):  # type: ignore[no-untyped-def]
        gate.wait(120)
        return analyse(ws)

    monkeypatch.setattr("memtui.tui.app.analyse", slow_analysis)
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await until(pilot, lambda: app.ws is not None)
            assert app.ws is not None and not app.ws.analysed
            await pilot.press("r")  # opens the review at once (it was refused until the analysis ended)
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and "still being analysed" in header(screen)
            type_fast(app, *keys)
            await pilot.pause()
            assert app.screen is screen and screen.index == 0  # nothing to act on yet: the keys wait
        finally:
            gate.set()
        await settle(app, pilot)
        first = screen.cards[0]
        assert first.kind in ("contradiction", "duplicate")
        if keys == ("s", "s"):
            assert screen.index == 2 and header(screen).startswith("pairs 3 / ")
        else:
            assert isinstance(app.screen, ArchiveDialog)
            assert app.screen._title == screen.memory(first.paths[0]).title  # type: ignore[union-attr]


async def test_keys_typed_back_to_back_with_r_act_on_the_first_card(demo: Path) -> None:
    """A guard (this passed before the change too): `r` `s` `s` and `r` `a` sent together, as a terminal sends
    them, act on the review's cards."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        type_fast(app, "r", "s", "s")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.index == 2
        type_fast(app, "escape", "r", "a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)


# ---------------------------------------------------------------------------------------------- 3. text cut off


ITEM = r"\d [a-z]+ \d+"


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_the_group_line_wraps_between_items_never_inside_one(demo: Path, size: tuple[int, int]) -> None:
    app = make_app(demo)
    async with app.run_test(size=size) as pilot:
        screen = await open_review(app, pilot)
        bar = screen.query_one("#card-groups")
        lines = [line.strip() for line in _screen_lines(app.export_screenshot()) if line != "memtui"]  # (the title)
        top = next(i for i, line in enumerate(lines) if line.startswith("pairs 1 / "))  # the header, above the bar
        rows = lines[top + 1 : top + 1 + bar.region.height]
        assert rows and all(re.fullmatch(rf"{ITEM}( · {ITEM})*", row) for row in rows), rows
        assert "9 other 1" in " ".join(rows)
        if size[0] == 80:
            assert len(rows) == 2  # it does wrap there


@pytest.mark.parametrize("screen", [ReviewScreen, HistoryScreen], ids=["review", "history"])
def test_every_key_in_a_help_says_what_it_does_in_a_sentence(screen: type[ReviewScreen | HistoryScreen]) -> None:
    text = help_text(described(screen.BINDINGS), screen.HELP_NOTES)
    for b in described(screen.BINDINGS):
        sentence = b.tooltip
        assert sentence.endswith(".") and len(sentence.split()) >= 5, f"{b.key}: {sentence!r}"
        assert f"{b.description} — {sentence}" in text


async def test_the_help_reflows_to_the_terminal_and_wraps_each_sentence_beside_its_key(demo: Path) -> None:
    heights = {}
    for size in ((80, 24), (160, 48)):
        app = make_app(demo)
        async with app.run_test(size=size) as pilot:
            await open_review(app, pilot)
            await pilot.press("question_mark")
            await settle(app, pilot)
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen)
            rows = list(help_screen.query(".help-row"))
            assert len(rows) == len(described(ReviewScreen.BINDINGS))
            archive = rows[1]
            keys, does = archive.query_one(".help-keys"), archive.query_one(".help-does")
            assert str(keys.render()) == "a" and "Archive — Archive this card's memory" in str(does.render())
            assert does.region.x >= keys.region.right  # the sentence wraps beside the key, never under it
            heights[size] = does.region.height
            scroll = help_screen.query_one("#help-scroll", VerticalScroll)
            notes = [n for n in help_screen.query(".help-note") if str(n.render()).strip()]
            assert len(notes) == len(ReviewScreen.HELP_NOTES)
            assert {n.size.width for n in notes} == {scroll.scrollable_content_region.width}
    assert heights[(80, 24)] > heights[(160, 48)], heights
