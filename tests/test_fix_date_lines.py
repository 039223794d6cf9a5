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

import pytest
from conftest import _dated, git, init_repo, memory, write_files

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


def _commit(store: Path, files: dict[str, str], when: dt.date, subject: str = "agent wrote") -> None:
    """The agent's write, committed on the day `when` (a plain commit: no memtui trailers)."""
    write_files(store, files)
    git(store.parent, "add", "-A")
    git(store.parent, "commit", "-q", "-m", subject, env=_dated(when))


def _fix_date(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtui", "fix-date", str(store), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


HEAD = "We keep one config file per service."
SPLIT = "Yesterday we split the config."
ROLLBACK = "Last Thursday we rolled back the cache."
VENDOR = "The vendor call is tomorrow."


def _three_days(tmp_path: Path) -> Path:
    """One memory written on three days: 2026-06-06 (a Saturday) "Yesterday …"; 2026-08-01 (a Saturday) "Last
    Thursday …" added; 2026-09-10 the first line reworded around its "Yesterday" and "… tomorrow." added."""

    def text(*lines: str) -> str:
        return memory("project_cache", "project", body="\n\n".join([HEAD, *lines, "**Why:** x", "**How to apply:** y"]))

    store = _store(tmp_path, {"project_cache.md": text(SPLIT)}, when=dt.date(2026, 6, 6))
    _commit(store, {"project_cache.md": text(SPLIT, ROLLBACK)}, dt.date(2026, 8, 1))
    reworded = SPLIT.replace("the config.", "the config into two files.")
    _commit(store, {"project_cache.md": text(reworded, ROLLBACK, VENDOR)}, dt.date(2026, 9, 10))
    return store


def test_each_relative_date_counts_from_the_commit_that_wrote_it_on_its_line(tmp_path: Path) -> None:
    """The file's commits say 2026-06-06 and 2026-09-10: not which day each line was written. Its line history
    does: "Last Thursday" was added on 2026-08-01 (Thursday 2026-07-30); "tomorrow" on 2026-09-10; "Yesterday"
    was written with the file on 2026-06-06, and the line's rewording on 2026-09-10 did not write it."""
    store = _three_days(tmp_path)
    found = _check(store)
    assert set(found) == {"Yesterday", "Last Thursday", "tomorrow"}
    thursday = _details(found["Last Thursday"])
    assert (thursday["suggestion"], thursday["base"]) == ("2026-07-30", "2026-08-01")
    assert thursday["base_source"] == "the commit that wrote its line" and thursday["base_certain"] is True
    assert (_details(found["tomorrow"])["suggestion"], _details(found["tomorrow"])["base"]) == (
        "2026-09-11",
        "2026-09-10",
    )
    yesterday = _details(found["Yesterday"])
    assert (yesterday["suggestion"], yesterday["base"]) == ("2026-06-05", "2026-06-06")
    assert yesterday["base_source"] == "the file's first commit"


def test_fix_date_writes_the_day_the_line_says_without_being_given_one(tmp_path: Path) -> None:
    """The trial: fix-date refused ("when it was written is not known (the file was committed on 2026-06-06 and
    changed on 2026-08-01)"), exit 1, for a line added in one commit on 2026-08-01."""
    store = _three_days(tmp_path)
    done = _fix_date(store, "project_cache.md", "--phrase", "Last Thursday")
    assert done.returncode == 0, done.stderr
    assert "+ 2026-07-30 we rolled back the cache." in done.stdout
    assert "2026-07-30 we rolled back the cache." in (store / "project_cache.md").read_text()
    reason = git(store.parent, "log", "-1", "--format=%(trailers:key=Memtui-Reason,valueonly)").strip()
    assert reason == '"Last Thursday" → 2026-07-30 (counted from 2026-08-01, the commit that wrote its line)'


def _freeze_added_later(tmp_path: Path) -> Path:
    """First committed on 2026-06-06; the freeze line added on Saturday 2026-08-01 ("yesterday": 2026-07-31, "next
    Tuesday": 2026-08-04)."""
    body = f"{HEAD}\n\n**Why:** QA\n\n**How to apply:** wait"
    store = _store(tmp_path, {"project_freeze.md": memory("project_freeze", "project", body=body)}, dt.date(2026, 6, 6))
    _commit(
        store,
        {"project_freeze.md": memory("project_freeze", "project", body=f"{FREEZE}\n\n{body}")},
        dt.date(2026, 8, 1),
    )
    return store


def test_a_line_keeps_its_writing_day_through_a_fix_of_another_phrase_its_undo_an_archive_and_a_restore(
    tmp_path: Path,
) -> None:
    """memtui's commits that write no new meaning (fix-date, undo, archive, restore) rewrite or move the line; its
    phrases still count from 2026-08-01, the day the agent wrote it."""
    store = _freeze_added_later(tmp_path)
    ops.fix_date(store, "project_freeze.md", phrase="yesterday", today=TODAY)
    assert "it started 2026-07-31." in (store / "project_freeze.md").read_text()
    tuesday = _details(_check(store)["next Tuesday"])
    assert (tuesday["suggestion"], tuesday["base"], tuesday["base_source"]) == (
        "2026-08-04",
        "2026-08-01",
        "the commit that wrote its line",
    )
    ops.undo(store)
    found = _check(store)
    assert {phrase: _details(f)["suggestion"] for phrase, f in found.items()} == {
        "next Tuesday": "2026-08-04",
        "yesterday": "2026-07-31",
    }
    ops.archive(store, "project_freeze.md", reason="paused", today=TODAY)
    ops.restore(store, "project_freeze.md", today=TODAY)
    found = _check(store)
    assert {phrase: _details(f)["base"] for phrase, f in found.items()} == {
        "next Tuesday": "2026-08-01",
        "yesterday": "2026-08-01",
    }


def test_a_line_moved_keeps_its_day_and_one_written_anew_gets_the_day_it_was(tmp_path: Path) -> None:
    """A commit on 2026-09-10 moves "The vendor call is tomorrow." below another paragraph (git shows it taken out
    and written again elsewhere): it was written on 2026-08-01. The same commit's "Ship the fix tomorrow." is new."""
    call = "The vendor call is tomorrow, at ten, with the contract."
    rest = "\n\n".join(f"Paragraph {i} about the cache." for i in range(1, 6))
    why = "**Why:** x\n\n**How to apply:** y"
    store = _store(
        tmp_path, {"project_v.md": memory("project_v", "project", body=f"{rest}\n\n{why}")}, dt.date(2026, 6, 6)
    )
    _commit(
        store, {"project_v.md": memory("project_v", "project", body=f"{call}\n\n{rest}\n\n{why}")}, dt.date(2026, 8, 1)
    )
    moved = f"{rest}\n\n{call}\n\nShip the fix tomorrow.\n\n{why}"
    _commit(store, {"project_v.md": memory("project_v", "project", body=moved)}, dt.date(2026, 9, 10))
    hits = _written_lines(store, "project_v.md")
    assert hits == {call: "2026-08-01", "Ship the fix tomorrow.": "2026-09-10"}


def _written_lines(store: Path, file: str) -> dict[str, str | None]:
    """Each line of a memory saying a relative date, with the day `check` counts it from (in-process)."""
    from memtui.analysis.check import writing_dates
    from memtui.audit.repo import try_open_repo
    from memtui.core.store import load_store

    loaded = load_store(store)
    repo = try_open_repo(loaded.layout)
    assert repo is not None
    memory_ = loaded.by_path[file]
    file_dates = repo.file_dates_now(TODAY)
    known = writing_dates(memory_, file_dates)
    hits = dates.memory_hits(memory_, known, TODAY)
    answers = repo.lines_written({file: dates.line_questions(memory_, hits)}, file_dates.pending).get(file, {})
    told = dates.told_by_lines(memory_, hits, known, answers)
    lines = memory_.text.split("\n")
    spots = dates.file_spots(memory_.text, memory_.description, memory_.body, hits)
    out: dict[str, str | None] = {}
    for hit, again, spot in zip(hits, dates.memory_hits(memory_, told, TODAY), spots, strict=True):
        assert spot is not None and hit.phrase == again.phrase
        out[lines[spot[0] - 1]] = again.base.date.isoformat() if again.base and again.base.date else None
    return out


def test_a_line_written_by_a_store_memtui_init_and_one_the_agent_added_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui init` put the store under git on 2026-06-06: a line that came with it was written some day before,
    which nobody knows (no date offered, and the finding says why); a line the agent added on 2026-08-01 is dated."""
    store = tmp_path / "p" / "memory"
    body = f"{SPLIT}\n\n**Why:** x\n\n**How to apply:** y"
    write_files(store, {"project_cache.md": memory("project_cache", "project", body=body)})
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(key, "2026-06-06T12:00:00+00:00")
    ops.init(store)
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    git(store.parent, "config", "user.name", "Test Person")
    git(store.parent, "config", "user.email", "test@example.com")
    _commit(
        store,
        {"project_cache.md": memory("project_cache", "project", body=f"{ROLLBACK}\n\n{body}")},
        dt.date(2026, 8, 1),
    )
    found = _check(store)
    assert _details(found["Last Thursday"])["suggestion"] == "2026-07-30"
    yesterday = _details(found["Yesterday"])
    assert yesterday["suggestion"] is None and yesterday["base_certain"] is False
    assert "memtui init put it under git on 2026-06-06; it was written before" in str(found["Yesterday"]["message"])


def test_a_line_that_came_in_with_a_merge_is_not_dated_and_fix_date_says_why(tmp_path: Path) -> None:
    """A line written on a branch comes into the store with the merge: git's first-parent history says only the
    day of the merge, which is not the day it was written. No date is offered, and both the finding and fix-date's
    refusal say so (the trial's message named the file's first and last commits, which said nothing of the line)."""
    body = f"{HEAD}\n\n**Why:** x\n\n**How to apply:** y"
    store = _store(tmp_path, {"project_cache.md": memory("project_cache", "project", body=body)}, dt.date(2026, 6, 6))
    top = store.parent
    git(top, "checkout", "-q", "-b", "side")
    _commit(
        store, {"project_cache.md": memory("project_cache", "project", body=f"{body}\n\n{VENDOR}")}, dt.date(2026, 6, 8)
    )
    git(top, "checkout", "-q", "main")
    _commit(store, {"other.md": memory("other", "project")}, dt.date(2026, 6, 9))
    git(top, "merge", "-q", "--no-edit", "side", env=_dated(dt.date(2026, 6, 12)))
    found = _check(store)
    why = "its line came in with a merge on 2026-06-12, written on a branch before"
    assert _details(found["tomorrow"])["suggestion"] is None and why in str(found["tomorrow"]["message"])
    refused = _fix_date(store, "project_cache.md")
    assert refused.returncode == 1 and why in refused.stderr and "--date" in refused.stderr


def test_a_line_the_agent_wrote_since_the_last_commit_is_dated_only_when_that_commit_was_the_same_day(
    tmp_path: Path,
) -> None:
    """Not committed yet, under an unchanged front matter: written after the file's last commit (2026-08-01) and by
    the day `check` runs. Run that same day, that is its day; run on 2026-12-10, it could be any day between, and
    the finding says so. The line committed on 2026-08-01 keeps its day."""
    store = _freeze_added_later(tmp_path)
    path = store / "project_freeze.md"
    path.write_text(path.read_text().replace(HEAD, f"{HEAD}\n\n{VENDOR}"), encoding="utf-8")
    vendor = _details(_check(store, dt.date(2026, 8, 1))["tomorrow"])
    assert (vendor["suggestion"], vendor["base_source"]) == ("2026-08-02", "its line, written since the last commit")
    found = _check(store)
    assert _details(found["tomorrow"])["suggestion"] is None
    why = "its line was written after the file's commit of 2026-08-01, and is not committed yet"
    assert why in str(found["tomorrow"]["message"])
    assert _details(found["next Tuesday"])["base"] == "2026-08-01"


def test_the_hooks_recording_dates_a_line_and_a_recording_made_days_later_bounds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook records the agent's write as it is made, naming its session: that commit's day is the line's. A
    write memtui records only before a later decision (no session) was made after the file's commit before and
    by that day: no date is offered when those days differ."""
    store = _freeze_added_later(tmp_path)
    path = store / "project_freeze.md"
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(key, "2026-09-10T12:00:00+00:00")
    path.write_text(path.read_text().replace(HEAD, f"{HEAD}\n\n{VENDOR}"), encoding="utf-8")
    ops.record_agent_write(store, session="0b9f3c1e-6d2a-4f7e-9a51-3c8e2b7d4f60")
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(key, "2026-11-20T12:00:00+00:00")
    path.write_text(path.read_text().replace(HEAD, f"{HEAD}\n\nShip the fix tomorrow."), encoding="utf-8")
    ops.verify(store, "project_freeze.md", today=dt.date(2026, 11, 20))  # records the write first, then verifies
    lines = _written_lines(store, "project_freeze.md")
    assert lines[VENDOR] == "2026-09-10"
    assert lines["Ship the fix tomorrow."] is None
    found = _check(store)
    assert "its line was written after the file's commit of 2026-09-10, on or before 2026-11-20" in str(
        found["tomorrow"]["message"]
    )


def test_a_file_memtui_recorded_with_a_decision_is_dated_from_that_first_commit_as_any_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory the agent created, recorded by memtui before a decision on 2026-09-10 and changed on 2026-10-02:
    its first line came with the file, so it counts from the file's first commit, as a file committed once does;
    the line added on 2026-10-02 counts from that day."""
    store = _store(tmp_path, {"project_other.md": memory("project_other", "project")}, dt.date(2026, 6, 6))
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(key, "2026-09-10T12:00:00+00:00")
    body = f"{SPLIT}\n\n**Why:** x\n\n**How to apply:** y"
    write_files(store, {"project_cache.md": memory("project_cache", "project", body=body)})
    ops.verify(store, "project_other.md", today=dt.date(2026, 9, 10))  # records the new file first
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.delenv(key)
    _commit(
        store,
        {"project_cache.md": memory("project_cache", "project", body=f"{VENDOR}\n\n{body}")},
        dt.date(2026, 10, 2),
    )
    assert _written_lines(store, "project_cache.md") == {SPLIT: "2026-09-10", VENDOR: "2026-10-02"}
    assert _details(_check(store)["Yesterday"])["base_source"] == "the file's first commit"
