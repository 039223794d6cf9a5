"""A new user's trial at 80×24, a common terminal size: dialogs keep their text readable, the history's columns
fit and cut names in the middle, the review's header is whole.

Real demo stores under real git, the real app through Pilot; each test failed before this change (the merge
dialog shrank to bare borders after a refusal, the changed-on-disk diff was below the fold and did not scroll
from the Close button, the kept edit's diff was out of sight, the history cut the dates off and lost its
"replaced by" column, the review's header ended cut).
"""

from __future__ import annotations

from pathlib import Path

from conftest import memory
from test_review_flow import make_app, open_review
from test_snapshots_review import _screen_lines
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, DataTable, Static, TextArea

from memtui import ops
from memtui.tui.dialogs import ChangedDialog, EditDialog, KeptEditDialog, MergeDialog
from memtui.tui.history import HistoryScreen
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen

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


async def test_a_merge_whose_source_changed_shows_what_changed_and_keeps_its_texts_at_80x24(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        older = demo / card.paths[0]
        older.write_text(older.read_text() + "\nThe agent added this line a moment ago: use pnpm.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog and dialog.stale
        box = dialog.query_one(".dialog", Vertical)
        merged = dialog.query_one("#merged", TextArea)
        changes = dialog.query_one("#merge-changes", VerticalScroll)
        assert lines_inside(merged) >= 6 and all(lines_inside(s) >= 3 for s in dialog.query(".merge-source"))
        for widget in (merged, *dialog.query(".merge-source"), dialog.query_one("#dialog-refusal"), changes):
            assert whole_inside(box, widget), (widget, widget.region, box.content_region)
        assert "ctrl+r rebuilds it" in " ".join(shown(app).split())


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


# ---------------------------------------------------------------------------------------------- item 4: history


def test_a_name_is_cut_in_the_middle_keeping_its_start_and_its_distinguishing_end() -> None:
    from memtui.tui.render import cut_middle

    name = "bug_fixes_and_context_2026-05-09.md"
    assert cut_middle(name, 40) == name
    assert cut_middle(name, len(name)) == name
    for width in (16, 20, 25, 28):
        short = cut_middle(name, width)
        assert len(short) == width and "…" in short, short
        assert name.startswith(short.split("…")[0]) and name.endswith(short.split("…")[1])
        assert short.startswith("bug_"), short
    assert cut_middle(name, 25).endswith("2026-05-09.md")
    assert cut_middle("a  b\nc", 10) == "a b c"  # on one line
    assert cut_middle("日本語のメモリの名前です.md", 12).count("…") == 1
    assert len(cut_middle(name, 1)) == 1


def dated_store(make_store, days: int = 4) -> Path:  # type: ignore[no-untyped-def]
    files = {
        f"bug_fixes_and_context_2026-05-{d:02d}.md": memory(
            f"bug_fixes_and_context_2026-05-{d:02d}", "project", description=f"Bug fixes of May {d}"
        )
        for d in range(1, days + 1)
    }
    index = "".join(f"- [{p[:-3]}]({p}) — bugs\n" for p in files)
    store = make_store(files, in_git=True, index=index)
    for d in range(1, days):
        ops.archive(
            store,
            f"bug_fixes_and_context_2026-05-{d:02d}.md",
            reason="the later day's notes hold what still matters",
            superseded_by=f"bug_fixes_and_context_2026-05-{days:02d}.md",
        )
    return store


async def open_history(app, pilot) -> HistoryScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("H")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    return screen


async def test_the_history_keeps_the_end_of_long_names_that_differ_only_there(make_store) -> None:  # type: ignore[no-untyped-def]
    store = dated_store(make_store)
    for size in ((120, 36), NARROW):
        app = make_app(store)
        async with app.run_test(size=size) as pilot:
            screen = await open_history(app, pilot)
            table = screen.query_one(DataTable)
            labels = [str(c.label) for c in table.ordered_columns]
            archives = [table.get_row_at(i) for i in range(table.row_count)]
            archives = [row for row in archives if row[1].plain == "archive"]
            assert len(archives) == 3, [r[1].plain for r in archives]
            memories = [row[labels.index("memory")].plain for row in archives]
            assert len(set(memories)) == 3, (size, memories)  # each row says which day it is
            assert all(m.endswith(".md") and "05-0" in m for m in memories), (size, memories)
            replaced = [row[labels.index("replaced by")].plain for row in archives]
            assert all(r.endswith("04.md") for r in replaced), (size, replaced)


async def test_the_history_fits_80_columns_with_replaced_by_and_drops_the_author_first(make_store) -> None:  # type: ignore[no-untyped-def]
    store = dated_store(make_store)
    for size, author in ((NARROW, False), ((140, 40), True)):
        app = make_app(store)
        async with app.run_test(size=size) as pilot:
            screen = await open_history(app, pilot)
            table = screen.query_one(DataTable)
            labels = [str(c.label) for c in table.ordered_columns]
            assert labels[:5] == ["date", "action", "memory", "reason", "replaced by"], (size, labels)
            assert ("author" in labels) is author, (size, labels)
            assert table.max_scroll_x == 0, (size, table.virtual_size, table.scrollable_content_region)
            text = shown(app)
            assert "replaced by" in text and "bug_fixes" in text


async def test_the_history_columns_follow_a_resize(make_store) -> None:  # type: ignore[no-untyped-def]
    store = dated_store(make_store)
    app = make_app(store)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_history(app, pilot)
        table = screen.query_one(DataTable)
        table.move_cursor(row=2, animate=False)
        assert "author" in [str(c.label) for c in table.ordered_columns]
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert "author" not in [str(c.label) for c in table.ordered_columns]
        assert table.max_scroll_x == 0 and table.cursor_row == 2 and table.row_count == len(screen.shown_events())


# ---------------------------------------------------------------------------------------------- item 5: review header


async def test_the_reviews_header_is_whole_at_80_columns(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_review(app, pilot)
        assert isinstance(screen, ReviewScreen)
        await pilot.press("2", "space")  # an agent write marked: one more part in the header
        await settle(app, pilot)
        header = screen.query_one("#card-header")
        said = str(header.render())
        assert "1 marked" in said and "hook: not installed" in said and "…" not in said, said
        assert all(len(line) <= header.content_region.width for line in said.splitlines()), said
        assert header.region.height == len(said.splitlines()) <= 2
        text = shown(app)
        assert "hook: not installed" in text
        assert screen.query_one("#card-single").region.height >= 6  # the card keeps its room


# ---------------------------------------------------------------------------------------------- item 4: the panes


async def test_the_panes_cut_names_in_the_middle_so_names_that_differ_at_the_end_stay_apart(demo: Path) -> None:
    """At 80 columns `feedback_weekly_report_casual` and `feedback_weekly_report_formal` both read
    `feedback_weekly_repo`: which is which was off the edge of the pane."""
    for size in (NARROW, (140, 40)):
        app = make_app(demo)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            pane = await select_memory(app, pilot, "feedback_weekly_report_formal.md")
            await pilot.pause(0.1)
            names = [pane.get_row(f"feedback_weekly_report_{end}.md")[2].plain for end in ("casual", "formal")]
            assert names[0].endswith("casual") and names[1].endswith("formal"), (size, names)
            assert all(n.startswith("feedbac") for n in names), (size, names)
            text = shown(app)
            assert all(n in text for n in names), (size, names)  # whole in the pane, not clipped at its edge


async def test_the_historys_header_is_whole_at_80_columns(make_store) -> None:  # type: ignore[no-untyped-def]
    """At 80 columns it ended "· enter opens · R": which key restores was cut off."""
    app = make_app(dated_store(make_store))
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_history(app, pilot)
        header = screen.query_one("#history-header")
        said = str(header.render())
        assert "R restores" in said and "…" not in said, said
        assert all(len(line) <= header.content_region.width for line in said.splitlines()), said
        assert header.region.height == len(said.splitlines()) <= 2
        assert "R restores" in shown(app)


async def test_a_notification_stands_above_the_key_line_at_80x24(demo: Path) -> None:
    """The key line wraps onto up to three rows at 80 columns; a toast over it hid the keys the person needs next."""

    async def toast_clears_the_keys(app, pilot, keys_id: str) -> None:  # type: ignore[no-untyped-def]
        keys = app.screen.query_one(keys_id, Widget)
        assert keys.display and keys.region.height >= 2, "the narrow key line takes more than one row"
        app.notify("Archived feedback_old_rule.md: replaced by the newer rule")
        await settle(app, pilot)
        toasts = [t for t in app.screen.query("Toast") if t.region.height]
        assert toasts, "the notification is shown"
        assert all(t.region.bottom <= keys.region.y for t in toasts), ([t.region for t in toasts], keys.region)
        app.clear_notifications()
        await settle(app, pilot)

    app = make_app(demo)
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        await settle(app, pilot)
        await toast_clears_the_keys(app, pilot, "#keys")
        await open_review(app, pilot)
        await toast_clears_the_keys(app, pilot, "#review-keys")
