"""Relative dates ("tomorrow", "next Thursday", "明天") that mean nothing a week later, with a suggested absolute date."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from dataclasses import dataclass

from memtui.analysis.text import Corpus

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_ABSOLUTE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{1,2}/\d{1,2}\b|\d{4}年\d{1,2}月\d{1,2}日")
_FENCE = re.compile(r"^\s*(```|~~~)")

_EN = re.compile(
    r"(?i)\b(?P<phrase>"
    r"(?:the\s+)?day\s+after\s+tomorrow|tomorrow|yesterday|today|tonight|"
    r"(?P<rel>this|next|last|coming)\s+(?P<unit>week(?:end)?|month|year|" + "|".join(WEEKDAYS) + r")|"
    r"in\s+(?P<n>\d+|a|one|two|three)\s+(?P<unit2>days?|weeks?|months?)|"
    r"(?P<n3>\d+|a|one|two|three)\s+(?P<unit3>days?|weeks?|months?)\s+ago|"
    r"end\s+of\s+(?:the\s+)?(?P<eo>week|month)|"
    r"(?:on|by|until|before|after)\s+(?P<wd>" + "|".join(WEEKDAYS) + r")"
    r")\b(?!s\b|['’]s\b)"
)
_ZH = re.compile(
    r"(?P<phrase>大后天|后天|明天|今天|昨天|前天|今晚|明早|"
    r"(?P<zrel>下|上|本|这|下个|上个|这个)(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天])?|"
    r"(?P<zmrel>下个|上个|这个|本)月(?!\d)|月底|周末|明年|去年|今年)"
)
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3}


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class RelativeDate:
    """A relative date phrase found in a memory, with the absolute date (or span of days) it most likely meant.

    "tomorrow" and "next Thursday" name one day (`suggestion`); "last month", "this week" and "明年" name a
    range (`span`, first and last day, and no one-day `suggestion`): proposing a single day for them would
    write something the memory never said.
    """

    phrase: str
    line: int
    suggestion: dt.date | None
    span: tuple[dt.date, dt.date] | None = None

    @property
    def replacement(self) -> str | None:
        """The text `fix-date` puts in place of the phrase: an ISO date, or the range said absolutely."""
        if self.suggestion is not None:
            return self.suggestion.isoformat()
        if self.span is None:
            return None
        first, last = self.span
        chinese = any("\u4e00" <= ch <= "\u9fff" for ch in self.phrase)
        if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31):
            return f"{first.year}年" if chinese else str(first.year)
        if first.day == 1 and last == _month_end(first):
            return f"{first.year}年{first.month}月" if chinese else f"{_MONTHS[first.month - 1]} {first.year}"
        if chinese:
            return f"{first.isoformat()}—{last.isoformat()}"
        return f"the {'weekend' if first.weekday() == 5 else 'week'} of {first.isoformat()}"


def _next_weekday(anchor: dt.date, weekday: int, *, strictly_next_week: bool = False) -> dt.date:
    days = (weekday - anchor.weekday()) % 7
    if strictly_next_week:
        monday_next = anchor + dt.timedelta(days=7 - anchor.weekday())
        return monday_next + dt.timedelta(days=weekday)
    return anchor + dt.timedelta(days=days or 7)


def _month_end(anchor: dt.date) -> dt.date:
    first_next = (anchor.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    return first_next - dt.timedelta(days=1)


Resolved = dt.date | tuple[dt.date, dt.date] | None


def _week(monday: dt.date) -> tuple[dt.date, dt.date]:
    return monday, monday + dt.timedelta(days=6)


def _month(year: int, month0: int) -> tuple[dt.date, dt.date]:
    first = dt.date(year + month0 // 12, month0 % 12 + 1, 1)
    return first, _month_end(first)


def _year(year: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, 1, 1), dt.date(year, 12, 31)


def _resolve_en(m: re.Match[str], anchor: dt.date) -> Resolved:
    phrase = m.group("phrase").lower()
    if "after tomorrow" in phrase:
        return anchor + dt.timedelta(days=2)
    simple = {"tomorrow": 1, "yesterday": -1, "today": 0, "tonight": 0}
    if phrase in simple:
        return anchor + dt.timedelta(days=simple[phrase])
    if m.group("rel"):
        rel, unit = m.group("rel").lower(), m.group("unit").lower()
        if unit in WEEKDAYS:
            wd = WEEKDAYS.index(unit)
            if rel == "last":
                return anchor - dt.timedelta(days=((anchor.weekday() - wd) % 7) or 7)
            return _next_weekday(anchor, wd, strictly_next_week=rel == "next")
        step = {"last": -1, "this": 0, "coming": 1, "next": 1}[rel]
        if unit.startswith("week"):
            monday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(weeks=step)
            saturday = monday + dt.timedelta(days=5)
            return (saturday, saturday + dt.timedelta(days=1)) if unit == "weekend" else _week(monday)
        if unit == "month":
            return _month(anchor.year, anchor.month - 1 + step)
        return _year(anchor.year + step)
    count_text = m.group("n") or m.group("n3")
    if count_text:
        count = _NUMBERS.get(count_text.lower()) or int(count_text)
        unit = (m.group("unit2") or m.group("unit3")).lower()
        days = count * {"d": 1, "w": 7, "m": 30}[unit[0]]
        return anchor + dt.timedelta(days=days if m.group("n") else -days)
    if m.group("eo"):
        if m.group("eo").lower() == "week":
            return anchor + dt.timedelta(days=4 - anchor.weekday()) if anchor.weekday() <= 4 else anchor
        return _month_end(anchor)
    if m.group("wd"):
        return _next_weekday(anchor, WEEKDAYS.index(m.group("wd").lower()))
    return None


def _resolve_zh(m: re.Match[str], anchor: dt.date) -> Resolved:
    phrase = m.group("phrase")
    simple = {"今天": 0, "今晚": 0, "明天": 1, "明早": 1, "后天": 2, "大后天": 3, "昨天": -1, "前天": -2}
    if phrase in simple:
        return anchor + dt.timedelta(days=simple[phrase])
    if m.group("zrel"):
        step = {"下": 1, "下个": 1, "上": -1, "上个": -1, "本": 0, "这": 0, "这个": 0}[m.group("zrel")]
        monday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(weeks=step)
        wd = m.group("zwd")
        return monday + dt.timedelta(days=ZH_WEEKDAYS[wd]) if wd else _week(monday)
    if m.group("zmrel"):
        step = {"下个": 1, "上个": -1, "这个": 0, "本": 0}[m.group("zmrel")]
        return _month(anchor.year, anchor.month - 1 + step)
    if phrase == "月底":
        return _month_end(anchor)
    if phrase == "周末":
        saturday = anchor + dt.timedelta(days=(5 - anchor.weekday()) % 7)
        return saturday, saturday + dt.timedelta(days=1)
    if phrase in ("明年", "去年", "今年"):
        return _year(anchor.year + {"明年": 1, "去年": -1, "今年": 0}[phrase])
    return None


_MARKERS = (
    "tomorrow",
    "yesterday",
    "today",
    "tonight",
    "next ",
    "last ",
    "this ",
    "coming ",
    " ago",
    "end of",
    "weekend",
    *WEEKDAYS,
    "天",
    "周",
    "星期",
    "礼拜",
    "月",
    "年",
    "晚",
    "早",
)
_IN_N = re.compile(r"\bin\s+(?:\d+|a|one|two|three)\s+(?:day|week|month)", re.IGNORECASE)


def suspects(texts: list[str]) -> set[int]:
    """Indexes of the texts that may hold a relative date, found in one pass over all of them."""
    corpus = Corpus(texts)
    found = corpus.holders(_MARKERS)
    found |= {corpus.owner(m.start()) for m in _IN_N.finditer(corpus.joined)}
    return found


def _may_hold_relative_date(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in _MARKERS) or (" in " in low and _IN_N.search(text) is not None)


# A sentence that says the thing recurs: "weekly handover on Monday" is a schedule, not a date to fix.
_RECURRING = re.compile(
    r"(?i)\b(?:every|each|weekly|bi-?weekly|fortnightly|daily|nightly|monthly|recurring|routinely|usually|always)\b"
    r"|每|各"
)
_SENTENCE_END = re.compile(r"[.;!?。；！？]")
_TIME_OF_DAY_PLURAL = re.compile(r"(?i)(?<!\s)\s++(?:mornings|afternoons|evenings|nights)\b")


def _hit(phrase: str, line: int, resolved: Resolved) -> RelativeDate:
    if isinstance(resolved, tuple):
        return RelativeDate(phrase, line, None, resolved)
    return RelativeDate(phrase, line, resolved)


def find_relative_dates(text: str, anchor: dt.date | None) -> list[RelativeDate]:
    """Relative date phrases on lines that carry no absolute date, outside code blocks.

    Not reported: recurring days ("every Friday", "on Mondays", "weekly handover on Monday", "每周一").
    Reported with a `span` instead of a one-day date: ranges ("this week", "last month", "明年").
    """
    found: list[RelativeDate] = []
    if not _may_hold_relative_date(text):
        return found
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or _ABSOLUTE.search(line):
            continue
        clean = re.sub(r"`[^`]*`", "", line)
        ends = [m.start() for m in _SENTENCE_END.finditer(clean)]
        for m in _EN.finditer(clean):
            before = clean[max(0, m.start() - 12) : m.start()].lower()
            if re.search(r"\b(every|each)\s+$", before):
                continue  # "every Monday" is a schedule, not a date
            if m.group("wd") and (
                _recurs(clean, ends, m.start(), m.end()) or _TIME_OF_DAY_PLURAL.match(clean, m.end())
            ):
                continue  # "weekly handover on Monday", "on Monday mornings"
            if _quoted(clean, m.start("phrase"), m.end("phrase")):
                continue  # 'the field is "today"' names the word, it dates nothing
            found.append(_hit(m.group("phrase"), number, _resolve_en(m, anchor) if anchor else None))
        for m in _ZH.finditer(clean):
            if clean[max(0, m.start() - 1) : m.start()] in ("每", "各"):
                continue
            if _quoted(clean, m.start(), m.end()) or (m.group("phrase") == "周末" and _kind_of_day(clean, m)):
                continue  # "周末 / 节假日不 append" is a kind of day, not one weekend
            found.append(_hit(m.group("phrase"), number, _resolve_zh(m, anchor) if anchor else None))
    return found


_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』"}
_DAY_KINDS = re.compile(r"节假日|假日|工作日|交易日|休息日|节日")
_LIST_MARK = re.compile(r"[/、]|和|或|及|与")


def _quoted(line: str, start: int, end: int) -> bool:
    """The phrase alone between quotes: a word named, not a day meant."""
    opening = line[start - 1 : start] if start else ""
    return bool(opening) and opening in _QUOTES and line[end : end + 1] == _QUOTES[opening]


def _kind_of_day(line: str, m: re.Match[str]) -> bool:
    """周末 listed beside other kinds of day (节假日, 工作日) or with a list mark: weekends in general."""
    near = line[max(0, m.start() - 3) : m.end() + 3]
    return _DAY_KINDS.search(line) is not None or _LIST_MARK.search(near) is not None


def _recurs(line: str, ends: list[int], start: int, end: int) -> bool:
    """Whether the sentence around line[start:end] says it recurs (sentence ends found once per line)."""
    at = bisect.bisect_left(ends, start)
    first = ends[at - 1] + 1 if at else 0
    last = ends[at] if at < len(ends) else len(line)
    return _RECURRING.search(line, first, last) is not None


def unique_phrases(hits: list[RelativeDate], body_line: int = 2) -> list[RelativeDate]:
    """One hit per phrase (case-insensitive): a description and its body often repeat it; fix-date replaces both.

    The hit kept is the first one at or after `body_line` (where the body starts, a line a person can be
    shown), with the date the first occurrence resolved to.
    """
    by_phrase: dict[str, RelativeDate] = {}
    for hit in hits:
        key = hit.phrase.lower()
        kept = by_phrase.get(key)
        if kept is None:
            by_phrase[key] = hit
        elif kept.line < body_line <= hit.line:
            by_phrase[key] = RelativeDate(kept.phrase, hit.line, kept.suggestion, kept.span)
    return list(by_phrase.values())


def fix_proposals(text: str, anchor: dt.date | None) -> list[RelativeDate]:
    """What `fix-date` would do to a memory file's whole text, without writing: one proposal per phrase.

    Each proposal has the phrase, its line in the file (in the body when the phrase is also there), either
    a one-day `suggestion` or a `span` for a range, and the `replacement` text. The TUI's `f` dialog shows
    these and asks before `ops.fix_date(store, file, phrase=..., date=...)` writes anything.
    """
    from memtui.core.frontmatter import FrontMatterError, split_block

    try:
        body_offset = split_block(text)[1]
    except FrontMatterError:
        body_offset = 0
    return unique_phrases(find_relative_dates(text, anchor), text.count("\n", 0, body_offset) + 1)
