"""Claims: a memory split into the statements it makes, and two memories compared claim by claim.

A long note (a plan, a build log, an incident write-up) shares a project's whole vocabulary with its
neighbours, so comparing documents finds "a shared rare word and a cue word somewhere" in almost every pair.
Here a contradiction needs two claims *about the same thing* (aligned by their shared weighted terms) that
conflict, and a duplicate needs the two memories to cover each other claim by claim.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from memtui.analysis import cues
from memtui.analysis import text as tx
from memtui.analysis.cues import ANTONYM_LABEL
from memtui.analysis.note_kinds import SUPERSEDED
from memtui.analysis.note_kinds import is_log as is_log  # re-exported: the kind of note lives in note_kinds.py

MAX_CLAIMS = 160
"""Claims kept per memory; the rest of a very long note is not compared (it bounds the cost of a pair)."""
ALIGN_MIN = 0.3
"""Weighted Jaccard of two claims' terms from which they are taken to speak about the same thing."""
SETTING_SIMILARITY = 0.6
"""A named setting with another default counts as a closely aligned claim, however the sentences differ."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(?:\[[ xX]\]\s*)?")
_RULE_LINE = re.compile(r"^[\s|:\-=_*]+$")
_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!\b[eE]\.g\.)(?<!\b[iI]\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bcf\.)\s+(?=[A-Z\[*`(\"'0-9])|(?<=[。！？；;])"
)
"""Where a sentence ends: after . ! ? and a space before what starts one, not after an abbreviation ("e.g. `x`",
"i.e. Redis", "etc. The"); after Chinese and Japanese full stops at once."""
_LABEL = re.compile(r"^\s*\*\*[^*]{1,40}\*\*\s*[:：]?\s*")

# What an explicit change statement leaves behind: "from X to", "instead of X", "replaces X", "X → Y", 从 X 改为
# Words are bounded ({1,64}): an unbounded run made a long text without spaces (Chinese) cost quadratic time.
_CHANGED_FROM = re.compile(
    r"\bfrom\s+([^\s,;:.]{1,64}(?:\s+[^\s,;:.]{1,64})?)\s+(?:to|in favou?r of)\b|\binstead of\s+([^\s,;:.]{1,64}(?:\s+[^\s,;:.]{1,64})?)|"
    r"\breplac(?:es|ed|ing)\s+(?:the\s+)?([^\s,;:.]{1,64}(?:\s+[^\s,;:.]{1,64})?)|"
    r"从\s*([^，。；、\s]{1,12}?)\s*(?:改为|改成|改用|换成|换到|迁到|迁移到|切到|切换到)|"
    r"\bno longer\s+(?:use[sd]?\s+|uses?\s+|on\s+|with\s+)?([^\s,;:.]{1,64})|不再(?:用|使用|采用|依赖)\s*([^，。；、\s]{1,8})|"
    r"\bstop(?:ped)? using\s+([^\s,;:.]{1,64}(?:\s+[^\s,;:.]{1,64})?)|"
    r"\b(?:don'?t|do not|doesn'?t|does not)\s+(?:use|run|call|install|need)\s+(?:the\s+|an?\s+)?([^\s,;:.]{1,64})[^.;:]{0,40}?\bany ?more\b(?!\s+(?:than|often))|"
    r"([^\s,;:.]{1,64})\s+(?:is|was|has been|got)\s+(?:retired|deprecated|decommissioned|shut down|sunset|dropped)\b|"
    r"([^\s，。；、]{1,8}?)\s*(?:已|已经)?(?:停用|下线|废弃)",
    re.IGNORECASE,
)
_EXPLICIT_WORDS = re.compile(
    r"\b(?:switch(?:ed|es|ing)?|mov(?:ed|es|ing)|migrat(?:ed|es|ing)|replac(?:ed|es|ing)|instead of|no longer|"
    r"anymore|any more|chang(?:ed|es|ing)|now|stop(?:ped)? using|retired|deprecated|decommissioned|shut down|sunset|"
    r"dropped)\b|停用|下线|废弃|改为|改用|改成|换成|换用|迁到|迁移到|不再|切到|切换到|现在",
    re.IGNORECASE,
)


# A setting's name, bounded in length: unbounded, `a_a_a_…` without a default after it cost quadratic time.
_IDENT = (
    r"`?([A-Z][A-Z0-9]{0,40}(?:_[A-Z0-9]{1,40}){1,10}|[a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,10}"
    r"|[a-z]{1,40}(?:\.[a-z_]{1,40}){1,10})`?"
)
_SETTING_VALUE = r"`?(true|false|on|off|enabled|disabled|yes|no|\d+(?:\.\d+)?[a-z%]*)`?(?![\w.])"
_DEFAULTS = re.compile(
    # "`X` ... 默认 `false`", "X defaults to true", "默认 `X=true`", "X 默认改为 true": the default of a named setting
    _IDENT
    + r"[^`\n。；;]{0,20}?(?:默认值?|defaults?(?: value)?)\s*(?:改为|改成|设为|为|是|to|is|=|:)?\s*"
    + _SETTING_VALUE
    + r"|(?:默认值?|by default|default)\s*(?:开启|打开)?\s*"
    + _IDENT
    + r"\s*=\s*"
    + _SETTING_VALUE,
    re.IGNORECASE,
)


def setting_defaults(text: str) -> dict[str, str]:
    """Named settings whose default a text states (`DAILY_REPORT_ENABLED` → `true`); a setting stated with
    two values in one text is left out (one of them is an example or an override)."""
    if "默认" not in text and "default" not in text.lower():
        return {}
    seen: dict[str, set[str]] = defaultdict(set)
    for m in _DEFAULTS.finditer(text):
        ident, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        seen[ident.lower()].add(value.lower())
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


_QUANTITY_UNITS = {
    **dict.fromkeys(("ms", "millisecond", "milliseconds"), "ms"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "min"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("day", "days"), "day"),
    **dict.fromkeys(("kb", "mb", "gb", "%", "px"), ""),
}
_NAMED_QUANTITY = re.compile(
    # "implicit wait (15s)", "the ambient wait is 5s", "reset implicit wait to 10s", "page size: 50 MB": two words
    # naming a quantity, a word or sign that binds it, then the number with its unit
    r"\b([a-z][a-z-]{1,30})[^\S\n]+([a-z][a-z-]{1,30})[^\S\n]*(?:\bis\b|\bto\b|\bof\b|=|:|\(|—|–)[^\S\n]*"
    r"(\d{1,6}(?:\.\d{1,4})?)[^\S\n]?("
    + "|".join(sorted(map(re.escape, _QUANTITY_UNITS), key=len, reverse=True))
    + r")(?![\w.])",
    re.IGNORECASE,
)
_NUMBER_UNIT = re.compile(
    r"\d[^\S\n]?(?:" + "|".join(sorted(map(re.escape, _QUANTITY_UNITS), key=len, reverse=True)) + r")(?![\w.])",
    re.IGNORECASE,
)
"""A number with a unit: what every named quantity ends with, found in a fraction of the time the name takes."""


def may_state_value(text: str) -> bool:
    """Whether a text may state a setting's default or a named quantity (`memory_defaults`, `named_quantities`):
    cheap scans that rule out most memories of a big store."""
    return "default" in text.lower() or "默认" in text or _NUMBER_UNIT.search(text) is not None


# "First attempt: 3s implicit wait" is a step of a sequence, not a quantity's name: ordinals are filler too
_QUANTITY_FILLER = frozenset(
    "the a an its this that any each every per all our on in at for with by from into of to after over under "  # noqa: SIM905
    "first second third fourth final last next initial".split()
)
_PAST_WINDOW = 40
"""How far before a named quantity a word of the past ("previously", "was") takes it back."""
_PAST = re.compile(r"\b(?:previously|formerly|originally|used to|was|were|before|old|instead of|from)\b", re.IGNORECASE)


def named_quantities(description: str, body: str) -> dict[str, tuple[str, str]]:
    """Quantities a memory gives a two-word name ("implicit wait" → "15s"), each with the line stating it.

    A name given two values in one memory is left out (a history or an example), and so are lines that speak of
    the past ("previously 10s") or a change ("from 10s to 5s"): what is left is what the memory states as current.
    """
    text = description + "\n" + body
    if _NUMBER_UNIT.search(text) is None or _NAMED_QUANTITY.search(text) is None:
        return {}  # most memories name no quantity: one scan (a cheap one first) instead of one a line
    lines = [description] + [_BULLET.sub("", ln.strip(), count=1) for ln in body.splitlines() if ln.strip()]
    seen: dict[str, set[str]] = defaultdict(set)
    line_of: dict[str, str] = {}
    for line in lines:
        if line.startswith("#") or SUPERSEDED.search(line):
            continue
        for m in _NAMED_QUANTITY.finditer(line):
            first, second = m.group(1).lower(), m.group(2).lower()
            if first in _QUANTITY_FILLER or _PAST.search(line, max(0, m.start() - _PAST_WINDOW), m.end()):
                continue
            name = f"{first} {second}"
            seen[name].add(f"{float(m.group(3)):g}{_QUANTITY_UNITS[m.group(4).lower()] or m.group(4).lower()}")
            line_of.setdefault(name, line)
    return {k: (next(iter(v)), line_of[k]) for k, v in seen.items() if len(v) == 1}


def changed_from(text: str) -> frozenset[str]:
    """Tokens an explicit change statement leaves behind ("switched from npm to bun", "no longer npm" → npm)."""
    if not _EXPLICIT_WORDS.search(text):
        return frozenset()
    out: set[str] = set()
    for m in _CHANGED_FROM.finditer(text):
        for g in m.groups():
            if g:
                out.update(t for t in tx.tokens(g) if len(t) > 1)
    return frozenset(out)


_MOVED_FROM = re.compile(
    r"\b(?:switch(?:ed|es|ing)?|mov(?:ed|es|ing)|migrat(?:ed|es|ing)|port(?:ed|s|ing)|chang(?:ed|es|ing))\b[^.;:]{0,40}?"
    r"\bfrom\s+([^\s,;:.]{1,64}(?:\s+[^\s,;:.]{1,64})?)\s+(?:to|in favou?r of)\b|"
    r"从\s*([^，。；、\s]{1,12}?)\s*(?:迁到|迁移到|迁至|改为|改成|改用|换成|换到|切到|切换到)",
    re.IGNORECASE,
)


def moved_from(text: str) -> frozenset[str]:
    """Tokens a claim says it moved away from, stated as a move ("migrated from Redis to Postgres", 从 Redis 迁到
    PG): the narrow form of `changed_from`, strong enough to read against another memory's name."""
    if "from" not in text.lower() and "从" not in text:
        return frozenset()
    out: set[str] = set()
    for m in _MOVED_FROM.finditer(text):
        for g in m.groups():
            if g:
                out.update(t for t in tx.tokens(g) if len(t) > 1)
    return frozenset(out)


@dataclass(frozen=True)
class Claim:
    """One statement of a memory: the description, a sentence, a bullet or a table row."""

    text: str
    tokens: frozenset[str]
    norm: str = field(repr=False)
    """Case- and space-folded text: two claims with the same `norm` say the same thing word for word."""
    heading: bool = False
    """A Markdown heading: it counts for coverage and revisions, but a dated heading conflicts with nothing."""
    source: str = field(default="", compare=False, repr=False)
    """The claim as the memory writes it (Markdown and all, spaces folded); `text` is cleaned for comparing."""

    @property
    def quote(self) -> str:
        """What a finding quotes: the memory's own words, so the person finds them in the file."""
        return self.source or self.text

    @cached_property
    def negated(self) -> frozenset[str]:
        """Tokens under a negation in this claim."""
        return frozenset(cues.negated_tokens(self.text))

    @cached_property
    def values(self) -> dict[str, frozenset[str]]:
        """Dates, URLs, quantities and e-mail addresses it states."""
        return cues.values(self.text)

    @cached_property
    def change(self) -> tuple[str, ...]:
        """Change words it uses ("switched to", "no longer", 改为)."""
        return cues.change_words(tx.fold(self.text))

    @cached_property
    def left_behind(self) -> frozenset[str]:
        """What an explicit change statement in it moves away from ("switched from npm to bun" → npm)."""
        return changed_from(self.text)

    @cached_property
    def moved_from(self) -> frozenset[str]:
        """What it says it moved away from ("state migrated from Redis to Postgres" → redis)."""
        return moved_from(self.text)

    @cached_property
    def poles(self) -> frozenset[tuple[int, int]]:
        """Antonym sides it takes."""
        return cues.poles(set(self.tokens), tx.fold(self.text), self.negated)


def _clean(text: str) -> str:
    return " ".join(tx.strip_markdown(_LABEL.sub("", text)).split())


def split_claims(description: str, body: str, limit: int = MAX_CLAIMS) -> tuple[Claim, ...]:
    """The claims of a memory: its description, then each sentence, bullet and table row of the body.

    Headings, code blocks and table rules are not claims; hard-wrapped lines are joined into their paragraph
    before sentences are cut, so a sentence that wraps stays one claim.
    """
    pieces: list[str] = [description] if description.strip() else []
    para: list[str] = []

    def flush() -> None:
        if para:
            pieces.extend(_SENTENCE.split(" ".join(para)))
            para.clear()

    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            flush()
            continue
        s = line.strip()
        if fenced or not s or _RULE_LINE.match(s):
            flush()
            continue
        if s.startswith("#"):
            flush()
            pieces.append("\x00" + s.lstrip("#"))  # a heading is a claim of its own ("## Status: DONE")
            continue
        if s.startswith("|"):
            flush()
            pieces.append(" ; ".join(c.strip() for c in s.strip("|").split("|")))
            continue
        if _BULLET.match(s):
            flush()
            s = _BULLET.sub("", s, count=1)
        para.append(s)
    flush()
    out: list[Claim] = []
    seen: set[str] = set()
    for piece in pieces:
        heading = piece.startswith("\x00")
        text = _clean(piece.lstrip("\x00"))
        toks = frozenset(t for t in tx.tokens(text) if len(t) > 1)
        if len(toks) < 2:
            continue
        norm = tx.fold(text)
        if norm in seen:
            continue
        seen.add(norm)
        source = " ".join(piece.lstrip("\x00").split())
        out.append(Claim(text=text, tokens=toks, norm=norm, heading=heading, source=source))
        if len(out) >= limit:
            break
    return tuple(out)


@dataclass(frozen=True)
class Aligned:
    """Two claims about the same thing, one from each memory, and how they relate."""

    older: Claim
    newer: Claim
    similarity: float
    cues: tuple[str, ...]
    """Which conflict cues the pair carries: `negation`, `value`, `change`, `explicit`, `antonym`, `substitution`."""
    detail: str = ""


@dataclass(frozen=True)
class Comparison:
    """Claim-level evidence about a pair of memories."""

    cover_older: float
    """How much of the older memory's claim weight the newer one covers (0..1)."""
    cover_newer: float
    identical: float
    """Share of the smaller memory's claims the other states word for word."""
    best: Aligned | None
    """The most similar non-identical aligned claim pair."""
    conflict: dict[str, Aligned]
    """The strongest aligned claim pair carrying each conflict cue."""
    claims_older: int
    claims_newer: int
    dropped_claim: Claim | None = None
    """The older claim the newer memory rewrote (the dropped one closest to a new one)."""
    added_claim: Claim | None = None
    dropped: int = 0
    """Claims of the older memory the newer one does not state word for word."""
    added: int = 0


def _jaccard(a: Claim, b: Claim, idf: Callable[[str], float], total: Callable[[frozenset[str]], float]) -> float:
    shared = a.tokens & b.tokens
    if len(shared) < 2:
        return 0.0
    ws = sum(idf(t) for t in shared)
    return ws / (total(a.tokens) + total(b.tokens) - ws)


def _conflict_cues(a: Claim, b: Claim) -> tuple[tuple[str, ...], str]:
    """Conflict cues between two aligned claims, `b` the newer, with a short description of the first."""
    shared = a.tokens & b.tokens
    cues: list[str] = []
    detail = ""
    asym = ((a.negated & b.tokens) - b.negated) | ((b.negated & a.tokens) - a.negated)
    asym &= shared
    if asym and not (a.negated & b.negated & shared):
        cues.append("negation")
        word = min(asym)
        detail = f'negation on "{word}" in {"the newer" if word in b.negated else "the older"} claim only'
    for kind in ("date", "email", "url", "number"):
        va, vb = a.values.get(kind), b.values.get(kind)
        if va and vb and not (va & vb):
            cues.append("value")
            detail = detail or f"different {kind}: {sorted(va)[0]} vs {sorted(vb)[0]}"
            break
    only_a, only_b = a.tokens - b.tokens, b.tokens - a.tokens
    if only_a and only_b and len(shared) >= 3 and len(only_a) <= 3 and len(only_b) <= 3:
        cues.append("substitution")
        detail = detail or f"changed: {' '.join(_last_said(only_a, a.text))} → {' '.join(_last_said(only_b, b.text))}"
    new_change = [c for c in b.change if c not in a.change]
    # an explicit change statement whose object the other claim asserts ("no longer npm" against "install with
    # npm"): the strongest evidence there is, in either direction (the dates may tie or be wrong)
    left = {t for t in b.left_behind & a.tokens if t not in a.negated and t not in a.left_behind}
    left_rev = {t for t in a.left_behind & b.tokens if t not in b.negated and t not in b.left_behind}
    if left or left_rev:
        cues.append("explicit")
        word = min(left or left_rev)
        which = "newer" if left else "older"
        detail = f'the {which} claim moves away from "{word}"'
    if new_change:
        cues.append("change")
        detail = detail or f'the newer claim says "{new_change[0].strip()}"'
    for i, side in b.poles:
        if (i, 1 - side) in a.poles and (i, side) not in a.poles:
            cues.append("antonym")
            detail = detail or ANTONYM_LABEL(i)
            break
    return tuple(cues), detail


def _defaults(lines: list[str]) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    twice: set[str] = set()
    for line in lines:
        for ident, value in setting_defaults(line).items():
            if ident in found and found[ident][0] != value:
                twice.add(ident)
            found.setdefault(ident, (value, line))
    return {k: v for k, v in found.items() if k not in twice}


def memory_defaults(description: str, body: str) -> dict[str, tuple[str, str]]:
    """Named settings whose default a memory states, each with its value and the line that states it
    (read from the raw lines: the claims drop the backticks and stop at `MAX_CLAIMS`)."""
    if "默认" not in body and "default" not in body.lower() and "default" not in description.lower():
        return {}
    lines = [description] + [_BULLET.sub("", ln.strip(), count=1) for ln in body.splitlines() if ln.strip()]
    return _defaults(lines)


def setting_conflict(
    older: dict[str, tuple[str, str]], newer: dict[str, tuple[str, str]], what: str = "default of "
) -> tuple[str, str, str] | None:
    """(older line, newer line, detail) when two memories state another default for the same named setting (or,
    given `named_quantities`, another value for the same named quantity, `what` then "")."""
    for ident in sorted(older.keys() & newer.keys()):
        (va, la), (vb, lb) = older[ident], newer[ident]
        if va != vb:
            return " ".join(la.split()), " ".join(lb.split()), f"{what}{ident}: {va} vs {vb}"
    return None


def _last_said(words: frozenset[str], text: str, n: int = 2) -> list[str]:
    """The `n` of `words` a claim says last, in its order: what changed usually ends the sentence ("owned by Wang
    Lei" against "owned by Chen Jing"). A stemmed word not found as written counts as said first."""
    low = text.lower()
    return sorted(words, key=lambda w: (low.rfind(w), w))[-n:]


def compare(
    older: tuple[Claim, ...],
    newer: tuple[Claim, ...],
    idf: Callable[[str], float],
    total: Callable[[frozenset[str]], float],
) -> Comparison:
    """Align the claims of two memories and collect coverage and the conflicting aligned pairs."""
    newer_norms = {c.norm for c in newer}
    older_norms = {c.norm for c in older}
    same = newer_norms & older_norms
    rest_old = [c for c in older if c.norm not in same]
    rest_new = [c for c in newer if c.norm not in same]
    postings: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(rest_old):
        for t in c.tokens:
            postings[t].append(i)
    kept_old = [c for c in older if c.norm in same]
    for i, c in enumerate(kept_old, len(rest_old)):
        for t in c.tokens:
            postings[t].append(i)
    all_old = rest_old + kept_old
    best_old = [0.0] * len(all_old)
    best_new = [0.0] * len(rest_new)
    best: Aligned | None = None
    conflict: dict[str, Aligned] = {}
    for j, cb in enumerate(rest_new):
        hits: dict[int, int] = defaultdict(int)
        for t in cb.tokens:
            for i in postings.get(t, ()):
                hits[i] += 1
        for i, n in hits.items():
            if n < 2:
                continue
            ca = all_old[i]
            sim = _jaccard(ca, cb, idf, total)
            if sim > best_old[i]:
                best_old[i] = sim
            if sim > best_new[j]:
                best_new[j] = sim
            if sim < ALIGN_MIN:
                continue
            if best is None or sim > best.similarity:
                best = Aligned(ca, cb, sim, ())
            if ca.heading or cb.heading or SUPERSEDED.search(cb.text) or SUPERSEDED.search(ca.text):
                continue  # a note retracting its own earlier sentence speaks about itself, not the other note
            cues, detail = _conflict_cues(ca, cb)
            for cue in cues:
                if cue not in conflict or sim > conflict[cue].similarity:
                    conflict[cue] = Aligned(ca, cb, sim, cues, detail)

    best_old = best_old[: len(rest_old)]

    def cover(claims: list[Claim], bests: list[float], n_same_weight: float, all_claims: tuple[Claim, ...]) -> float:
        weight_all = sum(total(c.tokens) for c in all_claims) or 1.0
        got = n_same_weight + sum(total(c.tokens) * min(1.0, s / 0.6) for c, s in zip(claims, bests, strict=True))
        return min(1.0, got / weight_all)

    same_old = sum(total(c.tokens) for c in older if c.norm in same)
    same_new = sum(total(c.tokens) for c in newer if c.norm in same)
    smaller = min(len(older), len(newer)) or 1
    return Comparison(
        cover_older=cover(rest_old, best_old, same_old, older),
        cover_newer=cover(rest_new, best_new, same_new, newer),
        identical=len(same) / smaller,
        dropped_claim=max(zip(best_old, range(len(rest_old)), strict=True), default=(0.0, -1))
        and (rest_old[max(range(len(rest_old)), key=best_old.__getitem__)] if rest_old else None),
        added_claim=rest_new[max(range(len(rest_new)), key=best_new.__getitem__)] if rest_new else None,
        dropped=len(rest_old),
        added=len(rest_new),
        best=best,
        conflict=conflict,
        claims_older=len(older),
        claims_newer=len(newer),
    )
