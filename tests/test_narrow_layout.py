"""A new user's trial at 80×24, a common terminal size: dialogs keep their text readable, the history's columns
fit and cut names in the middle, the review's header is whole.

Real demo stores under real git, the real app through Pilot; each test failed before this change (the merge
dialog shrank to bare borders after a refusal, the changed-on-disk diff was below the fold and did not scroll
from the Close button, the kept edit's diff was out of sight, the history cut the dates off and lost its
"replaced by" column, the review's header ended cut).
"""

from __future__ import annotations

from pathlib import Path

from test_review_flow import make_app, open_review
from test_snapshots_review import _screen_lines
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Static, TextArea

from memtui.tui.dialogs import ChangedDialog, EditDialog, KeptEditDialog, MergeDialog
from memtui.tui.pilot import select_memory, settle

NARROW = (80, 24)


def shown(app: object) -> str:
    """The screen as a person reads it: every row's text, joined."""
    return "\n".join(_screen_lines(app.export_screenshot()))  # type: ignore[attr-defined]


def lines_inside(widget: Widget) -> int:
    """Rows of text a bordered widget shows (its region without border and padding)."""
    return widget.content_region.height


def whole_inside(outer: Widget, inner: Widget) -> bool:
    """Whether `inner` is drawn whole within `outer`'s content (nothing of it cut off at the bottom)."""
    return outer.content_region.contains_region(inner.region) and inner.region.height > 0


# ---------------------------------------------------------------------------------------------- item 1: merge


async def test_the_merge_dialog_keeps_its_texts_readable_before_and_after_a_refusal_at_80x24(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        box = dialog.query_one(".dialog", Vertical)
        merged = dialog.query_one("#merged", TextArea)
        sources = list(dialog.query(".merge-source"))
        for moment in ("before", "after a refusal"):
            assert lines_inside(merged) >= 6, (moment, merged.region)
            assert all(lines_inside(s) >= 4 for s in sources), (moment, [s.region for s in sources])
            assert all(whole_inside(box, w) for w in (merged, *sources)), moment
            if moment == "before":
                await pilot.press("ctrl+s")  # the suggested merge of a plain contradiction: refused
                await settle(app, pilot)
                assert app.screen is dialog and "one memory would say both" in dialog.refusal
        refusal = dialog.query_one("#dialog-refusal", Static)
        assert whole_inside(box, refusal), (refusal.region, box.content_region)
        assert "fix it and press ctrl+s again" in " ".join(shown(app).split())


async def test_the_merge_dialog_from_the_main_screen_keeps_its_texts_at_80x24(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_grafana.md")
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is dialog and dialog.refusal
        box = dialog.query_one(".dialog", Vertical)
        merged = dialog.query_one("#merged", TextArea)
        assert lines_inside(merged) >= 6 and whole_inside(box, merged)
        assert all(lines_inside(s) >= 4 for s in dialog.query(".merge-source"))
        assert whole_inside(box, dialog.query_one("#dialog-refusal"))


# ---------------------------------------------------------------------------------------------- item 2: changed on disk


async def changed_dialog(app, pilot, demo: Path) -> ChangedDialog:  # type: ignore[no-untyped-def]
    """Archive the first pair's older memory from the review after the agent appended a line to it."""
    screen = await open_review(app, pilot)
    card = screen.current()
    assert card is not None
    older = demo / card.paths[0]
    older.write_text(older.read_text() + "\nThe agent added this line a moment ago: use pnpm.\n")
    await pilot.press("a")
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)
    dialog = app.screen
    assert isinstance(dialog, ChangedDialog)
    return dialog


async def test_what_changed_on_disk_is_in_sight_at_80x24_and_the_body_has_the_focus(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        dialog = await changed_dialog(app, pilot, demo)
        await pilot.pause(0.1)
        body = dialog.query_one("#changed-body", VerticalScroll)
        assert app.focused is body
        added = [line for line in dialog.query(".diff-line.-added")]
        assert added and body.content_region.contains_region(added[-1].region), (added[-1].region, body.region)
        assert "+The agent added this line a moment ago" in shown(app)


async def test_the_changed_dialog_scrolls_with_the_keys_whatever_has_the_focus(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        dialog = await changed_dialog(app, pilot, demo)
        body = dialog.query_one("#changed-body", VerticalScroll)
        await pilot.pause(0.1)
        assert body.max_scroll_y > 0, "the whole text does not fit: there is something to scroll to"
        dialog.query_one("#close", Button).focus()
        await pilot.pause(0.1)
        for key, moved in (("down", lambda y: y > 0), ("pagedown", lambda y: y > 1), ("home", lambda y: y == 0)):
            await pilot.press(key)
            await pilot.pause(0.2)
            assert moved(body.scroll_y), (key, body.scroll_y)
        await pilot.press("end")
        await pilot.pause(0.2)
        assert body.scroll_y == body.max_scroll_y


# ---------------------------------------------------------------------------------------------- item 3: edits


async def test_the_edit_and_kept_edit_dialogs_keep_usable_heights_at_80x24(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "user_timezone.md")
        await pilot.press("e")
        await settle(app, pilot)
        edit = app.screen
        assert isinstance(edit, EditDialog)
        area = edit.query_one(TextArea)
        assert lines_inside(area) >= 12 and whole_inside(edit.query_one(".dialog", Vertical), area)
        area.text = area.text.replace("10:00", "09:30")
        path = demo / "user_timezone.md"
        path.write_text(path.read_text() + "Moved to a 4-day week.\n")  # the agent writes meanwhile
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        kept = app.screen
        assert isinstance(kept, KeptEditDialog)
        await pilot.pause(0.1)
        typed = kept.query_one("#kept-typed", TextArea)
        assert lines_inside(typed) >= 8 and whole_inside(kept.query_one(".dialog", Vertical), typed), typed.region
        current = kept.query_one("#kept-current", VerticalScroll)
        added = kept.query_one("#kept-diff .diff-line.-added", Static)
        assert current.content_region.contains_region(added.region), (added.region, current.region)
        assert "+Moved to a 4-day week." in shown(app)
