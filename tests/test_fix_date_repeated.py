"""A relative date said more than once in a memory (a daily log saying 今天 again and again, "tomorrow" twice).

Found on a real store: `f` → enter fixed one occurrence (one commit) and the review card left as decided, though
the file still said the phrase; the main screen kept its flag, `check` its warning, and the card came back only in
the next review, one occurrence a week. Now one decision writes every occurrence counted from the same day (the
dialog shows each line before and after, and that is what is written, in one commit); an occurrence counted from
another day (another dated heading) is its own decision, and the card stays in the review showing it until none
is left. The finding says how many times the phrase is said. Real git, real files, the real app through Pilot.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, said, write_files
from test_fix_date_dialog import on_date_card, open_fix_date
from textual.containers import VerticalScroll
from textual.widgets import Button, Input

from memtui import ops
from memtui.analysis import dates
from memtui.audit.repo import parse_trailers
from memtui.core.model import Finding
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import FixDateDialog
from memtui.tui.main_screen import MainScreen
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen
from memtui.tui.review_card import line_row
from memtui.workspace import analyse, open_store

TODAY = dt.date(2026, 11, 30)
WRITTEN = dt.date(2026, 11, 22)
SIZE = (140, 40)
LOG = "project_daily_log.md"
FILLER = "\n".join(f"- 第{i}条记录：接口与页面的细节。" for i in range(1, 41))


def _daily_log() -> str:
    """今天 three times: twice under the heading of 2026-05-14 (`FIRST`, `SECOND`), once under 2026-05-15 (`OTHER`)."""
    body = (
        f"# 2026-05-14 更新记录\n\n今天主要修复 Web 端交互。\n\n{FILLER}\n\n## 验证记录\n\n今天按功能点多次运行测试。\n\n"
        f"{FILLER}\n\n## 2026-05-15 补充\n\n今天补了文档。\n\n**Why:** x\n\n**How to apply:** y"
    )
    return memory("project_daily_log", "project", description="5/14 修复记录", body=body)


LOG_TEXT = _daily_log()
FIRST, SECOND, OTHER = (
    next(n for n, line in enumerate(LOG_TEXT.split("\n"), 1) if line.startswith(start))
    for start in ("今天主要", "今天按", "今天补")
)


def _tomorrow_twice() -> str:
    """ "tomorrow" twice, both counted from the front matter's `created` (2026-11-20): both mean 2026-11-21."""
    body = (
        "The vendor call is tomorrow at ten.\n\n"
        + "\n".join(f"- note {i}" for i in range(1, 31))
        + "\n\nBring the contract tomorrow, signed.\n\n**Why:** x\n\n**How to apply:** y"
    )
    return memory("project_vendor", "project", body=body, created="2026-11-20")


def _store(tmp_path: Path, files: dict[str, str]) -> Path:
    top = tmp_path / "app"
    write_files(top / "memory", files)
    init_repo(top, when=WRITTEN)
    return top / "memory"


def _commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD").strip())


def _dated(store: Path, path: str) -> list[Finding]:
    """The relative-date findings of a memory, as `check` reports them now."""
    ws = analyse(open_store(store, today=TODAY))
    return [f for f in ws.findings_for(path) if f.kind == "relative-date"]


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


# ---------------------------------------------------------------------------------------------- ops


def test_every_occurrence_counted_from_the_same_day_is_one_decision(tmp_path: Path) -> None:
    store = _store(tmp_path, {"project_vendor.md": _tomorrow_twice()})
    path = store / "project_vendor.md"
    text = path.read_text()
    first, second = _line_of(text, "vendor call is tomorrow"), _line_of(text, "contract tomorrow")
    preview = ops.fix_date_preview(store, "project_vendor.md", today=TODAY)
    assert preview.numbers == (first, second) and preview.others == ()
    assert preview.shown("2026-11-21") == (
        f"line {first}: - The vendor call is tomorrow at ten.",
        f"line {first}: + The vendor call is 2026-11-21 at ten.",
        f"line {second}: - Bring the contract tomorrow, signed.",
        f"line {second}: + Bring the contract 2026-11-21, signed.",
    )
    before = _commits(store)
    result = ops.fix_date(store, "project_vendor.md", date="2026-11-21", lines=preview.numbers, today=TODAY)
    assert _commits(store) == before + 1  # one decision, one commit
    assert result.shown == preview.shown("2026-11-21")  # what was shown is what was written
    assert path.read_text() == text.replace("tomorrow", "2026-11-21")
    assert _dated(store, "project_vendor.md") == []  # check has nothing left to say


def test_an_occurrence_under_another_dated_heading_is_its_own_decision(tmp_path: Path) -> None:
    store = _store(tmp_path, {LOG: _daily_log()})
    path = store / LOG
    original = path.read_text()
    preview = ops.fix_date_preview(store, LOG, today=TODAY)
    assert preview.numbers == (FIRST, SECOND) and preview.others == (OTHER,) and preview.proposal == "2026-05-14"
    result = ops.fix_date(store, LOG, date="2026-05-14", lines=preview.numbers, today=TODAY)
    assert path.read_text() == original.replace("今天主要", "2026-05-14主要").replace("今天按", "2026-05-14按")
    assert any(f"line {OTHER}" in note and "another day" in note for note in result.notes), result.notes
    with pytest.raises(ops.OpError, match="not the line"):  # what was shown no longer matches
        ops.fix_date(store, LOG, lines=preview.numbers, today=TODAY)
    following = ops.fix_date_preview(store, LOG, today=TODAY)
    assert following.numbers == (OTHER,) and following.others == () and following.proposal == "2026-05-15"
    result = ops.fix_date(store, LOG, lines=following.numbers, today=TODAY)
    assert "2026-05-15补了文档" in path.read_text() and "今天" not in path.read_text()
    assert result.notes == ()
    assert _dated(store, LOG) == []


def test_the_finding_says_how_many_times_and_how_many_one_fix_writes(tmp_path: Path) -> None:
    store = _store(tmp_path, {LOG: _daily_log(), "project_vendor.md": _tomorrow_twice()})
    (log,) = _dated(store, LOG)
    assert log.details["occurrences"] == 3 and log.details["together"] == 2
    assert "said 3 times" in log.message and "2 counted from the same day" in log.message, log.message
    (vendor,) = _dated(store, "project_vendor.md")
    assert vendor.details["occurrences"] == 2 and vendor.details["together"] == 2
    assert "said 2 times (one fix writes both)" in vendor.message, vendor.message


# ---------------------------------------------------------------------------------------------- the dialog's button


def test_what_a_written_text_names() -> None:
    assert dates.what_it_names("2026-11-26") == "date"
    assert dates.what_it_names("October 2026") == "month"
    assert dates.what_it_names("2026年10月") == "month"
    assert dates.what_it_names("2027") == "year"
    assert dates.what_it_names("2027年") == "year"
    assert dates.what_it_names("the week of 2026-11-16") == "week"
    assert dates.what_it_names("the weekend of 2026-11-21") == "weekend"
    assert dates.what_it_names("2026-11-16—2026-11-22") == "week"
    assert dates.what_it_names("2026-11-21—2026-11-22") == "weekend"


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


def _button(dialog: FixDateDialog) -> str:
    return str(dialog.query_one("#ok", Button).label)


async def test_the_button_names_what_it_writes(demo: Path) -> None:
    """ "Write the date" over "October 2026" promised a day; the button says a month, and follows what is typed."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_fix_date(app, pilot, "project_oncall.md")  # "last month": October 2026
        assert dialog.query_one(Input).value == "October 2026"
        assert _button(dialog).startswith("Write the month"), _button(dialog)
        await pilot.press(*"2026-10-14")
        await pilot.pause()
        assert _button(dialog).startswith("Write the date"), _button(dialog)
        await pilot.press("escape")
        await settle(app, pilot)
        dialog = await open_fix_date(app, pilot, "project_deploy_freeze.md")  # "next Thursday": a day
        assert _button(dialog).startswith("Write the date"), _button(dialog)


# ---------------------------------------------------------------------------------------------- the review


async def test_the_review_card_stays_until_every_occurrence_is_fixed(tmp_path: Path) -> None:
    store = _store(tmp_path, {LOG: _daily_log()})
    path = store / LOG
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen, card = await on_date_card(app, pilot, LOG)
        assert "said 3 times" in card.explanation
        before = _commits(store)
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)
        shown = str(dialog.query_one("#fix-phrase").render()) + str(dialog.query_one("#fix-after").render())
        assert f"line {FIRST}:" in shown and f"line {SECOND}:" in shown and f"line {OTHER}" not in shown
        assert f"line {OTHER}" in str(dialog.query_one("#fix-others").render())
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen and _commits(store) == before + 1
        assert path.read_text().count("今天") == 1
        now = screen.current()  # the same card, following the store: the occurrence left
        assert now is not None and now.kind == "relative-date" and now.paths == (LOG,)
        assert now.finding is not None and now.finding.line == OTHER and "2026-05-15" in now.explanation
        assert now in screen.left()
        scroll = screen.query_one("#card-single", VerticalScroll)
        row = line_row(path.read_text(), OTHER, scroll.scrollable_content_region.width)
        assert row > scroll.size.height  # below the first screenful of the memory
        assert scroll.scroll_y <= row < scroll.scroll_y + scroll.size.height  # the preview opens at it
        await pilot.press("escape")  # left and opened again: still to decide
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert any(c.kind == "relative-date" and c.paths == (LOG,) for c in screen.left())
        screen.index = next(i for i, c in enumerate(screen.cards) if c.kind == "relative-date" and c.paths == (LOG,))
        screen.show_card()
        await pilot.pause()
        await pilot.press("f")
        await settle(app, pilot)
        assert isinstance(app.screen, FixDateDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert _commits(store) == before + 2 and "今天" not in path.read_text()
        assert not any(c.kind == "relative-date" and c.paths == (LOG,) for c in screen.left())
        assert [f for f in app.ws.findings_for(LOG) if f.kind == "relative-date"] == []  # the main screen's flag
        reasons = git(store.parent, "log", "-2", "--format=%(trailers:key=Memtui-Reason,valueonly)")
        assert "→ 2026-05-15" in reasons and "→ 2026-05-14" in reasons


async def test_one_decision_fixes_a_phrase_said_twice_from_the_same_day(tmp_path: Path) -> None:
    store = _store(tmp_path, {"project_vendor.md": _tomorrow_twice()})
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen, card = await on_date_card(app, pilot)
        before = _commits(store)
        await pilot.press("f")
        await settle(app, pilot)
        assert isinstance(app.screen, FixDateDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert _commits(store) == before + 1
        assert "tomorrow" not in (store / "project_vendor.md").read_text()
        assert not any(c.kind == "relative-date" for c in screen.left())
        assert parse_trailers(git(store.parent, "log", "-1", "--format=%B"))["Memtui-Action"] == ["fix-date"]


async def test_the_main_screen_f_fixes_what_is_left_and_says_so(tmp_path: Path) -> None:
    store = _store(tmp_path, {LOG: _daily_log()})
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_fix_date(app, pilot, LOG)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert any(f"line {OTHER}" in n.message for n in said(app)), [n.message for n in said(app)]
        assert [f.line for f in app.ws.findings_for(LOG) if f.kind == "relative-date"] == [OTHER]
        dialog = await open_fix_date(app, pilot, LOG)
        assert dialog.query_one(Input).value == "2026-05-15"
        await pilot.press("enter")
        await settle(app, pilot)
        assert "今天" not in (store / LOG).read_text()
        assert [f for f in app.ws.findings_for(LOG) if f.kind == "relative-date"] == []


def test_a_date_fixed_is_no_new_writing_date(tmp_path: Path) -> None:
    """A fix-date commit writes the day a phrase meant, nothing new: the memory does not turn fresh, and the other
    relative dates of it still count from the day it was written (they lost their proposal after the first fix)."""
    body = "The vendor call is tomorrow at ten.\n\nThe report was due yesterday.\n\n**Why:** x\n\n**How to apply:** y"
    store = _store(tmp_path, {"project_vendor.md": memory("project_vendor", "project", body=body)})
    ops.fix_date(store, "project_vendor.md", phrase="tomorrow", today=TODAY)
    ws = analyse(open_store(store, today=TODAY))
    fresh = ws.freshness["project_vendor.md"]
    assert (fresh.since, fresh.source) == (WRITTEN, "git"), fresh
    left = ops.fix_date_preview(store, "project_vendor.md", phrase="yesterday", today=TODAY)
    assert left.proposal == "2026-11-21", left


def test_the_finding_names_the_file_line_below_a_description_of_several_lines(tmp_path: Path) -> None:
    text = (
        "---\nname: project_vendor\ndescription: |\n  Vendor call notes\n  with the contract terms\ntype: project\n"
        "---\n\nThe vendor call is tomorrow at ten.\n\n**Why:** x\n\n**How to apply:** y\n"
    )
    store = _store(tmp_path, {"project_vendor.md": text})
    (found,) = _dated(store, "project_vendor.md")
    assert found.line == _line_of(text, "vendor call is tomorrow"), found
    assert ops.fix_date_preview(store, "project_vendor.md", today=TODAY).numbers == (found.line,)


def test_a_line_written_after_the_front_matter_date_is_not_counted_from_it(tmp_path: Path) -> None:
    """A new user's agent appended "Re-measured last week" to a memory whose front matter said `modified:
    2026-08-10`: fix-date wrote the week of 2026-08-03, four months off. When a commit (or a write not yet
    committed) wrote the file again after its front matter's date, that date is not when the line was written.
    Git's line history says the line was written after the file's commit of 2026-11-22, and not when: not
    committed yet, or recorded by memtui days later, before a decision (the hook records a write as it is made)."""
    text = memory("project_era", "project", body="The era axis holds.\n\n**Why:** x\n\n**How to apply:** y")
    text = text.replace("type: project\n", "type: project\nmodified: 2026-08-10\n")
    store = _store(tmp_path, {"project_era.md": text})
    path = store / "project_era.md"
    path.write_text(path.read_text() + "\nRe-measured last week: the era axis still holds.\n")
    preview = ops.fix_date_preview(store, "project_era.md", today=TODAY)  # the agent's write, not yet committed
    assert preview.proposal is None and preview.base is not None, preview
    assert preview.base.source == "its line was written after the file's commit of 2026-11-22, and is not committed yet"
    # recorded first (the day memtui records it bounds the line's day, it does not say it), then refused
    with pytest.raises(ops.OpError, match="its line was written after the file's commit of 2026-11-22, on or before"):
        ops.fix_date(store, "project_era.md", lines=preview.numbers, today=TODAY)  # nothing written without a date
    assert "last week" in path.read_text() and "week of 2026-08" not in path.read_text()
    (found,) = _dated(store, "project_era.md")  # the refusal took its recording back: check says what preview did
    assert "no date offered" in found.message and preview.base.source in found.message, found.message
