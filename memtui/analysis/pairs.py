"""Which pairs of memories are worth judging, and how they score as whole documents.

Tokens are weighted by how rare they are in the store blended with the shipped background table (`Weights`);
candidate pairs come from shared informative tokens, never all pairs except in a small store
(`candidate_pairs`); each candidate gets its relatedness and conflict or scope cues (`score_pair`), and the
hand-written rules of the first engine label it (`rule_label`), a verdict the learned model reads as a feature.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, combinations, compress, repeat

from rapidfuzz import fuzz

from memtui.analysis import text as tx
from memtui.analysis.background import BACKGROUND_DOCS, Background, load_background
from memtui.analysis.claims import may_state_value
from memtui.analysis.cues import SCOPE_GROUPS, SCOPE_SAME
from memtui.analysis.lexicon import ANTONYMS, STRONG_SCOPE_CUES
from memtui.analysis.memory_text import MemoryText


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
        self.partners: dict[str, int] = {}
        """For each memory (by key), how many partners it is judged against in the store (`partner_counts`): set
        by whoever scored the candidates; empty for a pair judged alone."""
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

    def crowd(self, a: MemoryText, b: MemoryText) -> float:
        """How crowded the two memories' neighbourhood is, 0 (one of them has no other partner, or the pair is
        judged alone) to 1 (both have 4 partners or more, `partner_counts`): among many candidates, most are
        strangers that share a word. The scale (full from 4 partners) was chosen among 2, 4 and 8 on the
        120-memory stores of `benchmarks/pairs_eval.py --cross`."""
        fewer = min(self.partners.get(a.key, 1), self.partners.get(b.key, 1))
        return min(1.0, math.log2(max(1, fewer)) / 2)

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
        return {(i, j) for i, j in combinations(range(len(docs)), 2) if enough_shared(docs[i], docs[j])}
    limit = max_df or POSTINGS_CAP
    postings: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        for t in d.tokens:
            postings[t].append(i)
    usable = {t: ids for t, ids in postings.items() if 2 <= len(ids) <= limit and len(t) >= 2}
    idf = weights.idf_table()
    totals = [sum(map(idf.__getitem__, d.tokens)) or 1.0 for d in docs]  # every token of the store has a weight
    partners: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (i, j), w in _strong_pairs(docs, usable, idf, totals):
        ratio = w / min(totals[i], totals[j])
        partners[i].append((ratio, j))
        partners[j].append((ratio, i))
    pairs: set[tuple[int, int]] = set()
    for i, found in partners.items():
        best = heapq.nlargest(PARTNERS_PER_MEMORY, found) if len(found) > PARTNERS_PER_MEMORY else found
        for _, j in best:
            pairs.add((i, j) if i < j else (j, i))
    return pairs | _other_values(docs)


SAME_SETTING_MAX = 8
"""A named setting or quantity stated by more memories than this is a project's common vocabulary, not a rescue."""


def _other_values(docs: Sequence[MemoryText]) -> set[tuple[int, int]]:
    """Pairs stating another value for the same named setting or quantity (`claims.setting_conflict`): the strongest
    evidence of a conflict there is, judged however many look-alikes crowd the two (a project's daily logs share
    most of their words, and one more log can push a pair out of each memory's strongest partners)."""
    named: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for i, d in enumerate(docs):
        if not may_state_value(d.description + "\n" + d.body):
            continue
        for kind, values in (("default", d.defaults), ("quantity", d.quantities)):
            for ident, (value, _) in values.items():
                named[kind, ident].append((i, value))
    out: set[tuple[int, int]] = set()
    for stated in named.values():
        if 2 <= len(stated) <= SAME_SETTING_MAX:
            for (i, vi), (j, vj) in combinations(stated, 2):
                if vi != vj:
                    out.add((i, j) if i < j else (j, i))
    return out


PARTNER_RELATED = 0.15
"""Relatedness from which a candidate is judged at all (`relations.JUDGE_MIN`), and counts as a partner."""


SHORT_CLAIMS = 8
"""A memory of at most this many claims is short: two short memories are little more than their claims."""


def partner_counts(docs: Sequence[MemoryText], scored: Mapping[tuple[int, int], PairScore]) -> dict[str, int]:
    """How many partners each memory (by key) is judged against: candidates at least `PARTNER_RELATED` related,
    neither of them saying it is superseded (those are never judged), both short or both long. A long note
    shares a word with nearly everything, so it says nothing about how many look-alikes crowd a short memory; and
    the other way round."""
    counts: Counter[str] = Counter()
    for (i, j), s in scored.items():
        # shortness last: a memory's claims (cached) are split only when it has a partner to count, not for the
        # whole store
        if (
            s.related >= PARTNER_RELATED
            and not (docs[i].superseded or docs[j].superseded)
            and (len(docs[i].claims) <= SHORT_CLAIMS) == (len(docs[j].claims) <= SHORT_CLAIMS)
        ):
            counts[docs[i].key] += 1
            counts[docs[j].key] += 1
    return dict(counts)


COUNTED_FROM = 1000
"""From this many memories, pairs sharing one token are too many to sum one by one (`_strong_pairs`)."""


def _strong_pairs(
    docs: Sequence[MemoryText], usable: dict[str, list[int]], idf: dict[str, float], totals: list[float]
) -> list[tuple[tuple[int, int], float]]:
    """Pairs sharing usable tokens whose shared weight over the smaller memory's reaches `CANDIDATE_MIN`, with
    that weight: each summed in the order `usable` lists the tokens, as one pass over the postings does.

    A big store holds hundreds of thousands of such pairs, nearly all sharing one token: there they are counted
    in C, and a pair sharing one token is looked at only when one of its memories is light enough for that
    token alone to reach the bar; only pairs sharing more are summed.
    """
    strong: list[tuple[tuple[int, int], float]] = []
    if len(docs) < COUNTED_FROM:
        shared: dict[tuple[int, int], float] = defaultdict(float)
        for t, ids in usable.items():
            w = idf[t]
            for pair in combinations(ids, 2):  # ids ascend, so each pair is (smaller, larger)
                shared[pair] += w
        return [(pair, w) for pair, w in shared.items() if w / min(totals[pair[0]], totals[pair[1]]) >= CANDIDATE_MIN]
    counts = Counter(chain.from_iterable(map(combinations, usable.values(), repeat(2))))
    for t, ids in usable.items():
        w = idf[t]
        light = w / CANDIDATE_MIN * (1 + 1e-9)  # a margin for rounding: the bar itself is applied below
        if any(totals[i] <= light for i in ids):
            for i, j in combinations(ids, 2):
                if counts[i, j] == 1 and w / min(totals[i], totals[j]) >= CANDIDATE_MIN:
                    strong.append(((i, j), w))
    rank = {t: r for r, t in enumerate(usable)}
    for i, j in compress(counts.keys(), map((1).__lt__, counts.values())):
        w = 0.0
        for t in sorted((t for t in docs[i].tokens & docs[j].tokens if t in rank), key=rank.__getitem__):
            w += idf[t]
        if w / min(totals[i], totals[j]) >= CANDIDATE_MIN:
            strong.append(((i, j), w))
    return strong


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
    scope_a = {SCOPE_SAME.get(w, w) for w in a.scope_words}
    scope_b = {SCOPE_SAME.get(w, w) for w in b.scope_words}
    sw_a, sw_b = scope_a - scope_b, scope_b - scope_a
    for group in SCOPE_GROUPS:
        if (sw_a & group) and (sw_b & group):
            scope = f"different scope: {sorted(sw_a & group)[0]} vs {sorted(sw_b & group)[0]}"
            break
    strong_scope = [c for c in b.scope if c in STRONG_SCOPE_CUES and c not in a.scope]
    if not scope and strong_scope:
        scope = f'the newer memory narrows the rule ("{strong_scope[0].strip()}")'
    return PairScore(related=related, overlap=overlap, fuzzy=fuzzy, shared=tuple(top), cues=cues, scope=scope)


FUZZ = fuzz.ratio
MIN_SHARED = 2
SHORT_MEMORY_TOKENS = 30
"""Two memories with at most this many tokens each are short: one shared informative word is enough to judge them."""


def enough_shared(a: MemoryText, b: MemoryText) -> bool:
    """Whether two memories share enough tokens to be judged at all: two, or, when both are short, one word of
    what they say (not of their names alone, not a number): a short paraphrase can share a single word."""
    shared = a.tokens & b.tokens
    if len(shared) >= MIN_SHARED:
        return True
    if len(shared) != 1 or max(len(a.tokens), len(b.tokens)) > SHORT_MEMORY_TOKENS:
        return False
    (word,) = shared
    return len(word) > 2 and not word[0].isdigit() and word in a.main and word in b.main


# Thresholds, tuned on the development pairs but kept coarse on purpose so they generalise.
RELATED_MIN = 0.2
DUPLICATE_MIN = 0.23
CONFLICT_MIN = 0.24
NEGATION_MIN = 0.45
"""A negation alone is a weak cue (it is often aimed at another object), so it needs a closer pair."""
VALUE_MIN = 0.45
LONG_MEMORY_TOKENS = 25
SAME_PROHIBITION_DUPLICATE = 0.5
NARROWED_DUPLICATE = 0.9
SCOPED_DUPLICATE = 0.6
STRONG_DUPLICATE = 0.6
"""Above this, a pair is a duplicate even when a weak cue (a negation, a different number) sits in it."""


def rule_label(a: MemoryText, b: MemoryText, weights: Weights, s: PairScore | None = None) -> Relation | None:
    """The hand-written rules of the first engine; the learned model reads their verdict as one feature."""
    s = s or score_pair(a, b, weights)
    if s.related < RELATED_MIN or not enough_shared(a, b):
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
