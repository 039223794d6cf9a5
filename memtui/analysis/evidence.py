"""The evidence about a candidate pair: the feature vector the model reads and the claims it can quote.

`evidence` aligns the two memories claim by claim (`claims.compare`), adds the conflicts found across whole
memories (another default for a named setting, a move away from what the other is named after), and turns
the document scores, the claim alignment and the first engine's verdict into `FEATURES`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memtui.analysis import text as tx
from memtui.analysis.claims import Aligned, Claim, Comparison, compare, setting_conflict
from memtui.analysis.lexicon import PERMISSIONS, PROHIBITIONS
from memtui.analysis.memory_text import MemoryText
from memtui.analysis.note_kinds import is_event_record
from memtui.analysis.pairs import SHORT_CLAIMS, PairScore, Relation, Weights, rule_label, score_pair

STORE_FEATURES = ("crowd", "crowd_weak_contradiction", "crowd_weak_duplicate", "crowd_unrelated")
"""The features that are zero for a pair alone: how crowded the pair's neighbourhood in the store is
(`Weights.crowd`), alone and times what a crowd makes cheap (a first-engine verdict on two weakly related
memories; little relatedness). `scripts/train_judgement.py` fits their weights on pairs judged in dense stores,
after every other weight is fitted on pairs alone."""
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
    "newer_change",
    *STORE_FEATURES,
)
"""What the model reads about a pair (all between 0 and 1)."""
CONFLICT_CUES = ("negation", "value", "change", "antonym", "substitution", "explicit", "setting")
REVISION_MIN = 0.6
"""Share of claims two memories state word for word from which one reads as a revision of the other."""
SETTING_SIMILARITY = 0.6
"""Two memories stating another default for the same named setting count as a closely aligned claim pair."""


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
    same_reason: float = 0.0
    """How much the reasons (**Why:**) two short memories give overlap (0 for long ones)."""


def evidence(a: MemoryText, b: MemoryText, weights: Weights, s: PairScore | None = None) -> Evidence:
    """Document-level scores, claim alignment and the first engine's verdict for a pair (`b` the newer)."""
    s = s or score_pair(a, b, weights)
    cmp = compare(a.claims, b.claims, weights.idf, weights.total)
    found = setting_conflict(a.defaults, b.defaults) if a.defaults and b.defaults else None
    if found is None and a.quantities and b.quantities:
        found = setting_conflict(a.quantities, b.quantities, what="")
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
    rules_d = 1.0 if rules is not None and rules.kind == "duplicate" else 0.0
    # in a crowded neighbourhood most candidates are strangers that share a word, so a first-engine verdict on
    # two weakly related memories means less there
    crowd = weights.crowd(a, b)
    unrelated = 1.0 - min(1.0, s.related)
    ko_ja = tx.is_ko_ja(a.description + a.rule) or tx.is_ko_ja(b.description + b.rule)
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
        rules_d,
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
        _newer_change(a, b, weights) if short and not ko_ja else 0.0,
        crowd,
        crowd * rules_c * unrelated,
        crowd * rules_d * unrelated,
        crowd * unrelated,
    )
    return Evidence(
        features=x,
        score=s,
        comparison=cmp,
        rules=rules,
        short=bool(short),
        ko_ja=ko_ja,
        linked=a.links_to(b) or b.links_to(a),
        same_reason=_same_reason(a, b, weights) if short else 0.0,
    )


def states_change(c: Claim) -> bool:
    """The claim uses a change word that cannot also be read as a rule or a mechanism."""
    return bool(set(c.change) - _NOT_A_CHANGE)


def _newer_change(a: MemoryText, b: MemoryText, weights: Weights) -> float:
    """The newer memory says something changed ("moved to", "no longer", 不再) in a claim that shares a rare term
    with the older memory, and the older memory uses no change word at all: the older one states what was, the newer one
    what is now. Only read for two short memories: in a long note a change word narrates its own story."""
    if a.says_change or not b.says_change:
        return 0.0
    changes = [c for c in b.claims if states_change(c)]
    if not changes:
        return 0.0
    # what the newer memory repeats word for word is agreement, not what was
    repeated = {c.norm for c in b.claims}
    older = frozenset().union(*(c.tokens for c in a.claims if c.norm not in repeated))
    return 1.0 if any(weights.idf(t) >= NEWER_CHANGE_IDF for c in changes for t in c.tokens & older) else 0.0


NEWER_CHANGE_IDF = 4.5
"""The change claim and the older memory must share a term this rare (in fewer than one memory in 55 of the
store, the background table included): a shared "change", "full" or "30" ties two unrelated memories of a big
store together, a shared "kibana" or "bastion" does not."""


_NOT_A_CHANGE = frozenset({"instead", "instead of", "replaces"})
"""Change cues that also state a rule or a mechanism ("use X instead", "a new capture replaces the oldest")."""


def _same_reason(a: MemoryText, b: MemoryText, weights: Weights) -> float:
    """Weighted overlap of the reasons two memories give (their **Why:** parts): two memories stating one rule
    in other words still give the same reason for it, where a neighbouring rule of the same domain, or the rule
    that replaced it, gives its own. Across languages only English words and the dictionary's English senses
    can meet, so only they are counted."""
    ra, rb = a.reason, b.reason
    if a.cjk != b.cjk:
        ra, rb = frozenset(t for t in ra if t.isascii()), frozenset(t for t in rb if t.isascii())
    shared = ra & rb
    if len(shared) < SAME_REASON_WORDS:
        # one shared word ("support", "slow") is two reasons touching, not the same reason given twice (a Chinese
        # word and its English sense count as two: counting the words alone lost 7 lifts of pairs-dev and
        # pairs-dev2, all 7 right)
        return 0.0
    ws = sum(weights.idf(t) for t in shared)
    return min(1.0, ws / min(weights.total(ra), weights.total(rb)))


SAME_REASON_WORDS = 2
"""Words two reasons must share at the least to be read as one reason."""


_LIFTED = re.compile(r"\b(?:again|now|anymore|any more|lifted|no longer)\b|又|恢复|现在|不再")
"""Words saying a leave is a rule lifted ("fine again", "now allowed"), not an exception to it."""


MOVED_NAME_IDF = 3.0
"""A name word a move leaves behind must be rare in the store (`redis` in a few notes, not `check` in many)."""


def moves_off(named: MemoryText, mover: MemoryText, weights: Weights) -> tuple[Claim, str] | None:
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
    against `project_redis_state_store`): a change statement whose object is the other's subject. Not when the
    other is the record of an event (`project_incident_redis_maxclients`): a trial read that pair as false."""
    for named, mover in ((a, b), (b, a)):
        if is_event_record(named.title):
            continue  # moving away from Redis after a Redis incident does not make the incident's record wrong
        found = moves_off(named, mover, weights)
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
    """The newer memory (`b`) grants leave ("may", "is fine", 不用) where the older states a rule: an exception
    to the rule for a narrower case, compatible with it, unless it says the rule was lifted ("fine again",
    "now"). The other way round, a rule written after the leave, is the leave withdrawn, not an exception: on
    pairs-dev 13 of 13 pairs whose newer memory grants the leave are compatible, 2 of the 3 whose older one
    does are contradictions."""
    if _grants_leave(b) and not _grants_leave(a) and PROHIBITIONS.search(a.folded):
        return 1.0
    return 0.0


_COPY_WORDS = re.compile(r"\b(?:old|copy|backup|bak|prev|previous|orig|original)\b")


def _name_key(title: str) -> str:
    """A memory's name without separators and copy markers: `old_debugging` and `debugging` are one memory."""
    return re.sub(r"[\s_\-.]+", "", _COPY_WORDS.sub(" ", re.sub(r"[_\-.]+", " ", title.lower())))
