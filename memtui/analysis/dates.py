"""Relative dates ("tomorrow", "next Thursday", "明天", "다음 주 목요일", "来週の木曜日") that mean nothing a week later,
with a suggested absolute date."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from memtui.analysis.text import Corpus
from memtui.analysis.written import FIRST_COMMIT, Base, LineWritten, WritingDates, base_for
from memtui.core.model import Memory

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
KO_WEEKDAYS = {"월": 0, "화": 1, "수": 2, "목": 3, "금": 4, "토": 5, "일": 6}
JA_WEEKDAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_ABSOLUTE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{1,2}/\d{1,2}\b|\d{4}年\d{1,2}月\d{1,2}日|\d{4}년 ?\d{1,2}월 ?\d{1,2}일"
)
_FENCE = re.compile(r"^\s*(```|~~~)")

_EN = re.compile(
    r"(?i)\b(?P<phrase>"
    r"(?:the\s+)?day\s+after\s+tomorrow|tomorrow|yesterday|today|tonight|"
    r"(?P<rel>this|next|last|coming)\s+(?P<unit>week(?:end)?|month|year|" + "|".join(WEEKDAYS) + r")|"
    r"in\s+(?P<n>\d+|a|one|two|three)\s+(?P<unit2>days?|weeks?|months?)|"
    r"(?P<n3>\d+|a|one|two|three)\s+(?P<unit3>days?|weeks?|months?)\s+ago|"
    r"end\s+of\s+(?:the\s+)?(?P<eo>week|month)|"
    r"(?:on|by|until|before|after)\s+(?P<wd>" + "|".join(WEEKDAYS) + r")"
    r")\b(?!s\b|['’]s\b|\.\w)"  # not "Mondays", "today's", "Monday.com"
)
_ZH = re.compile(
    r"(?P<phrase>大后天|后天|明天|今天|昨天|前天|今晚|明早|"
    r"(?P<zrel>下|上|本|这|下个|上个|这个)(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天])?|"
    r"(?P<zmrel>下个|上个|这个|本)月(?!\d)|月底|周末|明年|去年|今年)"
)
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3}

# Korean: a word starts after a space or a mark (the lookbehind); what follows it in its word is checked in
# `_ko_kept` (particles only: 다음 주에 is next week, 다음 주제 the next topic).
_KO = re.compile(
    r"(?<![가-힣\d])(?P<phrase>"
    r"(?P<kday>그저께|어젯밤|어제|오늘|내일|모레)|"
    r"(?P<krel>다다음|이번|다음|지난|저번) ?주(?P<kend>말)?(?: ?(?P<kwd>[월화수목금토일])요일)?|"
    r"(?P<kmrel>다다음|이번|다음|지난|저번) ?달|"
    r"(?P<kyear>재작년|작년|올해|내년|내후년)|"
    r"(?:(?P<kn>\d+) ?(?P<ku>일|주일?|개월|달)|(?P<kw>한|두|세) ?(?P<ku2>주일?|달)|(?P<kd>이틀|사흘|나흘)) ?"
    r"(?P<kdir>전|후|뒤)"
    r")"
)
# Japanese, found only in a text written in Japanese (`_japanese`): Chinese writes 今日, 明日 and 昨日 too,
# mostly in names (今日推荐, 明日进化建议, 昨日换手前十). Not after another kanji (the lookbehind): 説明日本語,
# 優先月次, 将来年金 are other words.
_JA = re.compile(
    r"(?<![\u4e00-\u9fff々\d])(?P<phrase>"
    r"(?P<jday>一昨日|昨日(?!今日)|昨夜|今日(?!では|でも|的)|本日|今朝|今夜|今晩|明日(?![香葉])|明朝|明後日)|"
    r"(?P<jrel>再来|来|今|先々|先)週(?:(?P<jend>末)|の?(?P<jwd>[月火水木金土日])曜日?)?|"
    r"(?P<jmrel>再来|来|今|先々|先)月|"
    r"(?P<jyear>一昨年|昨年|来年|再来年)|"
    r"(?P<jn>\d+|[一二三四五六七八九十])(?P<ju>日|週間|週|[ヶヵかカケ箇]月)(?P<jdir>前(?![後半倒])|後(?![半回]))"
    r")"
)
_KANA = re.compile(r"[\u3041-\u3096\u30a1-\u30fa]")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _japanese(text: str) -> bool:
    """Whether a text is written in Japanese: a tenth of its kana and kanji at least are kana (half of
    fixed-cam-vr's memories and more), not a Chinese note naming one katakana word (ポケモン)."""
    if _KANA.search(text) is None:
        return False
    kana = len(_KANA.findall(text))
    return kana * 10 >= kana + len(_HAN.findall(text))


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
    base: Base | None = None
    """The day it was counted from and why (`dated_phrases`); None from `find_relative_dates`, which is given one."""
    withheld: str = ""
    """The date (or range) worked out but not offered: after today, counted from the file's first commit; empty
    otherwise."""
    column: int | None = field(default=None, compare=False)
    """Where the phrase starts on its line (0-based), so a fix replaces this occurrence and no other."""

    @property
    def replacement(self) -> str | None:
        """The text `fix-date` puts in place of the phrase: an ISO date, or the range said absolutely."""
        if self.suggestion is not None:
            return self.suggestion.isoformat()
        if self.span is None:
            return None
        return _span_text(*self.span, language=_language(self.phrase))


def _language(phrase: str) -> str:
    """The language a phrase says a range in: "ko", "ja" (a week: 来週, 今週末), "zh" (other kanji, which Japanese
    writes as Chinese does: 2026年10月) or "en"."""
    if any("\uac00" <= ch <= "\ud7a3" for ch in phrase):
        return "ko"
    if "週" in phrase:
        return "ja"
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in phrase) else "en"


_SPAN_MARKS = {"zh": "—", "ja": "〜", "ko": "~"}


def _span_text(first: dt.date, last: dt.date, *, language: str) -> str:
    """A span of days said absolutely, in the phrase's language: "2027", "October 2026", "the week of 2026-11-16",
    "2026年10月", "2026년 10월", "2026-11-16〜2026-11-22"."""
    year, month = first.year, first.month
    if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31):
        return {"en": str(year), "ko": f"{year}년"}.get(language, f"{year}年")
    if first.day == 1 and last == _month_end(first):
        return {"en": f"{_MONTHS[month - 1]} {year}", "ko": f"{year}년 {month}월"}.get(language, f"{year}年{month}月")
    if language == "en":
        return f"the {'weekend' if first.weekday() == 5 else 'week'} of {first.isoformat()}"
    return f"{first.isoformat()}{_SPAN_MARKS[language]}{last.isoformat()}"


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


def _week_of(anchor: dt.date, step: int, weekday: int | None = None, *, weekend: bool = False) -> Resolved:
    """The week `step` weeks from `anchor`'s (Monday to Sunday), its weekend, or one `weekday` of it."""
    monday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(weeks=step)
    if weekend:
        saturday = monday + dt.timedelta(days=5)
        return saturday, saturday + dt.timedelta(days=1)
    return monday + dt.timedelta(days=weekday) if weekday is not None else _week(monday)


def _counted(count: int, unit: str, ahead: bool, anchor: dt.date) -> dt.date:
    """`count` days (일, 日), weeks (주, 주일, 週, 週間) or months (of 30 days, as in English) before or after `anchor`."""
    days = count * (1 if unit in ("일", "日") else 7 if unit[0] in "주週" else 30)
    return anchor + dt.timedelta(days=days if ahead else -days)


_KO_STEPS = {"다다음": 2, "다음": 1, "이번": 0, "지난": -1, "저번": -1}
_KO_DAYS = {"그저께": -2, "어젯밤": -1, "어제": -1, "오늘": 0, "내일": 1, "모레": 2}
_KO_YEARS = {"재작년": -2, "작년": -1, "올해": 0, "내년": 1, "내후년": 2}
_KO_NATIVE = {"한": 1, "두": 2, "세": 3, "이틀": 2, "사흘": 3, "나흘": 4}


def _resolve_ko(m: re.Match[str], anchor: dt.date) -> Resolved:
    if m.group("kday"):
        return anchor + dt.timedelta(days=_KO_DAYS[m.group("kday")])
    if m.group("krel"):
        wd = m.group("kwd")
        weekday = KO_WEEKDAYS[wd] if wd else None
        return _week_of(anchor, _KO_STEPS[m.group("krel")], weekday, weekend=bool(m.group("kend")))
    if m.group("kmrel"):
        return _month(anchor.year, anchor.month - 1 + _KO_STEPS[m.group("kmrel")])
    if m.group("kyear"):
        return _year(anchor.year + _KO_YEARS[m.group("kyear")])
    ahead = m.group("kdir") != "전"
    if m.group("kd"):
        return _counted(_KO_NATIVE[m.group("kd")], "일", ahead, anchor)
    count = int(m.group("kn")) if m.group("kn") else _KO_NATIVE[m.group("kw")]
    return _counted(count, m.group("ku") or m.group("ku2"), ahead, anchor)


_JA_STEPS = {"再来": 2, "来": 1, "今": 0, "先": -1, "先々": -2}
_JA_DAYS = {
    "一昨日": -2,
    "昨日": -1,
    "昨夜": -1,
    "今日": 0,
    "本日": 0,
    "今朝": 0,
    "今夜": 0,
    "今晩": 0,
    "明日": 1,
    "明朝": 1,
    "明後日": 2,
}
_JA_YEARS = {"一昨年": -2, "昨年": -1, "来年": 1, "再来年": 2}
_KANJI_NUMBERS = {c: i for i, c in enumerate("一二三四五六七八九十", 1)}


def _resolve_ja(m: re.Match[str], anchor: dt.date) -> Resolved:
    if m.group("jday"):
        return anchor + dt.timedelta(days=_JA_DAYS[m.group("jday")])
    if m.group("jrel"):
        wd = m.group("jwd")
        weekday = JA_WEEKDAYS[wd] if wd else None
        return _week_of(anchor, _JA_STEPS[m.group("jrel")], weekday, weekend=bool(m.group("jend")))
    if m.group("jmrel"):
        return _month(anchor.year, anchor.month - 1 + _JA_STEPS[m.group("jmrel")])
    if m.group("jyear"):
        return _year(anchor.year + _JA_YEARS[m.group("jyear")])
    number = m.group("jn")
    return _counted(_KANJI_NUMBERS.get(number) or int(number), m.group("ju"), m.group("jdir") == "後", anchor)


# A character each Korean or Japanese phrase holds (a search for one character is the fastest): 어제/어젯밤, 그저께,
# 오늘, 내일/3일, 모레, 주, 달, 작년/내년/내후년, 올해, 개월, 이틀, 사흘/나흘; 日, 週, 月, 年, 朝, 夜, 晩
_KO_MARKS = "어께늘일레주달년해월틀흘"
_JA_MARKS = "日週月年朝夜晩"
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
    *_KO_MARKS,
    *(mark for mark in _JA_MARKS if mark not in "月年"),  # the Chinese ones above
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


def _hit(phrase: str, line: int, resolved: Resolved, column: int | None = None) -> RelativeDate:
    if isinstance(resolved, tuple):
        return RelativeDate(phrase, line, None, resolved, column=column)
    return RelativeDate(phrase, line, resolved, column=column)


def find_relative_dates(text: str, anchor: dt.date | None) -> list[RelativeDate]:
    """Relative date phrases outside code blocks, counted from `anchor`: on a line with an absolute date too, unless
    that date stands beside the phrase and says its day ("next Tuesday (2026-12-08)", `_glossed`).

    Not reported: recurring days ("every Friday", "on Mondays", "weekly handover on Monday", "每周一"), durations
    ("three times in one day"), "today" meaning *now* ("there is no duplicate detection today"), words that only
    hold a date's characters (다음 주제, 오늘날, 説明日本語), a count of days from an event (마감 3일 전,
    リリースの3日前), and 今日, 明日 and 昨日 in a text not written in Japanese (Chinese names: 今日推荐).
    Reported with a `span` instead of a one-day date: ranges ("this week", "last month", "明年").
    """
    return [
        _hit(phrase, line, resolve(anchor) if anchor else None, column)
        for phrase, line, column, resolve in _phrases(text)
    ]


Resolver = Callable[[dt.date], Resolved]


def _without_code(line: str) -> tuple[str, list[int]]:
    """`line` without its `code` spans, and where each character left stood in `line`."""
    clean: list[str] = []
    at: list[int] = []
    last = 0
    for m in [*_CODE_SPAN.finditer(line), None]:
        end = m.start() if m is not None else len(line)
        clean.append(line[last:end])
        at.extend(range(last, end))
        last = m.end() if m is not None else last
    return "".join(clean), at


_CODE_SPAN = re.compile(r"`[^`]*`")


def _phrases(text: str) -> list[tuple[str, int, int, Resolver]]:
    """Each relative date phrase of `find_relative_dates`: the phrase, its line, where it starts on that line, and
    how to count it from a day."""
    found: list[tuple[str, int, int, Resolver]] = []
    if not _may_hold_relative_date(text):
        return found
    in_code = False
    korean = not text.isascii() and any(mark in text for mark in _KO_MARKS)
    japanese = not text.isascii() and any(mark in text for mark in _JA_MARKS) and _japanese(text)
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        clean, at = _without_code(line)
        already = len(found)
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
            if _a_duration(m, clean):
                continue  # "three times in one day" says how long, not when
            if m.group("phrase").lower() == "today" and _currently(lines, number - 1, clean, m.start(), m.end()):
                continue  # "there is no duplicate detection today" means now, whenever it is read
            found.append((m.group("phrase"), number, at[m.start("phrase")], partial(_resolve_en, m)))
        for m in _ZH.finditer(clean):
            if clean[max(0, m.start() - 1) : m.start()] in ("每", "各"):
                continue
            if _quoted(clean, m.start(), m.end()) or (m.group("phrase") == "周末" and _kind_of_day(clean, m)):
                continue  # "周末 / 节假日不 append" is a kind of day, not one weekend
            if m.group("phrase") == "今天" and clean[m.end() : m.end() + 1] == "的":
                continue  # "今天的数据" is today's data whenever it runs, as "today's" is in English
            found.append((m.group("phrase"), number, at[m.start("phrase")], partial(_resolve_zh, m)))
        if korean or japanese:
            found += _korean_and_japanese(clean, number, at, korean=korean, japanese=japanese)
        if len(found) > already and _ABSOLUTE.search(line):
            days = [m.span() for m in _ABSOLUTE.finditer(line)]
            found[already:] = [hit for hit in found[already:] if not _glossed(line, hit[2], hit[2] + len(hit[0]), days)]
    return found


_GLOSS_GAP = re.compile(r"[ \t]{0,3}[(（\[][ \t]{0,3}")
"""What stands between a relative date and the absolute date that says which day it is: an opening bracket, "next
Tuesday (2026-12-08)", "2026-12-08 (next Tuesday)", "明天（2026-03-05）". A comma or a dash may be a list or a range
("2026-12-02–next Tuesday"), so neither glosses. Only matched whole, and bounded (a search stays linear)."""


def _glossed(line: str, start: int, end: int, days: list[tuple[int, int]]) -> bool:
    """Whether an absolute date stands right beside the phrase at line[start:end] (`_GLOSS_GAP` between them): the
    line already says which day it is. Another date on the line says nothing of the phrase: a day something
    happened ("started 2026-12-02", written there by a fix of another phrase or by hand) is no day the line was
    written, so the phrase is still relative, counted from the day its line was written (`written.base_for`)."""
    for first, last in days:
        gap = line[end:first] if first >= end else line[last:start] if last <= start else None
        if gap is not None and _GLOSS_GAP.fullmatch(gap):
            return True
    return False


def _korean_and_japanese(
    clean: str, number: int, at: list[int], *, korean: bool, japanese: bool
) -> list[tuple[str, int, int, Resolver]]:
    """The Korean and Japanese phrases of a line (`_phrases`), from `clean` (the line without code) and `at`."""
    found: list[tuple[str, int, int, Resolver]] = []
    for m in _KO.finditer(clean) if korean else ():
        if _ko_kept(clean, m):
            found.append((m.group("phrase"), number, at[m.start("phrase")], partial(_resolve_ko, m)))
    for m in _JA.finditer(clean) if japanese else ():
        if _ja_kept(clean, m):
            found.append((m.group("phrase"), number, at[m.start("phrase")], partial(_resolve_ja, m)))
    return found


# What may follow a Korean date in its word: particles and the copula ("다음 주에", "내일까지", "지난달이었다").
# Anything else makes it part of another word: 다음 주제 (the next topic), 다음 주의사항, 오늘날 (nowadays).
_KO_ENDINGS = frozenset(
    "은 는 이 가 을 를 에 에는 에도 에서 에서는 에야 의 도 만 만에 까지 까지는 까지도 까지만 부터 부터는 부터도 "  # noqa: SIM905
    "쯤 쯤에 쯤은 경 경에 께 께는 중 중에 중에는 중으로 중엔 내 내에 내로 안 안에 안으로 로 으로 엔 와 과 랑 이랑 하고 "
    "이나 나 이다 이고 이며 이면 이지만 이라 이라고 라고 이라서 이라도 인 인데 이었다 였다 이었고 였고 입니다 이에요 "
    "예요 이야 야 처럼 보다 밤 밤에 밤까지 이후 이전".split()
)
# The word before a count of days counted from an event ("마감 3일 전": three days before the deadline): a bare
# noun, not one ending in a particle or a verb's ending ("우리는 3일 전에", "배포했고 3일 후"), nor an adverb ("약").
# 다음 주 after a bare noun is most often a terse note's next week ("서울 기준 다음주 금요일"), so it is kept.
_KO_PARTICLE_ENDS = frozenset("은는이가을를에서도고며면만요다께엔로와과데지게니나야")
_KO_WORD_REST = re.compile(r"[가-힣]{0,8}")  # longer than any ending: then it is another word
_KO_ADVERBS = frozenset("약 대략 불과 겨우 바로 벌써 이미 딱 대충 거의 정확히".split())  # noqa: SIM905


def _ko_kept(line: str, m: re.Match[str]) -> bool:
    """Whether a Korean match is a relative date: a whole word, not named in quotes, not "today's" (오늘의, as
    今天的 and "today's" are not), not counted from an event named before it."""
    rest = _KO_WORD_REST.match(line, m.end())
    ending = rest.group() if rest else ""
    if ending and ending not in _KO_ENDINGS:
        return False
    if _quoted(line, m.start(), m.end()) or (m.group("kday") == "오늘" and ending == "의"):
        return False
    if m.group("kdir"):
        near = line[max(0, m.start() - 20) : m.start()]
        word = near.split()[-1] if near.endswith(" ") and near.strip() else ""
        if word and word not in _KO_ADVERBS and "가" <= word[-1] <= "힣" and word[-1] not in _KO_PARTICLE_ENDS:
            return False  # "마감 3일 전": three days before the deadline, whenever that is
    return True


_JA_AFTER_EVENT = re.compile(r"(?:の|(?<!今)から)$")


def _ja_kept(line: str, m: re.Match[str]) -> bool:
    """Whether a Japanese match is a relative date: not every week (毎週), not named in quotes, not "today's" (今日の,
    本日の), and a count of days not counted from an event ("リリースの3日前", "締切3日前", "開始から2週間後")."""
    start = m.start()
    if line[start - 1 : start] in ("毎", "各") or _quoted(line, start, m.end()):
        return False
    if m.group("jday") in ("今日", "本日") and line[m.end() : m.end() + 1] == "の":
        return False
    if m.group("jn"):
        before = line[max(0, start - 2) : start]
        if _JA_AFTER_EVENT.search(before) or (before and re.match(r"[\u30a0-\u30ffA-Za-z0-9]", before[-1])):
            return False
    return True


_DURATION_BEFORE = re.compile(r"(?i)\b(?:times|twice|thrice|instances?|all|everything)\s+$")


def _a_duration(m: re.Match[str], line: str) -> bool:
    """ "in one day" (always) and "twice in a day": how long something took or how often, not a day to date."""
    count = m.group("n")
    if not count:
        return False
    return count.lower() == "one" or _DURATION_BEFORE.search(line, 0, m.start()) is not None


_PRESENT = re.compile(
    r"(?i)\b(?:is|are|isn['’]t|aren['’]t|exists?|has|have|hasn['’]t|haven['’]t|does|doesn['’]t|can|cannot|can['’]t"
    r"|must|only|no|not|never|still|already|currently|now|any|every|everything|nothing)\b"
)
_PAST_OR_FUTURE = re.compile(
    r"(?i)\b(?:was|were|wasn['’]t|weren['’]t|did|didn['’]t|had|hadn['’]t|will|won['’]t|shall|going\s+to|gonna"
    r"|yesterday|tomorrow|ago)\b|\w['’]ll\b"
)
_IRREGULAR_PAST = frozenset(
    "ran went saw got made found broke wrote took came began brought caught taught thought told said met left lost "  # noqa: SIM905
    "sent spent won chose fell felt forgot gave grew heard held kept knew led paid rose sold spoke stood threw".split()
)
_SUBJECTS = frozenset("i we you he she they it user owner someone".split())  # noqa: SIM905
_NOT_A_PAST_VERB = frozenset("is are was were be been being get gets got the a an its their this that".split())  # noqa: SIM905
_CLAUSE_BREAK = re.compile(r"[,:()—–]| - ")
_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")
_ITEM_START = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s|^\s*#")


def _currently(lines: list[str], index: int, clean: str, start: int, end: int) -> bool:
    """Whether "today" means *now* in its sentence ("the fixture lists match today", "Neither exists today"): the
    sentence is in the present and says nothing happened or will happen on a day. "We fixed it today", "today we
    shipped", "as of today" and "Ship it today" keep it a date.

    The sentence may run over the lines before and after (hard-wrapped notes), within its paragraph or list item.
    """
    before, after = clean[:start], clean[end:]
    if re.search(r"(?i)\b(?:as\s+of|since|until|till|from|by|before|after|starting|through|is|was|be)\s+$", before):
        return False  # "as of today", "the release is today": the day itself
    if not _WORD.search(before) and re.match(r"(?i)\s*(?:is|was)\b", after):
        return False  # "Today is the last day of the freeze"
    at = index
    while not _SENTENCE_END.search(before) and at > 0 and not _ITEM_START.match(lines[at]) and at > index - 3:
        previous = lines[at - 1]
        if not previous.strip() or _FENCE.match(previous) or previous.lstrip().startswith("#"):
            break
        before, at = re.sub(r"`[^`]*`", "", previous) + " " + before, at - 1
    at = index
    while not _SENTENCE_END.search(after) and at + 1 < len(lines) and at < index + 3:
        following = lines[at + 1]
        if not following.strip() or _FENCE.match(following) or _ITEM_START.match(following):
            break
        after, at = after + " " + re.sub(r"`[^`]*`", "", following), at + 1
    ends = list(_SENTENCE_END.finditer(before))
    before = before[ends[-1].end() :] if ends else before
    first_end = _SENTENCE_END.search(after)
    after = after[: first_end.start()] if first_end else after
    sentence = f"{before} {after}"
    clause = f"{_CLAUSE_BREAK.split(before)[-1]} {_CLAUSE_BREAK.split(after)[0]}"
    if _PAST_OR_FUTURE.search(clause):
        return False  # in its own clause: "when a feature will be reached …, not two that agree today" is now
    near_before = _WORD.findall(before)[-3:]
    for i in range(max(1, len(near_before) - 1), len(near_before) + 1):
        word, previous_word = near_before[i - 1], near_before[i - 2].lower() if i > 1 else ""
        if _past_verb(word) and previous_word not in _NOT_A_PAST_VERB:
            return False  # "we fixed it today", "merged today"
    near_after = _WORD.findall(after)[:2]
    if len(near_after) == 2 and near_after[0].lower() in _SUBJECTS and _past_verb(near_after[1]):
        return False  # "today we shipped", "today I learned"
    return _PRESENT.search(sentence) is not None


def _past_verb(word: str) -> bool:
    low = word.lower()
    return (len(low) > 4 and low.endswith("ed") and not low.endswith("eed")) or low in _IRREGULAR_PAST


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
    shown), with the date it resolved to (the body may say more about when it was written: a dated heading).
    """
    by_phrase: dict[str, RelativeDate] = {}
    for hit in hits:
        key = hit.phrase.lower()
        kept = by_phrase.get(key)
        if kept is None or kept.line < body_line <= hit.line:
            by_phrase[key] = hit if kept is None else replace(hit, phrase=kept.phrase)
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


def dated_phrases(
    text: str, known: WritingDates, today: dt.date, *, name: str = "", file_name: str = "", body_line: int = 2
) -> list[RelativeDate]:
    """Each relative date of a memory once (`unique_phrases`), counted from the day its line was most likely
    written (`base_for`, kept in `base`). No date is offered when that day is uncertain, nor when it is only the
    file's first commit and the date it gives is after `today` (said in `withheld`): a first commit may be the day
    a store was copied into a new repository, and a wrong date that has not come yet looks like a plan. A future
    date counted from a dated heading, the name or the front matter is a deadline ahead, and is offered.

    `check` and `fix-date` both call this, so the date a finding offers is the date the fix writes.
    """
    return unique_phrases(dated_hits(text, known, today, name=name, file_name=file_name), body_line)


def dated_hits(
    text: str, known: WritingDates, today: dt.date, *, name: str = "", file_name: str = ""
) -> list[RelativeDate]:
    """Every relative date of a text, each occurrence on its own (`dated_phrases` keeps one per phrase), with
    the day it was counted from (`base`): "今天" under two dated headings is two different days."""
    hits = []
    for phrase, line, column, resolve in _phrases(text):
        base = base_for(text, line, known, name=name, file_name=file_name, phrase=phrase)
        hit = _hit(phrase, line, resolve(base.date) if base.certain and base.date else None, column)
        first_day = hit.suggestion or (hit.span[0] if hit.span else None)
        if first_day is not None and first_day > today and base.source == FIRST_COMMIT:
            shown = hit.replacement or first_day.isoformat()
            hit = RelativeDate(phrase, line, None, None, base, shown, column)
        hits.append(replace(hit, base=base))
    return hits


def memory_hits(memory: Memory, known: WritingDates, today: dt.date) -> list[RelativeDate]:
    """Every relative date of a memory (`dated_hits` of its description, then its body: the lines `check` and
    `fix-date` count), each counted from the day its line was most likely written."""
    text = memory.description + "\n" + memory.body
    return dated_hits(text, known, today, name=memory.name or "", file_name=Path(memory.path).name)


LineQuestion = tuple[int, str]
"""A relative date git's line history is asked about: its line in the file (1-based) and the phrase, lower case."""


def line_questions(memory: Memory, hits: Sequence[RelativeDate]) -> list[LineQuestion]:
    """What to ask git's line history (`StoreRepo.lines_written`) about `hits` (`memory_hits`): the line in the file
    and the phrase of each whose day the file's own dates leave open (`Base.git_may_tell`); none when every day is
    known, which is most memories, so `check` asks git about few files, if any."""
    if not any(hit.base is not None and hit.base.git_may_tell for hit in hits):
        return []
    spots = file_spots(memory.text, memory.description, memory.body, hits)
    asked = {
        (spot[0], hit.phrase.lower())
        for hit, spot in zip(hits, spots, strict=True)
        if spot is not None and hit.base is not None and hit.base.git_may_tell
    }
    return sorted(asked)


def told_by_lines(
    memory: Memory, hits: Sequence[RelativeDate], known: WritingDates, answers: Mapping[LineQuestion, LineWritten]
) -> WritingDates:
    """`known` with git's `answers` to `line_questions` (keyed by file line) put where `base_for` looks: by the line
    of the text `memory_hits` reads. `memory_hits` again with it counts each phrase from the day its line says."""
    spots = file_spots(memory.text, memory.description, memory.body, hits)
    lines = {}
    for hit, spot in zip(hits, spots, strict=True):
        answer = answers.get((spot[0], hit.phrase.lower())) if spot is not None else None
        if answer is not None:
            lines[(hit.line, hit.phrase.lower())] = answer
    return replace(known, lines=lines)


def file_spots(
    file_text: str, description: str, body: str, hits: Sequence[RelativeDate]
) -> list[tuple[int, int] | None]:
    """Where each of `hits` (lines of the description, then the body, as `memory_hits` counts them) starts in the
    file: (1-based line, 0-based column), or None for a description's phrase not found in its front matter.

    A description's phrase is where the description's line stands whole in its `description:` line (or a
    continuation line), else the next occurrence of the phrase there not taken by another."""
    description_lines = description.count("\n") + 1
    body_start = file_text.count("\n", 0, len(file_text) - len(body)) - description_lines
    lines = [line.rstrip("\r") for line in file_text.split("\n")]
    numbers = _description_lines(lines)
    said = description.split("\n")
    taken: list[tuple[int, int]] = []
    out: list[tuple[int, int] | None] = []
    for hit in hits:
        if hit.line > description_lines:
            out.append((body_start + hit.line, hit.column) if hit.column is not None else None)
            continue
        own = said[hit.line - 1] if hit.column is not None else ""
        spot = next(((n, lines[n - 1].find(own)) for n in numbers if own and own in lines[n - 1]), None)
        if spot is not None:
            spot = (spot[0], spot[1] + (hit.column or 0))
        else:
            free = ((n, c) for n in numbers for c in occurrences(lines[n - 1], hit.phrase) if (n, c) not in taken)
            spot = next(free, None)
        if spot is not None:
            taken.append(spot)
        out.append(spot)
    return out


def occurrences(text: str, phrase: str) -> list[int]:
    """Where `phrase` starts in `text` (any case), outside `code` (which names a word; the analysis skips it)."""
    spans = [m.span() for m in _CODE_SPAN.finditer(text)]
    return [
        m.start()
        for m in re.finditer(re.escape(phrase), text, re.IGNORECASE)
        if not any(a <= m.start() < b for a, b in spans)
    ]


def _description_lines(lines: list[str]) -> list[int]:
    """The 1-based numbers of the front matter lines holding the description: its `description:` line and the
    continuation lines of a value written over several."""
    if not lines or lines[0] != "---":
        return []
    close = next((i for i, line in enumerate(lines[1:], 1) if line in ("---", "...")), len(lines))
    start = next((i for i in range(1, close) if re.match(r"\s*description\s*:", lines[i])), None)
    if start is None:
        return []
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < close and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip()) > indent:
        end += 1
    return list(range(start + 1, end + 1))


def names_range(phrase: str) -> bool:
    """Whether a relative date phrase ("last month", "this week", "明年", "다음 달", "来週") names a span of days, not one
    day."""
    anchor = dt.date(2001, 1, 1)  # any day: the shape of the answer does not depend on it
    resolvers: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], dt.date], Resolved]], ...] = (
        (_EN, _resolve_en),
        (_ZH, _resolve_zh),
        (_KO, _resolve_ko),
        (_JA, _resolve_ja),
    )
    for pattern, resolve in resolvers:
        m = pattern.fullmatch(phrase.strip())
        if m is not None:
            return isinstance(resolve(m, anchor), tuple)
    return False


# a month's name starts a word (the lookbehind): a search stays linear, though these are only matched whole
_TYPED_MONTH = re.compile(
    r"(?P<y>\d{4})-(?P<m>\d{1,2})|(?P<zy>\d{4})年(?P<zm>\d{1,2})月|(?P<ky>\d{4})년 ?(?P<km>\d{1,2})월"
    r"|(?P<name>(?<![A-Za-z])[A-Za-z]+)\s+(?P<ny>\d{4})"
)
_TYPED_YEAR = re.compile(r"(\d{4})[年년]?")


def read_typed(value: str) -> Resolved:
    """The day (2026-10-14), month (2026-10, "October 2026", "2026年10月", "2026년 10월") or year (2027, "2027年",
    "2027년") a person gave, a month or year as its first and last day. Raises ValueError for anything else."""
    value = " ".join(value.split())
    month = _TYPED_MONTH.fullmatch(value)
    if month is not None:
        names = [name.lower() for name in _MONTHS]
        if month["name"] and month["name"].lower() not in names:
            raise ValueError(f"{value!r} names no month")
        digits = month["m"] or month["zm"] or month["km"]
        number = names.index(month["name"].lower()) + 1 if month["name"] else int(digits)
        if not 1 <= number <= 12:
            raise ValueError(f"{value!r} names no month")
        year = month["y"] or month["zy"] or month["ky"] or month["ny"]
        return _month(int(year), number - 1)  # year 0 raises ValueError
    year = _TYPED_YEAR.fullmatch(value)
    if year is not None:
        return _year(int(year[1]))
    return dt.date.fromisoformat(value)


_WEEK_OF = re.compile(r"the (?P<kind>week|weekend) of \d{4}-\d{2}-\d{2}")
_CJK_SPAN = re.compile(r"(?P<first>\d{4}-\d{2}-\d{2})[—〜~](?P<last>\d{4}-\d{2}-\d{2})")


def what_it_names(written: str) -> str:
    """What a text `fix-date` writes in place of a phrase names: "date" (one day), "week", "weekend", "month",
    "year", or "dates" (another span); "date" for what is no date at all (a front end's button then still reads
    "Write the date", and the value is refused when given)."""
    value = " ".join(written.split())
    week = _WEEK_OF.fullmatch(value)
    if week is not None:
        return week["kind"]
    span = _CJK_SPAN.fullmatch(value)
    try:
        read = (
            (dt.date.fromisoformat(span["first"]), dt.date.fromisoformat(span["last"])) if span else read_typed(value)
        )
    except ValueError:
        return "date"
    if isinstance(read, dt.date) or read is None:
        return "date"
    first, last = read
    if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31) and first.year == last.year:
        return "year"
    if first.day == 1 and last == _month_end(first):
        return "month"
    if (first.weekday(), (last - first).days) == (0, 6):
        return "week"
    if (first.weekday(), (last - first).days) == (5, 1):
        return "weekend"
    return "dates"


def written_as(typed: str, phrase: str, proposal: str | None = None) -> str:
    """The text `fix-date` writes in place of `phrase` for what a person gave (typed in the dialog, `--date`).

    memtui's `proposal` given back as offered is written as it is ("the week of 2026-11-16" too); a day is written
    as an ISO date, whatever the phrase; a month or a year only for a phrase that names a range ("last month"),
    said as a range is ("October 2026", "2026年10月", "2026년 10월"): for "tomorrow", "2026-11" is a day half typed. Raises
    ValueError, saying what may be given, for anything else.
    """
    value = " ".join(typed.split())
    if proposal is not None and value == proposal:
        return proposal
    ranged = names_range(phrase)
    try:
        read = read_typed(value)
    except ValueError:
        read = None
    if isinstance(read, dt.date):
        return read.isoformat()
    if read is not None and ranged:
        return _span_text(*read, language=_language(phrase))
    if ranged:
        raise ValueError(f"{value!r} is not a day like 2026-10-14, a month like 2026-10 or a year like 2027")
    raise ValueError(f"{value!r} is not a day like 2026-12-03")
