"""The day a memory's line was most likely written: what a relative date ("tomorrow", "今天") is counted from.

A dated heading above the line, a date in the memory's name, the commit that wrote the phrase on its line (git's
line history, asked only when the file's own dates leave the day open), the front matter's dates of writing, the
file's first commit — and, when none can be trusted, an honest "not known" rather than a confident wrong day.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from memtui.core.freshness import days_named

_FENCE = re.compile(r"^\s*(```|~~~)")


FIRST_COMMIT = "the file's first commit"
"""`Base.source` when the day is the file's first commit: possibly the day a store was copied into a new repository."""


@dataclass(frozen=True)
class Base:
    """The day a relative date was most likely written, counted from: where that day came from, and whether it can
    be trusted. An uncertain base gives no suggested date: a confident wrong fix is worse than none."""

    date: dt.date | None
    source: str
    """In words: 'the heading "## 2026-03-04 session"', 'front matter `created`', "the file's first commit", …"""
    certain: bool
    git_may_tell: bool = field(default=False, compare=False)
    """Not certain, from the file's dates alone (its front matter, its commits), while git has commits that wrote
    it: the commit that wrote the phrase on its line may tell (`LineWritten`, asked for in `WritingDates.lines`)."""


LINE_COMMIT = "the commit that wrote its line"
"""`Base.source` when the day is that of the commit that wrote the phrase on its line (`LineWritten.date`)."""
LINE_UNCOMMITTED = "its line, written since the last commit"
"""`Base.source` when the phrase was written since the last commit: the day memtui records that write (today)."""


@dataclass(frozen=True)
class LineWritten:
    """What git's line history says of when a relative date was written on its line (`StoreRepo.lines_written`):
    the commit that put the phrase there, following the line back through the commits that changed it while it
    said the phrase (a typo fixed, another phrase on it fixed) and through memtui's commits that write no new
    meaning (fix-date, archive, restore, undo, redo)."""

    date: dt.date | None = None
    """The day of the commit that wrote the phrase, a commit after the one that put the file under git (or, for a
    phrase not committed yet, the day memtui records it: `FileDates.pending`)."""
    uncommitted: bool = False
    """The phrase was written since the last commit."""
    with_file: bool = False
    """The phrase has been on its line since the file came under git (its first commit, or memtui's init): the
    file's later commits did not write it, so they say nothing of its day."""
    unknown: str = ""
    """Why git cannot tell, in words ("its line came in with a merge on 2026-08-01"); empty when it can."""


@dataclass(frozen=True)
class WritingDates:
    """What is known about when a memory's text was written, besides the text itself."""

    front: tuple[tuple[str, dt.date], ...] = ()
    """Front-matter dates of writing (`created`, `updated`, `modified`, `timestamp`), key and day."""
    first_commit: dt.date | None = None
    last_commit: dt.date | None = None
    """The file's first and last writing commits (memtui's init is neither)."""
    added: dt.date | None = None
    """The day memtui's init put the file under git: it was written on or before it, nobody knows when."""
    mtime: dt.date | None = None
    lines: Mapping[tuple[int, str], LineWritten] = field(default_factory=dict, compare=False)
    """Git's line history of the relative dates whose day the file's dates leave open: (line of the text
    `base_for` reads, the phrase in lower case) → what the commit that wrote it says."""


_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")


def _written_again_after(known: WritingDates, day: dt.date) -> str | None:
    """The day (ISO) a commit wrote the file again after `day`, the front matter's one date (a day later at least:
    a commit made past midnight, or in another time zone, is the same writing); None when none did. A first
    commit alone is no writing again: a store put under git in one commit long after its memories were written."""
    last = known.last_commit
    if last is None or last <= day + dt.timedelta(days=1):
        return None
    again = known.added is not None or (known.first_commit is not None and known.first_commit < last)
    return last.isoformat() if again else None


def _dates_in(text: str) -> set[dt.date]:
    """The absolute dates written in a text (2026-03-04, 2026/3/4, 2026年3月4日, 2026년 3월 4일), as days."""
    found = set()
    for m in re.finditer(r"(\d{4})(?:[-/年]|년 ?)(\d{1,2})(?:[-/月]|월 ?)(\d{1,2})", text):
        try:
            found.add(dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))))
        except ValueError:
            continue
    return found


def _heading_base(lines: list[str], line: int) -> Base | None:
    """The day named by the nearest heading that encloses `line` and names one ("## 2026-03-04 session")."""
    headings: list[tuple[int, str]] = []
    in_code = False
    for text in lines[: line - 1]:
        if _FENCE.match(text):
            in_code = not in_code
        elif not in_code and (m := _HEADING.match(text)):
            headings.append((len(m.group(1)), text.strip()))
    level = 7
    for depth, heading in reversed(headings):
        if depth >= level:
            continue  # a sibling or a child of a heading already passed: it does not enclose the line
        level = depth
        days = _dates_in(heading)
        if len(days) == 1:
            return Base(days.pop(), f'the heading "{heading}"', True)
        if days:
            return Base(None, f'the heading "{heading}" names {len(days)} days', False)
    return None


def base_for(
    text: str, line: int, known: WritingDates, *, name: str = "", file_name: str = "", phrase: str = ""
) -> Base:
    """The day the text at `line` was most likely written, to count its relative dates from, best source first.

    1. a dated heading enclosing the line ("## 2026-03-04 session": notes that grow by dated sections);
    2. a date in the memory's name or file name (`session_2026_08_06.md`, "bug fixes and context 2026-05-14");
    3. the commit that wrote `phrase` on the line, when `known.lines` says (asked for when the rest leaves the day
       open, `Base.git_may_tell`): a commit after the file's first is the day (a front-matter date that day or the
       day before is the writer's own word for it); a phrase there since the file came under git leaves the
       file's later commits out of the rest;
    4. the front matter's dates of writing (`created`, `updated`, `modified`): certain when they name one day;
    5. the file's first commit, certain when the file has not changed on another day since;
    Uncertain: several days from the front matter or the commits, a file memtui's init put under git (it was
    written some day before), the file's mtime (copies and checkouts reset it), nothing at all.
    """
    lines = text.splitlines()
    heading = _heading_base(lines, line)
    if heading is not None:
        return heading
    for label, value in (("name", name), ("file name", file_name)):
        days = days_named(value)
        if len(days) == 1:
            return Base(days.pop(), f'the {label} "{value}"', True)
    told = known.lines.get((line, phrase.lower())) if phrase else None
    if told is not None:
        if told.date is not None:
            return _line_base(told.date, known, LINE_UNCOMMITTED if told.uncommitted else LINE_COMMIT)
        if told.unknown:
            return Base(None, told.unknown, False)
        if told.with_file:  # the commits after the first did not write this line: the file's own dates say
            known = replace(known, last_commit=known.first_commit)
    base = _file_base(known)
    if not base.certain and known.last_commit is not None and told is None:
        return replace(base, git_may_tell=True)
    return base


def _line_base(day: dt.date, known: WritingDates, source: str) -> Base:
    """The day a commit after the file's first wrote the phrase: a front-matter date of that day or the day
    before is the writer's own word for it (a commit made past midnight, or in another time zone); else the
    commit's day."""
    for key, front in known.front:
        if front in (day, day - dt.timedelta(days=1)):
            return Base(front, f"front matter `{key}`", True)
    return Base(day, source, True)


def _file_base(known: WritingDates) -> Base:
    """The day the file's own dates say it was written: its front matter, else its commits (`base_for`, 4-5)."""
    if known.front:
        days = {day for _, day in known.front}
        keys = " and ".join(f"`{key}`" for key, _ in known.front)
        if len(days) == 1:
            day = days.pop()
            later = _written_again_after(known, day)
            if later is not None:
                # a line the agent added later sits under a front matter it did not update: which day it was
                # written is not known (a new user's "last week", written today, was dated from August)
                return Base(
                    None,
                    f"front matter {keys} says {day.isoformat()}, but the file was written again on {later}",
                    False,
                )
            return Base(day, f"front matter {keys}", True)
        first, last = min(days), max(days)
        return Base(None, f"front matter {keys} say {first.isoformat()} to {last.isoformat()}", False)
    if known.first_commit is not None:
        if known.last_commit is None or known.last_commit == known.first_commit:
            return Base(known.first_commit, FIRST_COMMIT, True)
        return Base(
            None,
            f"the file was committed on {known.first_commit.isoformat()} and changed on {known.last_commit.isoformat()}",
            False,
        )
    if known.added is not None:
        return Base(None, f"memtui init put it under git on {known.added.isoformat()}; it was written before", False)
    if known.mtime is not None:
        return Base(None, f"only the file's time, {known.mtime.isoformat()}, which copies and checkouts reset", False)
    return Base(None, "nothing says when it was written", False)
