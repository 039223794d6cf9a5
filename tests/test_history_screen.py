"""A new user's trial of the history screen: a reason cut by its column is shown whole for the selected decision,
and `R` on a merge brings back the memories merged away (saying first that the merged memory stays, and that `u`
takes the whole merge back) instead of refusing with "only an archived or merged-away memory can be restored".

Real demo stores under real git, the real app through Pilot; each test failed before this change.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import git, said
from test_snapshots_review import _screen_lines
from textual.widgets import DataTable

from memtui import ops
from memtui.audit.repo import parse_trailers
from memtui.demo import make_demo_store
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ConfirmDialog
from memtui.tui.history import COLUMNS, HistoryDetail, HistoryScreen
from memtui.tui.pilot import settle

TODAY = dt.date(2026, 11, 30)
REASON = (
    "The team moved every front-end package to bun during the October migration; the CI images ship only bun now, "
    "so an npm lockfile would never be used again"
)


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


async def open_history(app: MemtuiApp, pilot) -> HistoryScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("H")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_the_selected_decisions_whole_reason_is_shown_under_the_list(demo: Path, size: tuple[int, int]) -> None:
    ops.archive(demo, "feedback_use_npm.md", reason=REASON, superseded_by="feedback_use_bun.md", today=TODAY)
    assert len(REASON) > dict(COLUMNS)["reason"]  # the column cuts it
    app = make_app(demo)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(app, pilot)
        assert screen.shown_events()[0].reason == REASON
        line = screen.query_one("#history-reason")
        said_there = str(line.render())
        assert REASON in said_there and "feedback_use_npm.md" in said_there and "feedback_use_bun.md" in said_there
        shown = " ".join(row.strip() for row in _screen_lines(app.export_screenshot()))
        assert all(word in shown for word in REASON.split()), "the whole reason is on the screen"
        await pilot.press("down")  # the line follows the cursor
        await pilot.pause(0.1)
        assert REASON not in str(line.render())
        assert str(line.render()).startswith(screen.shown_events()[1].memory.split("/", 1)[1])


async def test_R_on_a_merge_brings_back_the_memories_merged_away_after_saying_what_stays(demo: Path) -> None:
    bun = (demo / "feedback_use_bun.md").read_text(encoding="utf-8")
    ops.merge(
        demo, ["feedback_use_npm.md", "feedback_use_bun.md"], into="feedback_use_bun.md", text=bun, reason="bun won"
    )
    assert not (demo / "feedback_use_npm.md").exists()
    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_history(app, pilot)
        merge = screen.shown_events()[0]
        assert merge.action == "merge"
        await pilot.press("enter")  # the detail says what R does on a merge
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryDetail)
        await pilot.press("R")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog), [n.message for n in said(app)]
        question = dialog._question
        assert "feedback_use_npm.md" in question and "feedback_use_bun.md stays as it is" in question
        assert "press u on the main screen" in question and "this merge is the newest decision" in question
        await pilot.press("y")
        await settle(app, pilot)
        assert parse_trailers(git(demo.parent, "log", "-1", "--format=%B"))["Memtui-Action"] == ["restore"]
        assert (demo / "feedback_use_npm.md").exists() and (demo / "feedback_use_bun.md").read_text() != ""
        assert "feedback_use_npm.md" in (demo / "MEMORY.md").read_text(encoding="utf-8")
        await pilot.press("t")  # revoked rules: the merge's memory is back, so the merge no longer is one
        await pilot.pause(0.2)
        assert isinstance(app.screen, HistoryScreen)
        assert merge.commit not in {e.commit for e in app.screen.shown_events()}


async def test_R_on_a_merge_from_the_list_can_be_declined_and_writes_nothing(demo: Path) -> None:
    bun = (demo / "feedback_use_bun.md").read_text(encoding="utf-8")
    ops.merge(
        demo, ["feedback_use_npm.md", "feedback_use_bun.md"], into="feedback_use_bun.md", text=bun, reason="bun won"
    )
    ops.verify(demo, "user_role.md", today=TODAY)  # a later decision: u would undo this one first
    head = git(demo.parent, "rev-parse", "HEAD")
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(app, pilot)
        row = next(i for i, e in enumerate(screen.shown_events()) if e.action == "merge")
        screen.query_one(DataTable).move_cursor(row=row, animate=False)
        await pilot.pause(0.1)
        await pilot.press("R")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "the ones made since this merge would be undone before it" in app.screen._question
        await pilot.press("n")
        await settle(app, pilot)
        assert git(demo.parent, "rev-parse", "HEAD") == head and not (demo / "feedback_use_npm.md").exists()


async def test_the_revoked_list_keeps_the_memory_of_a_batch_still_archived_after_another_is_restored(
    tmp_path: Path,
) -> None:
    """Revoked is per memory: a batch archive of two, one restored, still retires the other (the list dropped the
    whole batch, as `history --revoked` did)."""
    demo = make_demo_store(dt.date(2026, 11, 30), parent=tmp_path)
    ops.archive_many(demo, ["reference_linear.md", "reference_sentry.md"], reason="moved to the wiki")
    ops.restore(demo, "../memory.archive/reference_linear.md")
    app = MemtuiApp(demo, today=dt.date(2026, 11, 30), watch_interval=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        await pilot.press("t")
        await pilot.pause()
        rows = [screen.query_one(DataTable).get_row_at(i) for i in range(screen.query_one(DataTable).row_count)]
        named = [str(getattr(row[2], "plain", row[2])) for row in rows]
        assert any("reference_sentry.md" in n for n in named), named
        assert not any("reference_linear.md" in n for n in named), named
