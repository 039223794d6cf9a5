"""Relative dates ("tomorrow", "next Thursday", "明天") that mean nothing a week later, with a suggested absolute date."""

from __future__ import annotations

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
    r"(?P<rel>this|next|last|coming)\s+(?P<unit>week(?:end)?|month|year|"
    + "|".join(WEEKDAYS)
    + r")|"
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


@dataclass(frozen=True)
class RelativeDate:
    """A relative date phrase found in a memory, with the absolute date it most likely meant."""

    phrase: str
    line: int
    suggestion: dt.date | None


def _next_weekday(anchor: dt.date, weekday: int, *, strictly_next_week: bool = False) -> dt.date:
    days = (weekday - anchor.weekday()) % 7
    if strictly_next_week:
        monday_next = anchor + dt.timedelta(days=7 - anchor.weekday())
        return monday_next + dt.timedelta(days=weekday)
    return anchor + dt.timedelta(days=days or 7)


def _month_end(anchor: dt.date) -> dt.date:
    first_next = (anchor.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    return first_next - dt.timedelta(days=1)


def _resolve_en(m: re.Match[str], anchor: dt.date) -> dt.date | None:
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
            return monday + dt.timedelta(days=5) if unit == "weekend" else monday
        if unit == "month":
            month = anchor.month - 1 + step
            return dt.date(anchor.year + month // 12, month % 12 + 1, 1)
        return dt.date(anchor.year + step, 1, 1)
    count_text = m.group("n") or m.group("n3")
    if count_text:
        count = _NUMBERS.get(count_text.lower(), None) or int(count_text)
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


def _resolve_zh(m: re.Match[str], anchor: dt.date) -> dt.date | None:
    phrase = m.group("phrase")
    simple = {"今天": 0, "今晚": 0, "明天": 1, "明早": 1, "后天": 2, "大后天": 3, "昨天": -1, "前天": -2}
    if phrase in simple:
        return anchor + dt.timedelta(days=simple[phrase])
    if m.group("zrel"):
        step = {"下": 1, "下个": 1, "上": -1, "上个": -1, "本": 0, "这": 0, "这个": 0}[m.group("zrel")]
        monday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(weeks=step)
        wd = m.group("zwd")
        return monday + dt.timedelta(days=ZH_WEEKDAYS[wd]) if wd else monday
    if m.group("zmrel"):
        step = {"下个": 1, "上个": -1, "这个": 0, "本": 0}[m.group("zmrel")]
        month = anchor.month - 1 + step
        return dt.date(anchor.year + month // 12, month % 12 + 1, 1)
    if phrase == "月底":
        return _month_end(anchor)
    if phrase == "周末":
        return anchor + dt.timedelta(days=(5 - anchor.weekday()) % 7)
    if phrase in ("明年", "去年", "今年"):
        return dt.date(anchor.year + {"明年": 1, "去年": -1, "今年": 0}[phrase], 1, 1)
    return None


_MARKERS = ("tomorrow", "yesterday", "today", "tonight", "next ", "last ", "coming ", " ago", "end of", "weekend",
            *WEEKDAYS, "天", "周", "星期", "礼拜", "月", "年", "晚", "早")
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


def find_relative_dates(text: str, anchor: dt.date | None) -> list[RelativeDate]:
    """Relative date phrases on lines that carry no absolute date, outside code blocks."""
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
        for m in _EN.finditer(clean):
            before = clean[max(0, m.start() - 12) : m.start()].lower()
            if re.search(r"\b(every|each)\s+$", before):
                continue  # "every Monday" is a schedule, not a date
            found.append(RelativeDate(m.group("phrase"), number, _resolve_en(m, anchor) if anchor else None))
        for m in _ZH.finditer(clean):
            if clean[max(0, m.start() - 1) : m.start()] in ("每", "各"):
                continue
            found.append(RelativeDate(m.group("phrase"), number, _resolve_zh(m, anchor) if anchor else None))
    return found
