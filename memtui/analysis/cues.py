"""What one text says, word by word: negations and what they apply to, stated values, change words, antonym
sides and scope words. Both a whole memory (`memory_text.MemoryText`) and a single claim (`claims.Claim`) read
their cues here; `pairs.score_pair` and `claims.compare` then compare the cues of two of them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from memtui.analysis import text as tx
from memtui.analysis.lexicon import (
    ANTONYMS,
    CHANGE_CUES,
    NEGATIONS,
    SCOPE_CUES,
    SCOPE_WORDS,
    ZH_NEGATIONS,
)

_VALUE_PATTERNS = {
    "date": re.compile(
        r"\b\d{4}-\d{2}-\d{2}\b|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|"
        r"\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}\b(?!:)"
    ),
    "url": re.compile(
        r"https?://[^\s)，。]+|(?<![\w.-])[\w-]+(?:\.[\w-]+)+/[\w./-]+"
    ),  # starts only where a run starts: linear
    "number": re.compile(
        # a Chinese unit is followed by more Chinese (24 小时内): only an English one must end its word
        r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?(?:(?:\s*|-(?=[a-z]))(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|%|ms|s|h|"
        r"k|kb|mb|gb|days?|weeks?|months?|years?)(?![\w.-])|\s*(?:天|周|个月|年|小时|分钟|分)|(?![\w.-]))"
    ),
    "email": re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++\.[\w.]+\b"),
}
_NEG_WINDOW = 3

_NEG_BREAK = frozenset(
    [
        "in",
        "on",
        "at",
        "for",
        "during",
        "when",
        "while",
        "if",
        "unless",
        "until",
        "because",
        "since",
        "so",
        "but",
        "and",
        "or",
        "with",
        "from",
        "by",
        "to",
        "into",
        "than",
        "before",
        "after",
        "except",
    ]
)


_WORDS = re.compile(r"[a-z][a-z'-]*")


class _Phrases:
    """Find which of many literal phrases occur in a text, looking up only those whose first word is there."""

    def __init__(self, phrases: Sequence[str]) -> None:
        self.order = {p: i for i, p in enumerate(phrases)}
        self.by_word: dict[str, list[str]] = defaultdict(list)
        self.ascii_rest: list[str] = []
        self.cjk: list[str] = []
        for p in phrases:
            first = re.match(r"[a-z][a-z'-]*", p)
            if not p.isascii():
                self.cjk.append(p)
            elif first and p[first.end() : first.end() + 1] in ("", " "):
                self.by_word[first.group(0)].append(p)
            else:
                self.ascii_rest.append(p)  # punctuation- or space-led: plain substring test

    def find(self, text: str) -> tuple[str, ...]:
        """The phrases present in `text`, in the order they were given."""
        found = [p for p in self.ascii_rest if p in text]
        if not text.isascii():
            found += [p for p in self.cjk if p in text]
        for word in set(_WORDS.findall(text)):
            for p in self.by_word.get(word, ()):
                if p in text:
                    found.append(p)
        if not found:
            return ()
        return tuple(sorted(set(found), key=self.order.__getitem__))


_CHANGE = _Phrases(CHANGE_CUES)


def change_words(folded: str) -> tuple[str, ...]:
    """Change words in a folded text ("switched to", "no longer", 改为)."""
    return _CHANGE.find(folded)


def ANTONYM_LABEL(i: int) -> str:  # noqa: N802 - read like a table
    """How an antonym pair is named in a cue."""
    left, right = ANTONYMS[i]
    return f"opposite terms: {'/'.join(sorted(left)[:2])} vs {'/'.join(sorted(right)[:2])}"


_SCOPE = _Phrases(SCOPE_CUES)


def scope_phrases(folded: str) -> tuple[str, ...]:
    """Scope phrases in a folded text ("only", "still", 仍然)."""
    return _SCOPE.find(folded)


_ZH_NEG_CHARS = frozenset("".join(ZH_NEGATIONS))


def negated_tokens(rule: str) -> set[str]:
    """Tokens a negation applies to: the next few content words, stopping at a preposition or clause break."""
    folded = tx.fold(rule).replace("’", "'")
    if not (NEGATIONS & set(_WORDS.findall(folded)) or "n't" in folded or _ZH_NEG_CHARS & set(folded)):
        return set()  # most memories negate nothing: skip the walk
    # a word keeps inner dots (bun.lockb) but a sentence's full stop is its own item: a clause break
    items = re.findall(r"[a-z0-9'+#-]+(?:\.[a-z0-9]+)*|[\u3400-\u9fff]+|[.;,:!?，。；：！？()（）]", folded)
    out: set[str] = set()
    for i, item in enumerate(items):
        if item in NEGATIONS or item.endswith("n't"):
            taken = 0
            for nxt in items[i + 1 :]:
                if nxt in _NEG_BREAK or not re.match(r"[a-z0-9\u3400-\u9fff]", nxt):
                    break
                toks = [t for t in tx.tokens(nxt) if len(t) > 1]
                out.update(toks)
                taken += len(toks)
                if taken >= _NEG_WINDOW:
                    break
        elif item[0] >= "\u3400" and tx.has_cjk(item):
            for neg in ZH_NEGATIONS:
                pos = item.find(neg)
                while pos >= 0:
                    tail = item[pos + len(neg) : pos + len(neg) + 4]
                    out.update(tx.tokens(tail))
                    if len(tail) < 2 and i + 1 < len(items) and re.match(r"[a-z0-9]", items[i + 1]):
                        out.update(tx.tokens(items[i + 1]))
                    pos = item.find(neg, pos + len(neg))
    return out


_HAS_VALUE = re.compile(r"\d|://|@|/")


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _month_day(value: str) -> str:
    """A date in any of the written forms as `MM-DD`, so "2026-03-05", "5 March" and "3月5日" meet."""
    iso = re.fullmatch(r"\d{4}-(\d{2})-(\d{2})", value)
    if iso:
        return f"{iso.group(1)}-{iso.group(2)}"
    zh = re.fullmatch(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", value)
    if zh:
        return f"{int(zh.group(1)):02d}-{int(zh.group(2)):02d}"
    day = re.search(r"\d{1,2}", value)
    month = next((i for i, m in enumerate(_MONTHS, 1) if m in value), 0)
    return f"{month:02d}-{int(day.group(0)):02d}" if day and month else value


_UNIT = re.compile(r"[^\d.\s]")
_UNIT_NAMES = {
    **dict.fromkeys(("minute", "minutes", "min", "mins", "分钟"), "min"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h", "小时"), "h"),
    **dict.fromkeys(("second", "seconds", "sec", "secs", "s"), "s"),
    **dict.fromkeys(("day", "days", "天"), "day"),
    **dict.fromkeys(("week", "weeks", "周"), "week"),
    **dict.fromkeys(("month", "months", "个月"), "month"),
    **dict.fromkeys(("year", "years", "年"), "year"),
}
"""One name per unit, so "15 minutes", "15-minute" and "15 分钟" are one value."""
_NUMBER_UNIT = re.compile(r"([\d.]+(?:e-?\d+)?)[\s-]*(.*)")


def _quantity(value: str) -> str:
    """A quantity as number and unit name: "15 minutes" → "15min"."""
    m = _NUMBER_UNIT.fullmatch(value)
    if m is None:
        return value.replace(" ", "")
    return m.group(1) + _UNIT_NAMES.get(m.group(2), m.group(2))


def values(text: str) -> dict[str, frozenset[str]]:
    """Dates (as `MM-DD`), URLs, quantities with their unit and e-mail addresses a text states, by kind."""
    out: dict[str, frozenset[str]] = {}
    if not _HAS_VALUE.search(text):
        return out
    folded = tx.fold(text)
    taken = folded
    for kind in ("email", "url", "date", "number"):
        found = {m.group(0).strip().rstrip(".,;") for m in _VALUE_PATTERNS[kind].finditer(taken)}
        taken = _VALUE_PATTERNS[kind].sub(" ", taken)
        if kind == "number":
            # a bare number ("section 4.2", "level 3") says little; a quantity with its unit does
            found = {_quantity(v) for v in found if _UNIT.search(v)}
        elif kind == "date":
            found = {_month_day(v) for v in found}
        if found:
            out[kind] = frozenset(found)
    return out


_POLE_WORDS: dict[str, list[tuple[int, int]]] = defaultdict(list)
for _i, (_left, _right) in enumerate(ANTONYMS):
    for _side, _words in enumerate((_left, _right)):
        for _w in _words:
            _POLE_WORDS[tx.stem(_w) if _w.isascii() else _w].append((_i, _side))
# scope words are compared with stemmed tokens, so they are stemmed the same way
SCOPE_GROUPS = tuple(frozenset(tx.stem(w) if w.isascii() else w for w in group) for group in SCOPE_WORDS)
SCOPE_SAME = {
    tx.stem(a): tx.stem(b)
    for a, b in (
        ("written", "write"),
        ("writing", "write"),
        ("speaking", "speak"),
        ("reading", "read"),
        ("listening", "listen"),
        ("prod", "production"),
        ("aggregated", "aggregate"),
    )
}
SCOPE_ASCII = frozenset(w for group in SCOPE_GROUPS for w in group if w.isascii())
SCOPE_CJK = frozenset(w for group in SCOPE_GROUPS for w in group if not w.isascii())
_CJK_POLES = [(w, where) for w, where in _POLE_WORDS.items() if not w.isascii()]


def poles(toks: set[str], raw: str, negated: set[str] | frozenset[str] = frozenset()) -> frozenset[tuple[int, int]]:
    """Antonym sides a memory takes; a negated pole counts as the opposite side ("don't mock" is "real")."""
    found: set[tuple[int, int]] = set()
    for t in toks:
        where = _POLE_WORDS.get(t)
        if where:
            found.update((i, 1 - side) if t in negated else (i, side) for i, side in where)
    if tx.has_cjk(raw):
        for w, where in _CJK_POLES:
            if w in raw:
                found.update(where)
    return frozenset(found)
