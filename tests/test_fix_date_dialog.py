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
from conftest import git, init_repo, memory, write_files

from memtui.analysis import dates
from memtui.audit.repo import parse_trailers
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import FixDateDialog
from memtui.tui.pilot import select_memory, settle

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
