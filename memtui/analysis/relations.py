"""Contradictions and duplicates between memories, offline and in milliseconds.

Pipeline (DESIGN §2, issue 9): normalise each memory into tokens (Chinese through CC-CEDICT words and their
English senses), weight tokens by how rare they are in the store blended with the shipped background table,
generate candidate pairs from shared informative tokens (never all pairs, except in a small store), then
judge each candidate by its claims: `claims.compare` aligns the sentences, bullets and table rows of the two
memories by subject, finds aligned claims that conflict (a negation turned around, another value, a change
word, opposite terms) and how much each memory covers the other. The evidence becomes a feature vector; a
small logistic regression (`model.py`, weights in `data/judgement.json`) gives the calibrated probability of
`contradiction` and `duplicate`, within what the evidence allows (`allowed_labels`). Pairs from `FLAG_MIN` are
shown; weaker ones down to `HOLD_MIN` are returned with `held_back` set. Every relation quotes its two claims.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import combinations

from rapidfuzz import fuzz

from memtui.analysis import text as tx
from memtui.analysis.background import BACKGROUND_DOCS, Background, load_background
from memtui.analysis.claims import (
    Aligned,
    Claim,
    Comparison,
    changed_from,
    compare,
    is_log,
    is_plan,
    is_superseded,
    memory_defaults,
    says_done,
    setting_conflict,
    split_claims,
)
from memtui.analysis.lexicon import (
    ANTONYMS,
    CHANGE_CUES,
    NEGATIONS,
    PERMISSIONS,
    PROHIBITIONS,
    SCOPE_CUES,
    SCOPE_WORDS,
    STRONG_SCOPE_CUES,
    ZH_NEGATIONS,
)
from memtui.analysis.model import Model, load_model

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
        r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?\s*(?:%|ms|s|h|k|kb|mb|gb|days?|weeks?|months?|years?|天|周|个月|年|小时|分钟|分)?(?![\w.-])"
    ),
    "email": re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++\.[\w.]+\b"),
}
_NEG_WINDOW = 3
_WIKILINK = re.compile(r"\[\[[^\][]*+\]\]")
_LINK_TARGET = re.compile(r"\[\[([^\][|#]*+)[^\][]*+\]\]")  # [[name|label]] and [[name#part]] link to `name`
RULE_CHARS = 500


def _opening(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


@dataclass(frozen=True)
class MemoryText:
    """What the comparison needs to know about one memory.

    Tokens are computed at once (candidate generation needs them for every memory); the cues are computed
    the first time a pair asks for them, so memories without a candidate partner never pay for them.
    """

    key: str
    title: str
    description: str
    rule: str
    how: str = field(repr=False)
    tokens: frozenset[str]
    subject: frozenset[str]
    """Tokens of the name and description: what the memory is about."""
    main: frozenset[str] = field(repr=False)
    """Tokens of the description and the rule."""
    cjk: bool
    date: str = ""
    """Newest date of the memory (ISO), to tell which one is newer."""
    body: str = field(default="", repr=False)
    """The whole body, split into claims when the memory meets a candidate partner."""
    links: frozenset[str] = frozenset()
    """Names of the memories its body links to (`[[user-duyet-stack]]`), lower case."""

    def links_to(self, other: MemoryText) -> bool:
        """Whether its body links to the other memory, by name or file name."""
        if not self.links:
            return False
        stem = other.key.rsplit("/", 1)[-1].removesuffix(".md").lower()
        return other.title.lower() in self.links or stem in self.links

    @cached_property
    def claims(self) -> tuple[Claim, ...]:
        """The statements it makes: description, sentences, bullets, table rows."""
        return split_claims(self.description, self.body)

    @cached_property
    def superseded(self) -> str:
        """The marker when the memory says it is historical or superseded ("SUPERSEDED by ..."), else ""."""
        return is_superseded(self.title, self.description, self.body)

    @cached_property
    def defaults(self) -> dict[str, tuple[str, str]]:
        """Named settings whose default it states: value and the line stating it."""
        return memory_defaults(self.description, self.body)

    @cached_property
    def kind_of_note(self) -> tuple[bool, bool, bool]:
        """(a plan, says it was delivered, a session log or handoff)."""
        return (
            is_plan(self.title, self.description),
            says_done(self.title, self.description),
            is_log(self.title, self.description),
        )

    @cached_property
    def name_tokens(self) -> frozenset[str]:
        """Tokens of its name, without the type prefix (`project_incident_redis_maxclients` → incident, redi...)."""
        words = _TYPE_PREFIX.sub("", _NAME_SEPARATORS.sub(" ", self.title).strip())
        return frozenset(tx.tokens(words))

    @cached_property
    def folded(self) -> str:
        """Description and rule, case- and width-folded."""
        return tx.fold(self.description + " " + self.rule)

    @cached_property
    def negated(self) -> frozenset[str]:
        """Tokens in the scope of a negation in the description or rule."""
        return frozenset(_negated_tokens(self.description + " . " + self.rule))

    @cached_property
    def values(self) -> dict[str, frozenset[str]]:
        """Dates, URLs, numbers and e-mail addresses it states."""
        return _values(self.description + " " + self.rule)

    @cached_property
    def poles(self) -> frozenset[tuple[int, int]]:
        """(antonym pair, side) it takes."""
        return _poles(set(self.main) | set(tx.tokens(self.how)), self.folded + tx.fold(self.how), self.negated)

    @cached_property
    def flipped(self) -> frozenset[tuple[int, int]]:
        """Poles taken by negating the opposite word ("don't mock" takes the side of "real")."""
        return _poles(set(self.main & self.negated), "", self.negated)

    @cached_property
    def scope_words(self) -> frozenset[str]:
        """Words naming which part of the world the rule covers (staging, mobile, legacy...)."""
        found = frozenset(w for w in _SCOPE_ASCII if w in self.main)
        if self.cjk:
            found |= frozenset(w for w in _SCOPE_CJK if w in self.folded)
        return found

    @cached_property
    def change(self) -> tuple[str, ...]:
        """Change words it uses ("switched to", "no longer", 改为)."""
        return _CHANGE.find(self.folded)

    @cached_property
    def scope(self) -> tuple[str, ...]:
        """Scope phrases it uses ("only", "still", 仍然)."""
        return _SCOPE.find(self.folded)


@dataclass(frozen=True)
class Relation:
    """A flagged pair: `older` and `newer`, the label, the score and why."""

    kind: str
    """`contradiction` or `duplicate`."""
    older: str
    newer: str
    score: float
    cue: str
    shared: tuple[str, ...]
    explanation: str
    older_claim: str = ""
    """The claim of the older memory the label rests on."""
    newer_claim: str = ""
    held_back: bool = False
    """A weaker candidate: below the precision threshold, shown only on request."""


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


def negated_tokens(text: str) -> set[str]:
    """Tokens a negation applies to in a text."""
    return _negated_tokens(text)


def values(text: str) -> dict[str, frozenset[str]]:
    """Dates, URLs, quantities and e-mail addresses a text states."""
    return _values(text)


def poles(toks: set[str], raw: str, negated: frozenset[str]) -> frozenset[tuple[int, int]]:
    """Antonym sides a text takes."""
    return _poles(toks, raw, negated)


def ANTONYM_LABEL(i: int) -> str:  # noqa: N802 - read like a table
    """How an antonym pair is named in a cue."""
    left, right = ANTONYMS[i]
    return f"opposite terms: {'/'.join(sorted(left)[:2])} vs {'/'.join(sorted(right)[:2])}"


_SCOPE = _Phrases(SCOPE_CUES)
_ZH_NEG_CHARS = frozenset("".join(ZH_NEGATIONS))


def _negated_tokens(rule: str) -> set[str]:
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


def _values(text: str) -> dict[str, frozenset[str]]:
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
            found = {v.replace(" ", "") for v in found if _UNIT.search(v)}
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
_SCOPE_GROUPS = tuple(frozenset(tx.stem(w) if w.isascii() else w for w in group) for group in SCOPE_WORDS)
_SCOPE_SAME = {
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
_SCOPE_ASCII = frozenset(w for group in _SCOPE_GROUPS for w in group if w.isascii())
_SCOPE_CJK = frozenset(w for group in _SCOPE_GROUPS for w in group if not w.isascii())
_CJK_POLES = [(w, where) for w, where in _POLE_WORDS.items() if not w.isascii()]


def _poles(toks: set[str], raw: str, negated: set[str] | frozenset[str] = frozenset()) -> frozenset[tuple[int, int]]:
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


_NAME_SEPARATORS = re.compile(r"[_\-]+")
_TYPE_PREFIX = re.compile(r"^(?:user|feedback|project|reference)\b", re.IGNORECASE)


def prepare(key: str, title: str, description: str, body: str, date: str = "") -> MemoryText:
    """Normalise one memory for comparison."""
    links: frozenset[str] = frozenset()
    if "[[" in body:
        links = frozenset(m.group(1).strip().lower() for m in _LINK_TARGET.finditer(body))
        body = _WIKILINK.sub(" ", body)
    rule, _why, how = tx.sections(body)
    # The rule or fact leads a memory; long write-ups (session handoffs, architecture notes) would otherwise
    # share a word with everything, so only the opening of each part takes part in the comparison.
    rule, how = _opening(rule, RULE_CHARS), _opening(how, 300)
    name_words = _TYPE_PREFIX.sub("", _NAME_SEPARATORS.sub(" ", title).strip())
    described = tx.tokens(description)
    subject = frozenset(tx.tokens(name_words)).union(described)
    main = frozenset(tx.tokens(rule)).union(described)
    return MemoryText(
        key=key,
        title=title,
        description=description,
        rule=rule,
        how=how,
        tokens=main | subject,
        subject=subject,
        main=main,
        cjk=tx.has_cjk(description) or tx.has_cjk(rule),
        date=date,
        body=body,
        links=links,
    )


class Weights:
    """Inverse document frequency of tokens over the memories compared (the store), computed once.

    A small store says little about which words are common, so its counts are blended with the background
    table shipped with the package: the table stands in for `BACKGROUND_DOCS` minus the store's size, so a
    store of 2 memories is weighted like one of 200, and from 200 memories on the store speaks for itself.
    """

    def __init__(self, docs: Sequence[MemoryText], background: Background | None = None) -> None:
        self.df: Counter[str] = Counter()
        for d in docs:
            self.df.update(d.tokens)
        bg = load_background() if background is None else background
        n_store = len(docs)
        scale = max(0, BACKGROUND_DOCS - n_store) / bg.n if bg.n else 0.0
        n = n_store + scale * bg.n
        self.n = n
        common = 0.4 * n_store
        bg_df = bg.df
        self._idf: dict[str, float] = {
            t: 0.1 if n_store >= 5 and df > common else math.log((n + 1) / (df + scale * bg_df.get(t, 0) + 0.5)) + 0.5
            for t, df in self.df.items()
        }
        self._unseen = math.log((n + 1) / 0.5) + 0.5
        self._sums: dict[frozenset[str], float] = {}

    def idf(self, token: str) -> float:
        """The weight of a token."""
        return self._idf.get(token, self._unseen)

    def idf_table(self) -> dict[str, float]:
        """The weight of every token of the store's memories (read-only: for hot loops over the whole store)."""
        return self._idf

    def total(self, toks: frozenset[str]) -> float:
        """Summed weight of a token set (cached per set)."""
        cached = self._sums.get(toks)
        if cached is None:
            get = self._idf.get
            cached = sum(get(t, self._unseen) for t in toks) or 1.0
            self._sums[toks] = cached
        return cached


POSTINGS_CAP = 20
"""A token in more memories than this says nothing about which two belong together; it is not used to pair."""
PARTNERS_PER_MEMORY = 12
SMALL_STORE = 30
"""Up to this many memories every pair sharing two tokens is judged."""
CANDIDATE_MIN = 0.12
"""Shared weight (rare tokens only) over the smaller memory's weight below which a pair is not worth scoring."""


def candidate_pairs(docs: Sequence[MemoryText], weights: Weights, *, max_df: int | None = None) -> set[tuple[int, int]]:
    """Pairs worth scoring: those sharing informative tokens, each memory keeping its strongest partners.

    Never all pairs: tokens in more than `POSTINGS_CAP` memories are skipped, and per memory only the
    partners with the most shared weight are kept, so the cost grows about linearly with the store.
    """
    if len(docs) <= SMALL_STORE:
        # a handful of memories costs nothing to compare in full; weak overlap is for the judgement to weigh
        return {
            (i, j) for i, j in combinations(range(len(docs)), 2) if len(docs[i].tokens & docs[j].tokens) >= MIN_SHARED
        }
    limit = max_df or POSTINGS_CAP
    postings: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        for t in d.tokens:
            postings[t].append(i)
    usable = {t: ids for t, ids in postings.items() if 2 <= len(ids) <= limit and len(t) >= 2}
    idf = weights.idf_table()
    totals = [sum(map(idf.__getitem__, d.tokens)) or 1.0 for d in docs]  # every token of the store has a weight
    # shared weight of every pair that shares a usable token, one pass over the postings
    shared: dict[tuple[int, int], float] = defaultdict(float)
    for t, ids in usable.items():
        w = idf[t]
        for pair in combinations(ids, 2):  # ids ascend, so each pair is (smaller, larger)
            shared[pair] += w
    # keep pairs strong enough to score, then each memory's strongest partners
    partners: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (i, j), w in shared.items():
        ratio = w / min(totals[i], totals[j])
        if ratio >= CANDIDATE_MIN:
            partners[i].append((ratio, j))
            partners[j].append((ratio, i))
    pairs: set[tuple[int, int]] = set()
    for i, found in partners.items():
        best = heapq.nlargest(PARTNERS_PER_MEMORY, found) if len(found) > PARTNERS_PER_MEMORY else found
        for _, j in best:
            pairs.add((i, j) if i < j else (j, i))
    return pairs


@dataclass(frozen=True)
class PairScore:
    """Scores and cues of one candidate pair, before it is labelled."""

    related: float
    overlap: float
    fuzzy: float
    shared: tuple[str, ...]
    cues: dict[str, str] = field(hash=False)
    scope: str


def score_pair(a: MemoryText, b: MemoryText, weights: Weights) -> PairScore:
    """How much two memories are about the same thing, and which conflict or scope cues they carry."""
    shared = a.tokens & b.tokens
    wa = weights.total(a.tokens)
    wb = weights.total(b.tokens)
    ws = sum(weights.idf(t) for t in shared)
    overlap = ws / min(wa, wb)
    jaccard = ws / (wa + wb - ws)
    subj_shared = a.subject & b.subject
    subj = sum(weights.idf(t) for t in subj_shared) / min(weights.total(a.subject), weights.total(b.subject))
    # two empty descriptions (topic files without front matter) are not two equal ones
    described = bool(a.description.strip()) and bool(b.description.strip())
    fuzzy = FUZZ(tx.fold(a.description), tx.fold(b.description)) / 100 if described and a.cjk == b.cjk else 0.0
    related = 0.45 * overlap + 0.35 * jaccard * 2 + 0.2 * subj
    related = min(1.0, related)
    # Across languages only glossary concepts and shared identifiers can meet, so overlap is understated.
    related = max(related, 0.6 * related + 0.4 * fuzzy) if a.cjk == b.cjk else min(1.0, related * 1.35)
    top = sorted(shared, key=lambda t: (-weights.idf(t), t))[:6]
    cues: dict[str, str] = {}
    # negation asymmetry: a token negated on one side is asserted on the other
    neg_a = (a.negated & b.tokens) - b.negated
    neg_b = (b.negated & a.tokens) - a.negated
    asym = (neg_a | neg_b) & shared
    # both sides prohibit something about the same subject: phrasing differs ("never log X", "X never goes
    # into logs"), so which words fall under the negation says little; it is agreement, not reversal
    both_prohibit = (a.negated & b.negated & shared) or (a.negated and b.negated and (a.subject & b.subject))
    # "don't mock" on one side and "real" on the other say the same thing in opposite words
    negated_into_agreement = (a.flipped & b.poles) or (b.flipped & a.poles)
    if asym and (both_prohibit or negated_into_agreement):
        common = a.negated & b.negated & shared
        what = f'"{min(common)}"' if common else "the same thing"
        cues["same-prohibition"] = f"both rule out {what}"
    elif asym:
        best = min(asym, key=lambda t: (-weights.idf(t), t))
        cues["negation"] = f'negation on "{best}" in {"the newer" if best in neg_b else "the older"} memory only'
    new_change = [c for c in b.change if c not in a.change]
    if new_change:
        cues["change"] = f'the newer memory says "{new_change[0].strip()}"'
    for i, side in b.poles:
        if (i, 1 - side) in a.poles and (i, side) not in a.poles:
            left, right = ANTONYMS[i]
            cues["antonym"] = f"opposite terms: {'/'.join(sorted(left)[:2])} vs {'/'.join(sorted(right)[:2])}"
            break
    for kind in ("date", "email", "url", "number"):
        va, vb = a.values.get(kind), b.values.get(kind)
        if va and vb and not (va & vb):
            cues["value"] = f"different {kind}: {sorted(va)[0]} vs {sorted(vb)[0]}"
            break
    scope = ""
    scope_a = {_SCOPE_SAME.get(w, w) for w in a.scope_words}
    scope_b = {_SCOPE_SAME.get(w, w) for w in b.scope_words}
    sw_a, sw_b = scope_a - scope_b, scope_b - scope_a
    for group in _SCOPE_GROUPS:
        if (sw_a & group) and (sw_b & group):
            scope = f"different scope: {sorted(sw_a & group)[0]} vs {sorted(sw_b & group)[0]}"
            break
    strong_scope = [c for c in b.scope if c in STRONG_SCOPE_CUES and c not in a.scope]
    if not scope and strong_scope:
        scope = f'the newer memory narrows the rule ("{strong_scope[0].strip()}")'
    return PairScore(related=related, overlap=overlap, fuzzy=fuzzy, shared=tuple(top), cues=cues, scope=scope)


FUZZ = fuzz.ratio
MIN_SHARED = 2

# Thresholds, tuned on the development pairs but kept coarse on purpose so they generalise.
RELATED_MIN = 0.2
DUPLICATE_MIN = 0.23
CONFLICT_MIN = 0.24
NEGATION_MIN = 0.45
VALUE_MIN = 0.45
LONG_MEMORY_TOKENS = 25
SAME_PROHIBITION_DUPLICATE = 0.5
NARROWED_DUPLICATE = 0.9
SCOPED_DUPLICATE = 0.6
STRONG_DUPLICATE = 0.6
"""Above this, a pair is a duplicate even when a weak cue (a negation, a different number) sits in it."""
"""A negation alone is a weak cue (it is often aimed at another object), so it needs a closer pair."""


def rule_label(a: MemoryText, b: MemoryText, weights: Weights, s: PairScore | None = None) -> Relation | None:
    """The hand-written rules of the first engine; the learned model reads their verdict as one feature."""
    s = s or score_pair(a, b, weights)
    if s.related < RELATED_MIN or len(a.tokens & b.tokens) < MIN_SHARED:
        return None
    cues = s.cues
    conflict = (
        "change" in cues
        or "antonym" in cues
        or ("negation" in cues and s.related >= NEGATION_MIN)
        or ("value" in cues and s.related >= VALUE_MIN)
    )
    narrowed = bool(s.scope)
    shared = ", ".join(s.shared[:4])
    if conflict and s.related >= CONFLICT_MIN and not (narrowed and "change" not in cues):
        cue_text = "; ".join(cues.values())
        return Relation(
            "contradiction",
            a.key,
            b.key,
            s.related,
            cue_text,
            s.shared,
            f"both about {shared}; {cue_text}",
        )
    few_shared = len(a.tokens & b.tokens) < 3 and s.related < DUPLICATE_MIN + 0.15
    # a duplicate restates the same subject: its name or description must share something with the other's,
    # and long memories (which share words by chance) must share more than one subject word
    subject_shared = len(a.subject & b.subject)
    long_pair = max(len(a.tokens), len(b.tokens)) > LONG_MEMORY_TOKENS
    off_subject = (subject_shared == 0 and s.related < DUPLICATE_MIN + 0.05) or (
        long_pair and subject_shared < 2 and s.related < 0.4
    )
    if (
        not conflict
        and (not ({"value", "negation"} & set(cues)) or s.related >= STRONG_DUPLICATE)
        and ("same-prohibition" not in cues or s.related >= SAME_PROHIBITION_DUPLICATE)
        and not (s.scope.startswith("different scope") and s.related < SCOPED_DUPLICATE)
        and s.related >= DUPLICATE_MIN
        and not few_shared
        and not off_subject
        and not (narrowed and s.related < NARROWED_DUPLICATE)
    ):
        return Relation("duplicate", a.key, b.key, s.related, "same content", s.shared, f"both say: {shared}")
    return None


FEATURES = (
    "related",
    "subject",
    "fuzzy",
    "cover_min",
    "cover_max",
    "identical",
    "aligned",
    "claim_negation",
    "claim_value",
    "claim_change",
    "claim_antonym",
    "claim_conflict_strong",
    "rules_contradiction",
    "rules_duplicate",
    "rules_contradiction_short",
    "scope",
    "same_prohibition",
    "cross_language",
    "plan_and_done",
    "log_pair",
    "claim_substitution",
    "revision",
    "subject_jaccard",
    "same_name",
    "claim_explicit",
    "claim_explicit_short",
    "exception",
    "moved_off_name",
)
"""What the model reads about a pair (all between 0 and 1)."""
FLAG_MIN = 0.5
"""Probability of the label from which a pair is shown: chosen for precision on the real stores."""
FLAG_MIN_SHORT = 0.45
"""The same for two short memories: their claims are all the evidence there is, so the model's probability
is better calibrated there than on long notes, where vocabulary shared by the project inflates it."""
HOLD_MIN = 0.25
"""Weaker candidates down to this probability are held back: counted, and shown on request."""
SHORT_CLAIMS = 8
JUDGE_MIN = 0.15
"""Document relatedness below which a candidate is not judged claim by claim (no pair of the training data
below 0.2 is shown; this only saves the claim alignment on the many weak candidates of a big store)."""
CONFLICT_CUES = ("negation", "value", "change", "antonym", "substitution", "explicit", "setting")
REVISION_MIN = 0.6
STATED_CHANGE_RIGHT = 0.94
"""Share of the training pairs with a stated change (`_stated_change`) that are contradictions: 15 of 15 on
pairs-dev and pairs-dev2, with add-one smoothing (16/17)."""
SETTING_SIMILARITY = 0.6
"""Two memories stating another default for the same named setting count as a closely aligned claim pair."""
"""Share of claims two memories state word for word from which one reads as a revision of the other."""


@dataclass(frozen=True)
class Evidence:
    """Everything the decision reads about a pair, with the claims it can quote."""

    features: tuple[float, ...]
    score: PairScore
    comparison: Comparison
    rules: Relation | None
    short: bool = False
    """Both memories hold few claims (`SHORT_CLAIMS`)."""
    ko_ja: bool = False
    """One of them is written in Korean or Japanese."""
    linked: bool = False
    """One links to the other: its author keeps them apart on purpose, so they are not duplicates."""


def evidence(a: MemoryText, b: MemoryText, weights: Weights, s: PairScore | None = None) -> Evidence:
    """Document-level scores, claim alignment and the first engine's verdict for a pair (`b` the newer)."""
    s = s or score_pair(a, b, weights)
    cmp = compare(a.claims, b.claims, weights.idf, weights.total)
    found = setting_conflict(a.defaults, b.defaults) if a.defaults and b.defaults else None
    if found is not None:
        older_line, newer_line, detail = found
        ca, cb = (Claim(t, frozenset(tx.tokens(t)), tx.fold(t)) for t in (older_line, newer_line))
        cmp = replace(
            cmp, conflict={**cmp.conflict, "setting": Aligned(ca, cb, SETTING_SIMILARITY, ("setting",), detail)}
        )
    moved = _moved_off_name(a, b, weights)
    if moved is not None:
        cmp = replace(cmp, conflict={**cmp.conflict, "moved": moved})
    rules = rule_label(a, b, weights, s)
    subj = sum(weights.idf(t) for t in a.subject & b.subject) / min(weights.total(a.subject), weights.total(b.subject))
    most = max(cmp.claims_older, cmp.claims_newer)
    short = 1.0 if most <= SHORT_CLAIMS else 0.0
    conflict = {c: cmp.conflict[c].similarity if c in cmp.conflict else 0.0 for c in CONFLICT_CUES}
    # an explicit change away from what the other asserts, or another default for the same named setting
    explicit = max(conflict["explicit"], conflict["setting"])
    strong = max((al.similarity for al in cmp.conflict.values() if len(set(al.cues)) >= 2), default=0.0)
    plan_a, done_a, log_a = a.kind_of_note
    plan_b, done_b, log_b = b.kind_of_note
    # one memory is a revision of the other: mostly the same claims, some dropped, rewritten or added
    # (a sibling from the same template shares most sentences too, but it is about another subject)
    subj_union = weights.total(a.subject | b.subject)
    subj_jaccard = sum(weights.idf(t) for t in a.subject & b.subject) / subj_union
    same_name = bool(_name_key(a.title)) and _name_key(a.title) == _name_key(b.title)
    # (two notes that merely share a generic name, "user_role" from two projects, share little else)
    revision = (
        1.0
        if (cmp.dropped or cmp.added)
        and ((same_name and s.related >= 0.3) or (cmp.identical >= REVISION_MIN and subj_jaccard >= 0.6))
        else 0.0
    )
    rules_c = 1.0 if rules is not None and rules.kind == "contradiction" else 0.0
    x = (
        min(1.0, s.related),
        min(1.0, subj),
        s.fuzzy,
        min(cmp.cover_older, cmp.cover_newer),
        max(cmp.cover_older, cmp.cover_newer),
        cmp.identical,
        cmp.best.similarity if cmp.best else 0.0,
        conflict["negation"],
        conflict["value"],
        conflict["change"],
        conflict["antonym"],
        strong,
        rules_c,
        1.0 if rules is not None and rules.kind == "duplicate" else 0.0,
        rules_c * short,
        1.0 if s.scope else 0.0,
        1.0 if "same-prohibition" in s.cues else 0.0,
        1.0 if a.cjk != b.cjk else 0.0,
        1.0 if (plan_a and done_b) or (plan_b and done_a) else 0.0,
        1.0 if log_a or log_b else 0.0,
        conflict["substitution"],
        revision,
        min(1.0, subj_jaccard),
        1.0 if same_name else 0.0,
        explicit,
        explicit * short,
        _exception(a, b),
        1.0 if "moved" in cmp.conflict else 0.0,
    )
    return Evidence(
        features=x,
        score=s,
        comparison=cmp,
        rules=rules,
        short=bool(short),
        ko_ja=tx.is_ko_ja(a.description + a.rule) or tx.is_ko_ja(b.description + b.rule),
        linked=a.links_to(b) or b.links_to(a),
    )


_LIFTED = re.compile(r"\b(?:again|now|anymore|any more|lifted|no longer)\b|又|恢复|现在|不再")
"""Words saying a leave is a rule lifted ("fine again", "now allowed"), not an exception to it."""


MOVED_NAME_IDF = 3.0
"""A name word a move leaves behind must be rare in the store (`redis` in a few notes, not `check` in many)."""


def _moves_off(named: MemoryText, mover: MemoryText, weights: Weights) -> tuple[Claim, str] | None:
    """The claim of `mover` saying it moved away from a rare word of `named`'s name, and that word."""
    rare = {t for t in named.name_tokens if weights.idf(t) >= MOVED_NAME_IDF}
    if rare:
        for c in mover.claims:
            left = c.moved_from & rare
            if left:
                return c, min(left)
    return None


def _moved_off_name(a: MemoryText, b: MemoryText, weights: Weights) -> Aligned | None:
    """One memory says it moved away from what the other is named after ("state migrated from Redis to PG"
    against `project_incident_redis_maxclients`): a change statement whose object is the other's subject."""
    for named, mover in ((a, b), (b, a)):
        found = _moves_off(named, mover, weights)
        if found is not None:
            c, word = found
            head = named.description or named.title
            what = Claim(head, frozenset(tx.tokens(head)), tx.fold(head))
            older, newer = (what, c) if named is a else (c, what)
            return Aligned(older, newer, SETTING_SIMILARITY, ("moved",), f'moves away from "{word}"')
    return None


def _grants_leave(m: MemoryText) -> bool:
    return bool(PERMISSIONS.search(m.folded)) and not _LIFTED.search(m.folded)


def _exception(a: MemoryText, b: MemoryText) -> float:
    """One memory grants leave ("may", "is fine", 不用) where the other states a rule: an exception to the
    rule for a narrower case, compatible with it, unless it says the rule was lifted ("fine again", "now")."""
    for rule, leave in ((a, b), (b, a)):
        if _grants_leave(leave) and not _grants_leave(rule) and PROHIBITIONS.search(rule.folded):
            return 1.0
    return 0.0


_COPY_WORDS = re.compile(r"\b(?:old|copy|backup|bak|prev|previous|orig|original)\b")


def _name_key(title: str) -> str:
    """A memory's name without separators and copy markers: `old_debugging` and `debugging` are one memory."""
    return re.sub(r"[\s_\-.]+", "", _COPY_WORDS.sub(" ", re.sub(r"[_\-.]+", " ", title.lower())))


def _stated_change(ev: Evidence) -> bool:
    """A short memory says it moved away from what the other asserts, or two memories state another default
    for the same named setting: the strongest evidence of a contradiction there is."""
    if "setting" in ev.comparison.conflict or "moved" in ev.comparison.conflict:
        return True
    return ev.short and "explicit" in ev.comparison.conflict


def conflict_setting(ev: Evidence) -> float:
    """Similarity of the aligned claims stating another default for the same named setting (0 when none)."""
    al = ev.comparison.conflict.get("setting")
    return al.similarity if al else 0.0


def allowed_labels(ev: Evidence) -> set[str]:
    """The labels the evidence can carry at all, whatever the model says.

    A contradiction needs an aligned pair of conflicting claims (or, for two short memories, the first
    engine's cue); a duplicate needs the memories to cover each other. Logs and session notes are never
    duplicates of each other, and they conflict only through closely aligned claims. Two memories one of which
    links to the other are kept apart by their author: never duplicates.
    """
    out = _allowed(ev)
    if ev.linked:
        out.discard("duplicate")
    return out


def _allowed(ev: Evidence) -> set[str]:
    f = dict(zip(FEATURES, ev.features, strict=True))
    out: set[str] = set()
    # a changed word in a sentence two different notes share (a test count, a section number, a sibling's
    # name) is churn, not a conflict: substitution counts only when one memory is a revision of the other
    claim_conflict = max(
        f["claim_negation"],
        f["claim_value"],
        f["claim_change"],
        f["claim_antonym"],
        f["revision"],
        f["claim_explicit"],
        f["moved_off_name"],
    )
    if f["log_pair"]:
        # a log narrates: a later entry "migrated to" or on another date is the story going on; only a
        # revision or a closely aligned claim turned around conflicts
        if (
            max(f["claim_negation"], f["claim_antonym"], f["revision"], f["moved_off_name"], conflict_setting(ev))
            >= 0.5
        ):
            out.add("contradiction")
        return out
    if ev.ko_ja:
        # Korean and Japanese meet on whole words and kanji only: only claim-level evidence counts
        if claim_conflict >= 0.5:
            out.add("contradiction")
        if f["cover_min"] >= 0.6:
            out.add("duplicate")
        return out
    if ev.short:
        # two short memories are little more than their claims: the model reads them whole; but one granting
        # leave where the other states the rule is an exception to it (14 of 16 such pairs of pairs-dev are
        # compatible), unless it states the change outright
        if f["exception"] and not max(f["claim_explicit"], f["revision"], conflict_setting(ev)):
            return {"duplicate"}
        return {"contradiction", "duplicate"}
    if claim_conflict > 0:
        out.add("contradiction")
    # two long notes are duplicates only when they are about the same subject: siblings written from one
    # template cover each other sentence by sentence but each is about its own stage, module or incident
    if f["cover_min"] >= 0.35 and (f["same_name"] or f["subject_jaccard"] >= 0.5):
        out.add("duplicate")
    return out


def _quote(ev: Evidence, kind: str) -> tuple[str, str, str]:
    """(older claim, newer claim, cue) the label rests on."""
    cmp = ev.comparison
    if kind == "contradiction" and cmp.conflict:
        al = (
            cmp.conflict.get("setting")
            or cmp.conflict.get("explicit")
            or cmp.conflict.get("moved")
            or max(cmp.conflict.values(), key=lambda x: (len(x.cues), x.similarity))
        )
        return al.older.text, al.newer.text, al.detail
    revision = ev.features[FEATURES.index("revision")]
    if kind == "contradiction" and revision and cmp.dropped_claim is not None and cmp.added_claim is not None:
        return cmp.dropped_claim.text, cmp.added_claim.text, "the newer memory rewrites this claim"
    if kind == "contradiction" and cmp.best is not None:
        return cmp.best.older.text, cmp.best.newer.text, "; ".join(ev.score.cues.values())
    if kind == "contradiction":
        return "", "", "; ".join(ev.score.cues.values())
    if cmp.best is not None:
        return cmp.best.older.text, cmp.best.newer.text, "same content"
    return "", "", "same content"


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def classify(a: MemoryText, b: MemoryText, weights: Weights, model: Model | None = None) -> Relation | None:
    """Label a pair `contradiction` or `duplicate` with the calibrated probability that the label is right.

    `b` should be the newer memory. Returns None below `HOLD_MIN`; between `HOLD_MIN` and `FLAG_MIN` the
    relation is returned with `held_back` set.
    """
    if a.superseded or b.superseded:
        return None
    model = model or load_model()
    if model is None:
        return rule_label(a, b, weights)
    s = score_pair(a, b, weights)
    if s.related < JUDGE_MIN:
        return None
    ev = evidence(a, b, weights, s)
    allowed = allowed_labels(ev)
    if not allowed:
        return None
    probs = model.probabilities(ev.features)
    kind = max(allowed, key=lambda k: (probs[k], k))
    p = probs[kind]
    if "contradiction" in allowed and _stated_change(ev):
        # an explicit change statement is rare and the model, fitted mostly on pairs without one, would let
        # the rest of the evidence drown it; how often it was right on the training pairs is its probability
        kind, p = "contradiction", max(probs["contradiction"], STATED_CHANGE_RIGHT)
    if p < HOLD_MIN:
        return None
    older_claim, newer_claim, cue = _quote(ev, kind)
    shared = ", ".join(ev.score.shared[:4])
    if kind == "contradiction":
        explanation = (
            f'{cue}: "{_cut(older_claim)}" vs "{_cut(newer_claim)}"' if older_claim else f"both about {shared}; {cue}"
        )
    else:
        explanation = f'both say: "{_cut(newer_claim)}"' if newer_claim else f"both say: {shared}"
    return Relation(
        kind,
        a.key,
        b.key,
        p,
        cue or "same content",
        ev.score.shared,
        explanation,
        older_claim=older_claim,
        newer_claim=newer_claim,
        held_back=p < (FLAG_MIN_SHORT if ev.short else FLAG_MIN),
    )


def _moves_away(a: MemoryText, b: MemoryText) -> bool:
    """`a` states an explicit change away from something `b` asserts, and not the other way round."""
    a_left = changed_from(a.description + " . " + a.rule)
    b_left = changed_from(b.description + " . " + b.rule)
    return bool(a_left & b.tokens) and not (b_left & a.tokens)


def find_relations(docs: Sequence[MemoryText], background: Background | None = None) -> list[Relation]:
    """Every contradiction and duplicate among the given memories, strongest first (held-back ones included)."""
    weights = Weights(docs, background)
    out: list[Relation] = []
    for i, j in candidate_pairs(docs, weights):
        a, b = docs[i], docs[j]
        if len(a.tokens & b.tokens) < MIN_SHARED:
            continue
        if (a.date, a.key) > (b.date, b.key):
            a, b = b, a
        if a.date == b.date and (
            _moves_away(a, b) or (_moves_off(b, a, weights) is not None and _moves_off(a, b, weights) is None)
        ):
            a, b = b, a  # same day (or no dates): the memory that says it changed something is the newer
        rel = classify(a, b, weights)
        if rel is not None:
            out.append(rel)
    out.sort(key=lambda r: (-r.score, r.older, r.newer))
    return out
