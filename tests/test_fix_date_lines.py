"""Relative dates on a line that holds an absolute date too, and the day each line was written, from git.

Found in a new user's trial on a real store:

1. A line said "… until next Tuesday … started yesterday". Fixing "yesterday" made the "next Tuesday" card vanish:
   a line holding any absolute date was taken as dated, though the date the fix wrote is the day the freeze
   started, not the day the line was written. The phrase is still found, counted from the day its line was
   written (a fix-date is no writing: `SAME_MEANING`).
2. fix-date said the day a line was written was not known ("the file was committed on 2026-06-06 and changed on
   2026-08-01") for a line added in a single commit on 2026-08-01: the day comes from the commit that wrote the
   phrase on its line, read from git's line history.

Real git repositories with back-dated commits, real files, the real command line.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import init_repo, memory, write_files

from memtui import ops
from memtui.analysis import dates

WRITTEN = dt.date(2026, 11, 23)  # a Monday: "next Tuesday" is 2026-12-01, "yesterday" Sunday 2026-11-22
TODAY = dt.date(2026, 12, 10)
FREEZE = "The deploy freeze lasts until next Tuesday; it started yesterday."


def _store(tmp_path: Path, files: dict[str, str], when: dt.date = WRITTEN) -> Path:
    top = tmp_path / "app"
    write_files(top / "memory", files)
    init_repo(top, when=when)
    return top / "memory"


def _check(store: Path, today: dt.date = TODAY) -> dict[str, dict[str, object]]:
    """The relative-date findings `memtui check --json` reports, by phrase."""
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(store), "--json", "--today", today.isoformat()],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    findings = json.loads(out.stdout)["findings"]
    return {str(f["details"]["phrase"]): f for f in findings if f["kind"] == "relative-date"}


def _details(finding: dict[str, object]) -> dict[str, object]:
    details = finding["details"]
    assert isinstance(details, dict)
    return details


def test_fixing_one_relative_date_leaves_the_other_on_its_line_found_and_counted_from_its_writing_day(
    tmp_path: Path,
) -> None:
    """The trial's line: after "yesterday" is written as 2026-11-22, "next Tuesday" is still a finding, counted from
    2026-11-23 (the day the line was written: 2026-12-01), not from the date the fix wrote (that would be
    2026-11-24, the Tuesday after Sunday 2026-11-22)."""
    body = f"{FREEZE}\n\n**Why:** QA\n\n**How to apply:** wait"
    store = _store(tmp_path, {"project_freeze.md": memory("project_freeze", "project", body=body)})
    found = _check(store)
    assert _details(found["next Tuesday"])["suggestion"] == "2026-12-01"
    assert _details(found["yesterday"])["suggestion"] == "2026-11-22"
    ops.fix_date(store, "project_freeze.md", phrase="yesterday", today=TODAY)
    assert "until next Tuesday; it started 2026-11-22." in (store / "project_freeze.md").read_text()
    found = _check(store)
    assert set(found) == {"next Tuesday"}, "the other phrase on the line is still relative"
    details = _details(found["next Tuesday"])
    assert details["suggestion"] == "2026-12-01" and details["base"] == "2026-11-23"
    result = ops.fix_date(store, "project_freeze.md", phrase="next Tuesday", today=TODAY)
    assert "until 2026-12-01; it started 2026-11-22." in (store / "project_freeze.md").read_text()
    assert "counted from 2026-11-23" in result.summary
    assert _check(store) == {}


def test_a_date_in_brackets_beside_the_phrase_says_its_day_and_another_date_on_the_line_does_not() -> None:
    assert dates.find_relative_dates("The freeze ends next Tuesday (2026-12-01).", WRITTEN) == []
    assert dates.find_relative_dates("The freeze ends 2026-12-01 (next Tuesday).", WRITTEN) == []
    assert dates.find_relative_dates("召回模块下周四（2026-11-26）上线。", WRITTEN) == []
    (hit,) = dates.find_relative_dates("Deployed 2026-11-20, checking tomorrow.", WRITTEN)
    assert (hit.phrase, hit.suggestion) == ("tomorrow", dt.date(2026, 11, 24))
    (hit,) = dates.find_relative_dates("The freeze runs 2026-11-22–next Tuesday.", WRITTEN)  # a range, no gloss
    assert (hit.phrase, hit.suggestion) == ("next Tuesday", dt.date(2026, 12, 1))
