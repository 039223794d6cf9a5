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

This module holds the verdict; the stages before it live in their own modules and are re-exported here:
`cues` (what one text says), `memory_text` (`prepare`, `MemoryText`), `pairs` (`Weights`, `candidate_pairs`,
`score_pair`, the first engine's `rule_label`) and `evidence` (`FEATURES`, `evidence`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memtui.analysis import text as tx
from memtui.analysis.background import Background
from memtui.analysis.claims import changed_from
from memtui.analysis.evidence import FEATURES, Evidence, evidence, moves_off, states_change
from memtui.analysis.memory_text import MemoryText, prepare
from memtui.analysis.model import Model, load_model
from memtui.analysis.pairs import (
    PARTNER_RELATED,
    PairScore,
    Relation,
    Weights,
    candidate_pairs,
    enough_shared,
    partner_counts,
    rule_label,
    score_pair,
)

__all__ = [
    "FEATURES",
    "Evidence",
    "MemoryText",
    "PairScore",
    "Relation",
    "Weights",
    "allowed_labels",
    "candidate_pairs",
    "classify",
    "conflict_setting",
    "evidence",
    "find_relations",
    "prepare",
    "rule_label",
    "score_pair",
]


FLAG_MIN = 0.5
"""Probability of the label from which a pair is shown: chosen for precision on the real stores."""
FLAG_MIN_SHORT = 0.4
"""The same for two short memories: their claims are all the evidence there is, so the model's probability
is better calibrated there than on long notes, where vocabulary shared by the project inflates it. Read off the
pooled 5-fold out-of-fold curve of pairs-dev and pairs-dev2 (`benchmarks/pairs_eval.py --cross`): precision
0.86, 0.88, 0.88, 0.88 from 0.35, 0.4, 0.45, 0.5, recall 0.80, 0.80, 0.79, 0.78; 0.4 is where precision stops
gaining more than recall loses."""
HOLD_MIN = 0.25
"""Weaker candidates down to this probability are held back: counted, and shown on request."""
JUDGE_MIN = PARTNER_RELATED
"""Document relatedness below which a candidate is not judged claim by claim (no pair of the training data
below 0.2 is shown; this only saves the claim alignment on the many weak candidates of a big store)."""
STATED_CHANGE_RIGHT = 0.9
"""Share of the training pairs with a stated change (`_stated_change`) that are contradictions: 34 of 37 on
pairs-dev and pairs-dev2, with add-one smoothing (35/39). `scripts/train_judgement.py --check` measures it again."""


UNFOUNDED_RELATED = 0.3
"""Relatedness below which a contradiction of two short memories that rests on no claim is held back: no aligned
claims conflict, and the change word the newer one uses ("Wang Lei moved to the risk team") is about nothing the
older one says (`newer_change` is 0). Cross-source on pairs-dev and pairs-dev2, 1 of the 60 contradictions shown
without quoted claims is below it, and it costs one right pair; in a store it is two strangers sharing a word."""


SAME_REASON_MIN = 0.3
"""Weighted overlap of the reasons (**Why:**) two short memories give from which they state one rule."""
SAME_REASON_RIGHT = 0.88
"""Share of the training pairs flagged while giving the same reason (`_gives_same_reason`) whose label is right:
52 of 58 on pairs-dev and pairs-dev2, with add-one smoothing (53/60). `scripts/train_judgement.py --check` measures
it again."""


def _gives_same_reason(ev: Evidence) -> bool:
    """Two short memories give the same reason for what they say, and the newer grants no leave from the older's
    rule: the same rule twice in other words, or a rule and the one that replaced it for the same reason."""
    return ev.short and not ev.features[FEATURES.index("exception")] and ev.same_reason >= SAME_REASON_MIN


def _stated_change(ev: Evidence) -> bool:
    """A short memory says it moved away from what the other asserts, or changed what an aligned claim of the
    other states to another term or value, or two memories state another default for the same named setting:
    the strongest evidence of a contradiction there is."""
    conflict = ev.comparison.conflict
    if "setting" in conflict or "moved" in conflict:
        return True
    if not ev.short:
        return False
    if "explicit" in conflict:
        return True
    # the newer claim says it changed, and states another term or value than the older claim it aligns with
    # (Korean and Japanese use Chinese change words such as 延期 as everyday words)
    changed = conflict.get("change")
    return (
        changed is not None
        and not ev.ko_ja
        and states_change(changed.newer)
        and bool({"substitution", "value"} & set(changed.cues))
    )


def conflict_setting(ev: Evidence) -> float:
    """Similarity of the aligned claims stating another default for the same named setting (0 when none)."""
    al = ev.comparison.conflict.get("setting")
    return al.similarity if al else 0.0


def allowed_labels(ev: Evidence) -> set[str]:
    """The labels the evidence can carry at all, whatever the model says.

    A contradiction needs an aligned pair of conflicting claims (or, for two short memories, the first
    engine's cue); a duplicate needs the memories to cover each other. Logs and session notes are never
    duplicates of each other, and they conflict only through closely aligned claims. Two memories one of which
    links to the other are kept apart by their author: never duplicates; nor are two short ones that say the same
    sentence of two different named things (`_same_sentence_other_names`).
    """
    out = _allowed(ev)
    if ev.linked or (ev.short and _same_sentence_other_names(ev)):
        out.discard("duplicate")
    return out


_NAME_LIKE = re.compile(r"[/@_.]|\d")
"""A token that names a thing rather than saying something: a path, a handle, an identifier, a number."""


def _same_sentence_other_names(ev: Evidence) -> bool:
    """The aligned claims differ by a name on each side ("payments/ is owned by @lumen/payments" against "docs/
    is owned by @lumen/devrel"): one template filled in for two things, or a value changed, never one rule
    written twice."""
    al = ev.comparison.conflict.get("substitution")
    if al is None:
        return False
    only_older, only_newer = al.older.tokens - al.newer.tokens, al.newer.tokens - al.older.tokens
    return any(map(_NAME_LIKE.search, only_older)) and any(map(_NAME_LIKE.search, only_newer))


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
        # two short memories are little more than their claims: the model reads them whole; but a newer one
        # granting leave where the older states the rule is an exception to it (13 of 13 such pairs of
        # pairs-dev are compatible), unless it states the change outright
        if f["exception"] and not max(f["claim_explicit"], f["revision"], conflict_setting(ev)):
            return {"duplicate"}
        if f["scope"]:
            # two rules for different parts of the world (staging and production), or a newer one narrowing the
            # older ("only", "still", "except"), are not one rule twice: 4 of the 115 duplicates of pairs-dev and
            # pairs-dev2 carry such a cue, 60 of their 145 compatible pairs do
            return {"contradiction"}
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
        return al.older.quote, al.newer.quote, al.detail
    revision = ev.features[FEATURES.index("revision")]
    if kind == "contradiction" and revision and cmp.dropped_claim is not None and cmp.added_claim is not None:
        return cmp.dropped_claim.quote, cmp.added_claim.quote, "the newer memory rewrites this claim"
    if kind == "contradiction" and cmp.best is not None:
        return cmp.best.older.quote, cmp.best.newer.quote, "; ".join(ev.score.cues.values())
    if kind == "contradiction":
        return "", "", "; ".join(ev.score.cues.values())
    if cmp.best is not None:
        return cmp.best.older.quote, cmp.best.newer.quote, "same content"
    return "", "", "same content"


_QUOTED = re.compile(r'"([a-z0-9][a-z0-9+#._/@:-]*)"')
"""A single token quoted in a cue (`negation on "postgre"`), shown as written."""


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def classify(
    a: MemoryText, b: MemoryText, weights: Weights, model: Model | None = None, score: PairScore | None = None
) -> Relation | None:
    """Label a pair `contradiction` or `duplicate` with the calibrated probability that the label is right.

    `b` should be the newer memory; `score`, when given, is `score_pair(a, b, weights)` in that order (the cues
    read which one is newer). Returns None below `HOLD_MIN`; between `HOLD_MIN` and `FLAG_MIN` the relation is
    returned with `held_back` set.
    """
    if a.superseded or b.superseded:
        return None
    model = model or load_model()
    if model is None:
        return rule_label(a, b, weights)
    s = score or score_pair(a, b, weights)
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
    elif _gives_same_reason(ev) and p < SAME_REASON_RIGHT:
        p = SAME_REASON_RIGHT
    if p < HOLD_MIN:
        return None
    older_claim, newer_claim, cue = _quote(ev, kind)
    unfounded = (
        kind == "contradiction"
        and ev.short
        and not older_claim
        and not ev.features[FEATURES.index("newer_change")]
        and ev.score.related < UNFOUNDED_RELATED
    )
    # the tokens are stemmed: a person reads the words as the memories write them
    texts = (b.description, b.body, a.description, a.body)
    words = tuple(tx.as_written(t, *texts) for t in ev.score.shared)
    cue = _QUOTED.sub(lambda m: f'"{tx.as_written(m.group(1), *texts)}"', cue)
    shared = ", ".join(words[:4])
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
        words,
        explanation,
        older_claim=older_claim,
        newer_claim=newer_claim,
        held_back=unfounded or p < (FLAG_MIN_SHORT if ev.short else FLAG_MIN),
    )


def _moves_away(a: MemoryText, b: MemoryText) -> bool:
    """`a` states an explicit change away from something `b` asserts, and not the other way round."""
    a_left = changed_from(a.description + " . " + a.rule)
    b_left = changed_from(b.description + " . " + b.rule)
    return bool(a_left & b.tokens) and not (b_left & a.tokens)


def scored_candidates(docs: Sequence[MemoryText], weights: Weights) -> dict[tuple[int, int], PairScore]:
    """The candidate pairs worth judging as (older, newer), each scored once (`score_pair`). Older is by date,
    then key; on the same day (or without dates) the memory that says it changed something is the newer."""
    out: dict[tuple[int, int], PairScore] = {}
    for i, j in sorted(candidate_pairs(docs, weights)):
        a, b = docs[i], docs[j]
        if not enough_shared(a, b):
            continue
        if (a.date, a.key) > (b.date, b.key):
            i, j, a, b = j, i, b, a
        if a.date == b.date and (
            _moves_away(a, b) or (moves_off(b, a, weights) is not None and moves_off(a, b, weights) is None)
        ):
            i, j, a, b = j, i, b, a
        out[(i, j)] = score_pair(a, b, weights)
    return out


def find_relations(
    docs: Sequence[MemoryText], background: Background | None = None, model: Model | None = None
) -> list[Relation]:
    """Every contradiction and duplicate among the given memories, strongest first (held-back ones included);
    `model` defaults to the shipped one."""
    weights = Weights(docs, background)
    out: list[Relation] = []
    scored = scored_candidates(docs, weights)
    weights.partners = partner_counts(docs, scored)
    for (i, j), s in scored.items():
        rel = classify(docs[i], docs[j], weights, model, s)
        if rel is not None:
            out.append(rel)
    out.sort(key=lambda r: (-r.score, r.older, r.newer))
    return out
