"""The day a memory's line was most likely written: what a relative date ("tomorrow", "今天") is counted from.

A dated heading above the line, a date in the memory's name, the front matter's dates of writing, the file's first
commit — and, when none can be trusted, an honest "not known" rather than a confident wrong day.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

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


def base_for(text: str, line: int, known: WritingDates, *, name: str = "", file_name: str = "") -> Base:
    """The day the text at `line` was most likely written, to count its relative dates from, best source first.

    1. a dated heading enclosing the line ("## 2026-03-04 session": notes that grow by dated sections);
    2. a date in the memory's name or file name (`session_2026_08_06.md`, "bug fixes and context 2026-05-14");
    3. the front matter's dates of writing (`created`, `updated`, `modified`): certain when they name one day;
    4. the file's first commit, certain when the file has not changed on another day since;
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
