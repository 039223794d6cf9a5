"""The fix-date dialog offers what the finding offers, and writes exactly what it shows.

A range ("last month") was offered as "October 2026" on the card and in `check`, but the dialog asked for one day
(YYYY-MM-DD) and left its date empty; and the dialog kept the card's proposal and "counted from" line even when
the plan it read (`ops.fix_date_preview`) said otherwise. Real git, real files, the real app through Pilot.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, hold_history_reads, init_repo, memory, write_files
from textual.widgets import Input

from memtui import ops
from memtui.analysis import dates
from memtui.audit.repo import parse_trailers
from memtui.review import Card
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import FixDateDialog
from memtui.tui.main_screen import MainScreen
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)
ONCALL = "project_oncall.md"  # the demo's "handovers last month", counted from 2026-11-22: October 2026
FREEZE = "project_deploy_freeze.md"  # the demo's "next Thursday", counted from 2026-11-18: 2026-11-26


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def head_sha(store: Path) -> str:
    return git(store.parent, "rev-parse", "HEAD").strip()


def shown(dialog: FixDateDialog, widget: str) -> str:
    return str(dialog.query_one(widget).render())


async def open_fix_date(app: MemtuiApp, pilot, path: str) -> FixDateDialog:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await select_memory(app, pilot, path)
    await pilot.press("f")
    await settle(app, pilot)
    dialog = app.screen
    assert isinstance(dialog, FixDateDialog)
    return dialog


async def on_date_card(app: MemtuiApp, pilot, path: str | None = None) -> tuple[ReviewScreen, Card]:  # type: ignore[no-untyped-def]
    """The review opened (`r`) on the relative-date card of `path` (any, without one)."""
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    card = next(c for c in screen.cards if c.kind == "relative-date" and path in (None, *c.paths))
    screen.index = screen.cards.index(card)
    screen.show_card()
    await pilot.pause()
    return screen, card


async def test_a_range_is_offered_as_the_finding_offers_it_and_enter_writes_it(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_fix_date(app, pilot, ONCALL)
        assert dialog.query_one(Input).value == "October 2026"  # what check and the card offer, not a blank day
        assert "during handovers October 2026." in shown(dialog, "#fix-after")
        assert "counted from 2026-11-22" in shown(dialog, "#fix-base")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert "missed during handovers October 2026." in (demo / ONCALL).read_text()
        reason = head(demo)["Memtui-Reason"][0]
        assert head(demo)["Memtui-Action"] == ["fix-date"]
        assert reason == '"last month" → October 2026 (counted from 2026-11-22, front matter `created` and `updated`)'


@pytest.mark.parametrize(
    ("typed", "after", "written"),
    [
        ("2026-09", "September 2026", "September 2026"),  # a month, said as the finding says one
        ("2026-10-14", "2026-10-14", "2026-10-14"),  # the day it was, when the person knows it
    ],
)
async def test_a_month_or_a_day_typed_for_a_range_is_shown_then_written_as_shown(
    demo: Path, typed: str, after: str, written: str
) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_fix_date(app, pilot, ONCALL)
        await pilot.press(*typed)  # the offer is selected: the first key replaces it
        await pilot.pause()
        assert dialog.query_one(Input).value == typed
        assert f"during handovers {after}." in shown(dialog, "#fix-after")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert f"missed during handovers {written}." in (demo / ONCALL).read_text()
        assert head(demo)["Memtui-Reason"] == [f'"last month" → {written} (the date given)']


async def test_a_month_typed_for_one_day_is_refused_and_nothing_is_written(demo: Path) -> None:
    """ "2026-11" for "next Thursday" is a day half typed, not a month: enter keeps the dialog open."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        before = head_sha(demo)
        dialog = await open_fix_date(app, pilot, FREEZE)
        assert dialog.query_one(Input).value == "2026-11-26"
        await pilot.press(*"2026-11", "enter")
        await settle(app, pilot)
        assert app.screen is dialog and head_sha(demo) == before
        assert "next Thursday" in (demo / FREEZE).read_text()


def _moved_created(demo: Path, day: str) -> None:
    """The memory's front-matter dates moved to `day` on disk, behind the open app's back (no watcher)."""
    path = demo / FREEZE
    text = path.read_text()
    path.write_text(
        text.replace("created: 2026-11-18", f"created: {day}").replace("updated: 2026-11-18", f"updated: {day}")
    )


async def test_the_dialog_shows_the_plans_proposal_and_base_not_the_findings(demo: Path) -> None:
    """The finding was worked out before the file changed: the dialog shows what the plan it reads says, the
    proposal and the day it was counted from, once it has read it."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "created: 2026-11-18" in (demo / FREEZE).read_text()
        _moved_created(demo, "2026-11-25")  # a Wednesday: next Thursday is 2026-12-03
        dialog = await open_fix_date(app, pilot, FREEZE)
        assert dialog.plan is not None and dialog.plan.proposal == "2026-12-03"
        assert dialog.query_one(Input).value == "2026-12-03"
        assert "counted from 2026-11-25" in shown(dialog, "#fix-base"), shown(dialog, "#fix-base")
        assert "2026-11-18" not in shown(dialog, "#fix-base") and "2026-11-26" not in shown(dialog, "#fix-after")


async def test_enter_pressed_on_a_proposal_the_plan_changes_writes_nothing(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter pressed while the plan is read, on the finding's proposal: when the plan proposes another date, that
    date is shown and waits for its own enter; the one the person saw is not the one written."""
    gate, entered = hold_history_reads(tmp_path, monkeypatch)
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert ops.record_agent_write(demo).commit  # HEAD moves: the preview reads the file dates again, held
        before = head_sha(demo)
        _moved_created(demo, "2026-11-25")
        await select_memory(app, pilot, FREEZE)
        gate.touch()
        await pilot.press("f")
        for _ in range(3000):
            if entered.exists():
                break
            await pilot.pause(0.02)
        else:
            raise TimeoutError("the preview never reached git")
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog) and dialog.reading
        assert dialog.query_one(Input).value == "2026-11-26"  # the finding's, meanwhile
        await pilot.press("enter")
        await pilot.pause()
        gate.unlink()
        await settle(app, pilot)
        assert app.screen is dialog and head_sha(demo) == before
        assert dialog.query_one(Input).value == "2026-12-03" and not dialog.confirmed_early


async def test_the_review_card_and_its_dialog_offer_the_same_range(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        _, card = await on_date_card(app, pilot, ONCALL)
        assert "October 2026" in card.explanation
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)
        assert dialog.query_one(Input).value == "October 2026"
        await pilot.press("enter")
        await settle(app, pilot)
        assert "missed during handovers October 2026." in (demo / ONCALL).read_text()
        assert head(demo)["Memtui-Action"] == ["fix-date"]


@pytest.mark.parametrize(
    ("typed", "phrase", "proposal", "written"),
    [
        ("October 2026", "last month", "October 2026", "October 2026"),  # the offer, as offered
        ("the week of 2026-11-16", "this week", "the week of 2026-11-16", "the week of 2026-11-16"),
        ("2026-10", "last month", "October 2026", "October 2026"),  # the offer typed again
        ("2026-9", "last month", None, "September 2026"),
        ("september 2026", "Last Month", None, "September 2026"),
        ("2026-09", "上个月", "2026年10月", "2026年9月"),  # said as the phrase says a month
        ("2026年9月", "上个月", None, "2026年9月"),
        ("2028", "next year", "2027", "2028"),
        ("2028", "明年", None, "2028年"),
        ("2026-11-20", "last week", None, "2026-11-20"),  # a day, whatever the phrase
        ("2026-12-03", "next Thursday", "2026-11-26", "2026-12-03"),
    ],
)
def test_what_may_be_typed_and_what_is_written(typed: str, phrase: str, proposal: str | None, written: str) -> None:
    assert dates.written_as(typed, phrase, proposal) == written
    assert dates.written_as(written, phrase, proposal) == written  # what the dialog shows is what is written


@pytest.mark.parametrize(
    ("typed", "phrase"),
    [
        ("2026-11", "tomorrow"),  # a day half typed, not a month
        ("2026", "下周四"),
        ("November 2026", "next Thursday"),
        ("2026-13", "last month"),
        ("Octember 2026", "last month"),
        ("0000", "next year"),
        ("the week of 2026-11-23", "this week"),  # a week only as memtui offers it
        ("soon", "last month"),
    ],
)
def test_what_may_not_be_typed_is_refused_saying_what_may(typed: str, phrase: str) -> None:
    with pytest.raises(ValueError, match="is not a day like"):
        dates.written_as(typed, phrase, "the week of 2026-11-16")


def _range_store(tmp_path: Path) -> Path:
    top = tmp_path / "app"
    body = "We moved to bun last month.\n\n**Why:** speed\n\n**How to apply:** bun install"
    write_files(top / "memory", {"project_bun.md": memory("project_bun", "project", body=body)})
    init_repo(top, when=dt.date(2026, 11, 22))
    return top / "memory"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args], capture_output=True, text=True)


def test_the_cli_takes_a_month_for_a_range_and_refuses_one_for_a_day(tmp_path: Path) -> None:
    store = _range_store(tmp_path)
    run = _cli("fix-date", str(store), "project_bun.md", "--phrase", "last month", "--date", "2026-09")
    assert run.returncode == 0, run.stderr
    assert "We moved to bun September 2026." in (store / "project_bun.md").read_text()
    assert head(store)["Memtui-Reason"] == ['"last month" → September 2026 (the date given)']
    (store / "project_bun.md").write_text(memory("project_bun", "project", body="Ship it tomorrow."))
    git(store.parent, "commit", "-qam", "tomorrow")
    before = head_sha(store)
    run = _cli("fix-date", str(store), "project_bun.md", "--date", "2026-11")
    assert run.returncode != 0 and "2026-11" in run.stderr, run.stderr
    assert head_sha(store) == before


async def test_fixing_one_date_of_a_line_leaves_the_card_of_the_other(tmp_path: Path) -> None:
    """A trial fixed "tomorrow" and the card for "next Tuesday", on the same line, left the review with it: the
    review took it for the same card (same kind, same memory), while `check` still listed it."""
    top = tmp_path / "p"
    line = "The viscosity fit lands tomorrow; the slice review is next Tuesday."
    write_files(top, {"memory/project_slag.md": memory("project_slag", "project", body=line)})
    init_repo(top, when=TODAY - dt.timedelta(days=1))
    store = top / "memory"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen, card = await on_date_card(app, pilot, "project_slag.md")
        phrases = sorted(c.cue.lower() for c in screen.cards if c.kind == "relative-date")
        assert phrases == ["next tuesday", "tomorrow"], phrases
        screen.index = next(i for i, c in enumerate(screen.cards) if c.cue.lower() == "tomorrow")
        screen.show_card()
        await pilot.pause()
        await pilot.press("f")
        await settle(app, pilot)
        assert isinstance(app.screen, FixDateDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert "tomorrow" not in (store / "project_slag.md").read_text()
        left = [c.cue.lower() for c in screen.left() if c.kind == "relative-date"]
        assert left == ["next tuesday"], left


async def test_the_question_of_a_range_is_whole_at_120_columns(demo: Path) -> None:
    """A trial read "Replace "next week" with this (a day YYYY-MM-DD, a month YYYY-MM" — the rest cut at the edge."""
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_fix_date(app, pilot, ONCALL)
        ask = dialog.query_one("#fix-ask")
        shown = "\n".join(s.text for s in ask.render_lines(ask.region.reset_offset))
        assert "or a year YYYY):" in " ".join(shown.split()), shown
        assert ask.region.right <= dialog.query_one(".dialog").region.right
