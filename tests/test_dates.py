"""Relative dates (issue 8 item 6): recurring days are no dates, ranges get no one-day date, one finding per phrase.

"weekly handover on Monday" became a single date and `f` committed it; "last month" and "this week" were given
one-day dates; a phrase in both the description and the body was reported twice.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.analysis import dates
from memtui.analysis.check import FileDates, check_store
from memtui.core.store import load_store

WRITTEN = dt.date(2026, 11, 22)  # a Sunday
TODAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    "text",
    [
        "Weekly handover on Monday.",
        "The weekly handover is on Monday, with the on-call notes.",
        "Deploys happen every Friday.",
        "Standup on Mondays.",
        "On Monday mornings we sync the roadmap.",
        "每周一交接。",
        "Ops review each week, usually on Thursday.",
    ],
)
def test_recurring_days_are_not_relative_dates(text: str) -> None:
    assert dates.find_relative_dates(text, WRITTEN) == []


@pytest.mark.parametrize(
    ("text", "phrase", "day"),
    [
        ("The freeze starts on Monday.", "on Monday", dt.date(2026, 11, 23)),
        ("Weekly sync. The release is on Monday.", "on Monday", dt.date(2026, 11, 23)),  # another sentence
        ("Ship it tomorrow.", "tomorrow", dt.date(2026, 11, 23)),
        ("召回模块下周四上线。", "下周四", dt.date(2026, 11, 26)),
    ],
)
def test_one_day_phrases_keep_their_date(text: str, phrase: str, day: dt.date) -> None:
    (hit,) = dates.find_relative_dates(text, WRITTEN)
    assert (hit.phrase, hit.suggestion, hit.span, hit.replacement) == (phrase, day, None, day.isoformat())


@pytest.mark.parametrize(
    ("text", "span", "replacement"),
    [
        ("We moved to bun last month.", ("2026-10-01", "2026-10-31"), "October 2026"),
        ("This week we froze deploys.", ("2026-11-16", "2026-11-22"), "the week of 2026-11-16"),
        ("Next week the audit starts.", ("2026-11-23", "2026-11-29"), "the week of 2026-11-23"),
        ("The migration ends next year.", ("2027-01-01", "2027-12-31"), "2027"),
        ("下个月迁移。", ("2026-12-01", "2026-12-31"), "2026年12月"),
    ],
)
def test_ranges_get_a_range_never_a_one_day_date(text: str, span: tuple[str, str], replacement: str) -> None:
    (hit,) = dates.find_relative_dates(text, WRITTEN)
    assert hit.suggestion is None
    assert hit.span is not None and (hit.span[0].isoformat(), hit.span[1].isoformat()) == span
    assert hit.replacement == replacement


def _store(tmp_path: Path, files: dict[str, str]) -> Path:
    top = tmp_path / "app"
    write_files(top / "memory", files)
    init_repo(top, when=WRITTEN)  # the day the memories were written, whatever day the test runs
    return top / "memory"


def test_a_phrase_in_description_and_body_is_reported_once_at_its_body_line(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "project_freeze.md": memory(
                "project_freeze",
                "project",
                description="Deploy freeze starts next Thursday",
                body="Deploy freeze starts next Thursday.\n\n**Why:** QA.\n\n**How to apply:** hold merges next Thursday.",
            )
        },
    )
    report = check_store(load_store(store), TODAY, FileDates(first={"project_freeze.md": WRITTEN}, source="git"))
    found = [f for f in report.findings if f.kind == "relative-date"]
    assert len(found) == 1
    assert found[0].line == 7 and found[0].details["suggestion"] == "2026-11-26"
    assert found[0].details["replacement"] == "2026-11-26" and found[0].details["range"] is None


def test_check_reports_a_range_with_its_range_and_no_recurring_day(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "project_oncall.md": memory(
                "project_oncall",
                "project",
                description="On-call rota",
                body="Weekly handover on Monday.\n\nRota changed last month.\n\n**Why:** x\n\n**How to apply:** y",
            )
        },
    )
    report = check_store(load_store(store), TODAY, FileDates(first={"project_oncall.md": WRITTEN}, source="git"))
    found = [f for f in report.findings if f.kind == "relative-date"]
    assert [f.cue for f in found] == ["last month"]
    assert found[0].details["suggestion"] is None
    assert found[0].details["range"] == ["2026-10-01", "2026-10-31"]
    assert "October 2026" in found[0].message


def test_fix_proposals_say_what_fix_date_would_write_without_writing(tmp_path: Path) -> None:
    text = memory(
        "project_freeze",
        "project",
        description="Freeze next Thursday",
        body="Freeze next Thursday; we moved the date last month.\n\n**Why:** QA\n\n**How to apply:** wait",
    )
    proposals = dates.fix_proposals(text, WRITTEN)
    assert [(p.phrase, p.line, p.replacement) for p in proposals] == [
        ("next Thursday", 7, "2026-11-26"),
        ("last month", 7, "October 2026"),
    ]
    store = _store(tmp_path, {"project_freeze.md": text})
    ops.fix_date(store, "project_freeze.md", phrase="last month", today=TODAY)
    written = (store / "project_freeze.md").read_text()
    assert "we moved the date October 2026." in written  # the range said absolutely, never a single day
    assert "next Thursday" in written  # only the phrase asked for


def test_the_real_fix_date_refuses_a_recurring_day(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "project_oncall.md": memory(
                "project_oncall", "project", body="Weekly handover on Monday.\n\n**Why:** x\n\n**How to apply:** y"
            )
        },
    )
    head = git(store.parent, "rev-parse", "HEAD")
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "fix-date", str(store), "project_oncall.md"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert out.returncode == 1 and "no relative date" in out.stderr
    assert git(store.parent, "rev-parse", "HEAD") == head


@pytest.mark.parametrize(
    "line",
    [
        "- 周末 / 节假日不 append, 严格按 `wind_calendar.csv` 来",  # weekends and holidays in general
        "周末和节假日不发版",
        '`<enddate>` 永远 = "今天", 所以 `[-1]` 永远 NaN',  # the word named, in quotes
        'The column is literally "tomorrow" in the export',
    ],
)
def test_kinds_of_day_and_quoted_words_are_not_relative_dates(line: str) -> None:
    assert dates.find_relative_dates(line, dt.date(2026, 7, 20)) == []


def test_a_weekend_meant_once_is_still_a_relative_date() -> None:
    hits = dates.find_relative_dates("周末前完成部署", dt.date(2026, 7, 20))
    assert [(h.phrase, h.span) for h in hits] == [("周末", (dt.date(2026, 7, 25), dt.date(2026, 7, 26)))]


# ---------------------------------------------------------------------------------------------- a new user's trial
# On PinKushin__PokemonBattleJournal all 9 relative-date findings were wrong: "three times in one day" (a duration),
# "there is no duplicate detection today" (today meaning now), each counted from the day the file was put under git,
# so "tomorrow" could become a date in the future; and a dated heading above the phrase was not read.


@pytest.mark.parametrize(
    "text",
    [
        "Hit three times in one day, in escalating irony.",
        "## Three more instances in one day, and the pattern is now specific",
        "It hit twice in a day.",
        "**There is no duplicate detection today, at all.** Verified: importing the same log twice",
        "This is latent, not currently firing — the fixture lists match today. It is recorded because",
        "Moved to 16ms and it was kept. `FrameInterval` is\n16ms today.",
        "## Why the restore never merges today",
        "cannot stub it on the concrete type. Any error-path test today must cause a",
        "when a feature will be reached from two paths, build one thing, not two implementations that agree today.",
        "- **`StellarState` already has `v_rot_kms`** (unused/0 for MIST today) — surface the",
        "Detailed specs are on Monday.com tickets.",
        "四策略验证不会拿今天的候选池伪装成历史时点重新选股。",
    ],
)
def test_durations_today_meaning_now_and_names_are_not_relative_dates(text: str) -> None:
    assert dates.find_relative_dates(text, WRITTEN) == []


@pytest.mark.parametrize(
    "text",
    [
        "We fixed it today.",
        "Merged today.",
        "Today we shipped the fix.",
        "As of today the API is v2.",
        "Ship it today.",
        "The release is today.",
        "Today is the last day of the freeze.",
        "Tonight proved it twice: the depth buffer was 32-bit.",
        "Call the vendor back in a week.",
        "今天主要修复搜索和自选股。",
    ],
)
def test_today_said_of_a_day_is_still_a_relative_date(text: str) -> None:
    assert len(dates.find_relative_dates(text, WRITTEN)) == 1


def _relative(store: Path, today: dt.date = TODAY) -> list[dict[str, object]]:
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(store), "--json", "--today", today.isoformat()],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    data = json.loads(out.stdout)
    return [f for f in data["findings"] if f["kind"] == "relative-date"]


def test_a_dated_heading_above_the_phrase_is_the_day_it_counts_from(tmp_path: Path) -> None:
    """A log that grows by dated sections: 'tomorrow' under '## 2026-03-04 session' is 2026-03-05, whatever day the
    file was first committed (here 2026-11-22) and whatever its front matter says."""
    body = "## 2026-03-04 session\n\nThe vendor call is tomorrow.\n\n**Why:** x\n\n**How to apply:** y"
    store = _store(tmp_path, {"project_log.md": memory("project_log", "project", body=body, created="2026-02-01")})
    (found,) = _relative(store)
    assert found["details"]["suggestion"] == "2026-03-05"  # type: ignore[index]
    assert found["details"]["base_source"] == 'the heading "## 2026-03-04 session"'  # type: ignore[index]
    result = ops.fix_date(store, "project_log.md", today=TODAY)
    assert "The vendor call is 2026-03-05." in (store / "project_log.md").read_text()
    assert result.shown == (
        "line 10: - The vendor call is tomorrow.",
        "line 10: + The vendor call is 2026-03-05.",
    )
    assert "heading" in head_reason(store)


def test_the_front_matter_date_comes_before_the_first_commit(tmp_path: Path) -> None:
    body = "Freeze starts tomorrow.\n\n**Why:** QA\n\n**How to apply:** wait"
    store = _store(tmp_path, {"project_f.md": memory("project_f", "project", body=body, created="2026-10-05")})
    (found,) = _relative(store)
    assert found["details"]["suggestion"] == "2026-10-06"  # type: ignore[index]
    assert "front matter `created`" in str(found["message"])


def head_reason(store: Path) -> str:
    return git(store.parent, "log", "-1", "--format=%(trailers:key=Memtui-Reason,valueonly)").strip()


def test_a_store_memtui_init_just_put_under_git_gets_no_confident_date(tmp_path: Path) -> None:
    """The trial's store: copied, then `memtui init` — every file's first commit is today. That day is when git saw
    the file, not when it was written: the finding says the day is unknown and offers no date, and fix-date writes
    nothing until it is given one; then it prints the line before and after."""
    store = tmp_path / "p" / "memory"
    write_files(store, {"project_n.md": memory("project_n", "project", body="Tonight proved it twice.")})
    ops.init(store)
    (found,) = _relative(store, dt.date.today())
    assert found["details"]["suggestion"] is None and found["details"]["base_certain"] is False  # type: ignore[index]
    assert "memtui init put it under git" in str(found["message"]) and "no date offered" in str(found["message"])
    head = git(store.parent, "rev-parse", "HEAD")
    run = [sys.executable, "-m", "memtui", "fix-date", str(store), "project_n.md"]
    refused = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "--date" in refused.stderr and git(store.parent, "rev-parse", "HEAD") == head
    done = subprocess.run([*run, "--date", "2026-08-06"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "- Tonight proved it twice." in done.stdout and "+ 2026-08-06 proved it twice." in done.stdout


def test_a_future_date_from_the_first_commit_alone_is_not_offered_but_a_dated_deadline_is(tmp_path: Path) -> None:
    """'tomorrow' counted from a first commit made today may be counted from the day a store was copied: no date is
    offered. The same phrase under a front-matter date is a deadline ahead, offered and written; the person may
    always give the date."""
    body = "Freeze starts tomorrow.\n\n**Why:** QA\n\n**How to apply:** wait"
    dated = memory("project_g", "project", body=body).replace("type: project\n", "type: project\ncreated: 2026-11-22\n")
    store = _store(tmp_path, {"project_f.md": memory("project_f", "project", body=body), "project_g.md": dated})
    found = {f["paths"][0]: f for f in _relative(store, WRITTEN)}  # checked the day it was written
    first = found["project_f.md"]["details"]
    assert first["suggestion"] is None and first["after_today"] == "2026-11-23"  # type: ignore[index]
    assert "after today" in str(found["project_f.md"]["message"])
    with pytest.raises(ops.OpError, match="after today"):
        ops.fix_date(store, "project_f.md", today=WRITTEN)
    assert "tomorrow" in (store / "project_f.md").read_text()
    assert found["project_g.md"]["details"]["suggestion"] == "2026-11-23"  # type: ignore[index]
    ops.fix_date(store, "project_g.md", today=WRITTEN)
    assert "Freeze starts 2026-11-23." in (store / "project_g.md").read_text()
    ops.fix_date(store, "project_f.md", date=dt.date(2026, 11, 23), today=WRITTEN)
    assert "Freeze starts 2026-11-23." in (store / "project_f.md").read_text()


FREEZE = memory(
    "project_deploy_freeze",
    "project",
    description="Deploy freeze for the year-end close starts next Thursday",
    body="Deploy freeze for the year-end financial close starts next Thursday and lasts two weeks.\n\n"
    "**Why:** Finance closes the books.\n\n**How to apply:** Ship anything risky before the freeze.",
    created="2026-11-21",
)


def test_the_preview_names_every_line_the_fix_writes(tmp_path: Path) -> None:
    """Demo, project_deploy_freeze: the dialog showed the body line only, and the commit also rewrote the
    description. The preview names both lines, before and after, and the fix writes those and nothing else."""
    store = _store(tmp_path, {"project_deploy_freeze.md": FREEZE})
    before = (store / "project_deploy_freeze.md").read_text()
    preview = ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY)
    assert (store / "project_deploy_freeze.md").read_text() == before  # a preview writes nothing
    assert preview.phrase == "next Thursday" and preview.proposal == "2026-11-26" and preview.numbers == (3, 8)
    assert preview.shown("2026-11-26") == (
        "line 3: - description: Deploy freeze for the year-end close starts next Thursday",
        "line 3: + description: Deploy freeze for the year-end close starts 2026-11-26",
        "line 8: - Deploy freeze for the year-end financial close starts next Thursday and lasts two weeks.",
        "line 8: + Deploy freeze for the year-end financial close starts 2026-11-26 and lasts two weeks.",
    )
    result = ops.fix_date(
        store, "project_deploy_freeze.md", date=dt.date(2026, 11, 26), lines=preview.numbers, today=TODAY
    )
    assert result.shown == preview.shown("2026-11-26")
    changed = [
        (n, old, new)
        for n, (old, new) in enumerate(
            zip(before.split("\n"), (store / "project_deploy_freeze.md").read_text().split("\n"), strict=True), 1
        )
        if old != new
    ]
    assert [n for n, _, _ in changed] == [3, 8]


def test_the_preview_reads_history_through_the_workspaces_handle_again_only_when_head_moved(
    tmp_path: Path, git_calls: list[str]
) -> None:
    """`f` opened a new repository handle each time, so every preview read the whole history again (0.2-0.4 s on
    5,000 commits). With the workspace's handle it reuses the file dates its analysis read, and reads them again
    only after HEAD moved; the preview is the same either way."""
    from memtui.workspace import analyse, open_store

    undated = FREEZE.replace("created: 2026-11-21\n", "")  # counted from its commit: the file dates matter
    store = _store(tmp_path, {"project_deploy_freeze.md": undated, "project_other.md": memory("other", "project")})
    ws = analyse(open_store(store, today=TODAY))
    assert ws.repo is not None
    fresh = ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY)
    assert fresh.base is not None and fresh.base.date == WRITTEN
    git_calls.clear()
    assert ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY, repo=ws.repo) == fresh
    assert "log" not in git_calls  # the file dates the analysis read
    ops.verify(store, "project_other.md", today=TODAY)
    git_calls.clear()
    assert ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY, repo=ws.repo) == fresh
    assert git_calls.count("log") == 1  # HEAD moved: read again, once
    ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY, repo=ws.repo)
    assert git_calls.count("log") == 1
    elsewhere = tmp_path / "elsewhere"
    write_files(elsewhere / "memory", {"project_x.md": memory("x", "project")})
    init_repo(elsewhere)
    wrong = analyse(open_store(elsewhere / "memory", today=TODAY)).repo
    assert ops.fix_date_preview(store, "project_deploy_freeze.md", today=TODAY, repo=wrong) == fresh  # not its own


def test_a_date_given_that_is_the_proposal_is_recorded_as_counted_from_its_day(tmp_path: Path) -> None:
    """The TUI always passes the date the person confirmed; accepting memtui's proposal was recorded as
    "(the date given)", as if the person had worked it out. A different date is the person's own."""
    store = _store(
        tmp_path,
        {"project_deploy_freeze.md": FREEZE, "project_other.md": FREEZE.replace("project_deploy_freeze", "other")},
    )
    ops.fix_date(store, "project_deploy_freeze.md", date=dt.date(2026, 11, 26), today=TODAY)
    assert head_reason(store) == '"next Thursday" → 2026-11-26 (counted from 2026-11-21, front matter `created`)'
    ops.fix_date(store, "project_other.md", date=dt.date(2026, 12, 3), today=TODAY)
    assert head_reason(store) == '"next Thursday" → 2026-12-03 (the date given)'


def test_a_fix_changes_only_the_lines_shown_not_the_same_phrase_from_another_day(tmp_path: Path) -> None:
    """1Skip's bug_fixes_and_context_2026-05-14.md: fixing 今天 on line 11 also rewrote 今天 on line 110, a line
    nobody was shown (and 今天 under another dated heading is another day). The preview names every line one fix
    writes: each 今天 counted from the same heading (lines 9 and 13), not the one under another (line 17), which is
    its own fix."""
    body = (
        "# 2026-05-14 更新记录\n\n今天主要修复 Web 端交互。\n\n## 验证记录\n\n今天按功能点多次运行测试。\n\n"
        "## 2026-05-15 补充\n\n今天补了文档。\n\n**Why:** x\n\n**How to apply:** y"
    )
    name = "bug_fixes_and_context_2026-05-14"
    store = _store(tmp_path, {f"{name}.md": memory(name, "project", description="5/14 修复记录", body=body)})
    path = store / f"{name}.md"
    original = path.read_text()
    preview = ops.fix_date_preview(store, f"{name}.md", today=TODAY)
    assert preview.numbers == (9, 13) and preview.others == (17,)
    ops.fix_date(store, f"{name}.md", lines=preview.numbers, today=TODAY)
    assert path.read_text() == original.replace("今天主要", "2026-05-14主要").replace("今天按", "2026-05-14按")
    preview = ops.fix_date_preview(store, f"{name}.md", today=TODAY)  # the next one is its own decision
    assert preview.numbers == (17,) and preview.proposal == "2026-05-15"
    with pytest.raises(ops.OpError, match="not the line"):  # what the person was shown no longer matches
        ops.fix_date(store, f"{name}.md", lines=(9, 13), today=TODAY)
    ops.fix_date(store, f"{name}.md", lines=preview.numbers, today=TODAY)
    assert "2026-05-15补了文档" in path.read_text()  # counted from its own heading


def test_a_fix_replaces_the_occurrence_found_not_a_look_alike_before_it(tmp_path: Path) -> None:
    """ "today's numbers" is not a date (the analysis skips it); the fix replaced the first "today" on the line
    all the same, writing "2026-11-20's numbers" and leaving the date it was asked to fix."""
    body = "Check today's numbers before we ship; the hotfix went out today.\n\n**Why:** x\n\n**How to apply:** y"
    store = _store(tmp_path, {"project_x.md": memory("project_x", "project", body=body, created="2026-11-20")})
    result = ops.fix_date(store, "project_x.md", today=TODAY)
    assert (
        "Check today's numbers before we ship; the hotfix went out 2026-11-20." in (store / "project_x.md").read_text()
    )
    assert result.shown[1] == "line 8: + Check today's numbers before we ship; the hotfix went out 2026-11-20."
