"""The main screen's preview through Pilot: it follows the selection however fast it moves, and never ends the app."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Input, Markdown

from memtui.tui.app import MemtuiApp
from memtui.tui.pilot import select_memory, settle
from memtui.tui.widgets import MemoryPane

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


def long_memory(i: int) -> str:
    """A long project memory whose Markdown nests deeply (quotes in quotes, lists in lists): taking its blocks down
    takes many turns of the event loop, as the long notes of a real store do."""
    deep = "\n".join("> " * depth + f"level {depth}" for depth in range(1, 13))
    sections = [f"## Section {j}\n\n- point {j}\n  - detail {j}\n\n{deep}" for j in range(10)]
    body = f"# Long memory {i}\n\n" + "\n\n".join(sections)
    return f"---\nname: long_{i:02}\ndescription: long memory {i}\ntype: project\n---\n\n{body}\n"


async def until(condition: Callable[[], bool], seconds: float = 60) -> bool:
    """Give the event loop turns until the condition holds (bounded). Pilot's own waits cannot be used here: they
    wait for every widget's queue to drain, past the moment the test is looking for."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0)  # one turn of the loop, not a timed wait
    return True


def preview_path(app: MemtuiApp) -> str:
    return str(app.query_one("#preview-fields").render()).splitlines()[0]


async def test_moving_while_the_preview_takes_a_long_memory_down_never_ends_the_app(
    make_store: Callable[..., Path],
) -> None:
    """The trial's crash: a new selection cancelled the preview while Textual's Markdown was removing the last
    memory's blocks; the cancel reached the app's own wait on that removal and the app quit with exit code 0."""
    store = make_store({f"project_long_{i:02}.md": long_memory(i) for i in range(8)}, in_git=True)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        pane = app.query_one("#pane-project", MemoryPane)
        body = app.query_one("#preview-body", Markdown)
        for row in range(1, 8):
            pane.move_cursor(row=row, animate=False)
            # the next move lands while the blocks of the memory on screen are closing
            assert await until(lambda: any(block._closing for block in body.children)), f"row {row}"
        await settle(app, pilot, seconds=60)
        assert app.is_running and app.return_code is None
        assert app.main_screen.selected().path == "project_long_07.md"  # type: ignore[union-attr]
        assert preview_path(app) == "project_long_07.md"
        assert body.source.strip().startswith("# Long memory 7") and body.children


async def test_another_memory_is_shown_from_its_top(make_store: Callable[..., Path]) -> None:
    tagged = "\n".join(f"tag_{k}: value {k}" for k in range(80))  # a head taller than the scroll below it
    store = make_store(
        {
            "project_long_00.md": long_memory(0),
            "project_long_01.md": long_memory(1).replace("type: project\n", f"type: project\n{tagged}\n"),
        },
        in_git=True,
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        preview = app.query_one("#preview")
        await pilot.press("0", "pagedown")
        await settle(app, pilot)
        assert preview.scroll_y > 0
        await pilot.press("3", "j")
        await settle(app, pilot)
        assert preview_path(app) == "project_long_01.md" and preview.scroll_y == 0
        await pilot.press("0", "pagedown")
        await settle(app, pilot)
        scrolled = preview.scroll_y
        app.main_screen.store_changed()  # the same memory read again stays where the person scrolled
        await settle(app, pilot)
        assert scrolled > 0 and preview.scroll_y == scrolled


async def test_a_malformed_memory_is_shown_as_written_with_its_error(tmp_path: Path) -> None:
    from memtui.demo import make_demo_store
    from memtui.demo.content import MALFORMED_NAME

    demo = make_demo_store(TODAY, parent=tmp_path)
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, MALFORMED_NAME)
        await settle(app, pilot)
        raw = app.query_one("#preview-raw")
        body = app.query_one("#preview-body", Markdown)
        fields = str(app.query_one("#preview-fields").render())
        assert "malformed: front matter is never closed" in fields
        shown = str(raw.render()).splitlines()
        assert raw.display and shown[0] == "As written (not rendered: it could not be parsed)"
        # every line exactly as in the file, numbered; none of it read as Markdown (the first line is no rule)
        assert shown[1:] == [
            f"{n} │ {line}" for n, line in enumerate((demo / MALFORMED_NAME).read_text().splitlines(), 1)
        ]
        assert body.source == "" and not body.children
        await select_memory(app, pilot, "session_notes.md")
        await settle(app, pilot)
        assert not raw.display and "webhook" in body.source


async def test_the_preview_follows_the_filter_as_it_is_typed(tmp_path: Path) -> None:
    from memtui.demo import make_demo_store

    demo = make_demo_store(TODAY, parent=tmp_path)
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert preview_path(app) == "feedback_api_pagination.md"
        await pilot.press("slash", *"bun")
        await settle(app, pilot)  # the filter and the preview wait out their typing pauses in workers
        assert isinstance(app.focused, Input)
        assert preview_path(app) == "feedback_use_bun.md"
        assert "bun" in app.query_one("#preview-body", Markdown).source
        # no match left in the pane being read: the preview follows the first pane that has one
        await pilot.press(*["backspace"] * 3, *"grafana")
        await settle(app, pilot)
        assert app.main_screen.current_pane().group == "reference"
        assert preview_path(app) == app.main_screen.selected().path == "reference_grafana.md"  # type: ignore[union-attr]
        history = str(app.query_one("#preview-history").render())
        assert history.startswith("History")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.focused is app.main_screen.current_pane() and preview_path(app) == "reference_grafana.md"
