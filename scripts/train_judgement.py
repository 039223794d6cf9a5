"""Train the judgement model and build the background table, deterministically.

Usage: python scripts/train_judgement.py [--check] [--shared PATH]

Reads ../shared/corpus/pairs-dev and pairs-dev2 (labelled pairs) and the real revocations of
../shared/corpus/real-stores (each one a contradiction: the file before the commit against the file after it),
judges every pair alone in its own store, as `memtui check` would, and fits `memtui.analysis.model.fit`; then,
from `store_pairs.jsonl` (pairs across two labelled pairs that the engine showed when all of a set's memories were
in one store, labelled by reading them) and the labelled pairs judged in that store, fits the weights of the
store features only.
Writes memtui/analysis/data/background.json and judgement.json; `--check` only compares with the shipped
files and exits 1 when they differ. Same data, same bytes. Both also measure how often the two rules that set a
fixed probability were right, and exit 1 when `relations` states another rate.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memtui.analysis import background as bgmod  # noqa: E402
from memtui.analysis import relations  # noqa: E402
from memtui.analysis.evidence import STORE_FEATURES  # noqa: E402
from memtui.analysis.model import DATA, Model, fit, from_json  # noqa: E402
from memtui.analysis.pairs import partner_counts  # noqa: E402
from memtui.analysis.relations import FEATURES, MemoryText, Weights, evidence, prepare, scored_candidates  # noqa: E402
from memtui.core.frontmatter import FrontMatterError, parse  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus"
LABEL = {"contradiction": "contradiction", "duplicate": "duplicate", "compatible": "none", "unrelated": "none"}


@dataclass(frozen=True)
class Example:
    """One labelled pair: older memory, newer memory, label (`none` for compatible and unrelated)."""

    id: str
    older: MemoryText
    newer: MemoryText
    label: str
    lang: str
    gold: str
    store: str = ""
    """For a revocation, the repository it comes from; for a store pair, the pair set."""
    context: tuple[MemoryText, ...] = field(default=(), compare=False, repr=False)
    """The store the pair is judged in (empty: the pair alone, the background standing in for the rest)."""


def _mem(key: str, m: dict) -> MemoryText:
    return prepare(key, m.get("name", key), m.get("description", ""), m.get("body", ""), str(m.get("updated", "")))


def load_pairs(path: Path) -> list[Example]:
    """The labelled pairs of a pairs.jsonl file."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Example(
            r["id"], _mem(r["id"] + "a", r["a"]), _mem(r["id"] + "b", r["b"]), LABEL[r["label"]], r["lang"], r["label"]
        )
        for r in rows
    ]


def memory_from_file(key: str, text: str, date: str) -> MemoryText:
    """A memory file's text in its comparison form (front matter read leniently: a file it cannot parse counts as
    all body)."""
    try:
        fm = parse(text)
        data, body = fm.data, text[fm.block_end :]
    except FrontMatterError:
        data, body = {}, text
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = str(data.get("name") or meta.get("name") or Path(key).stem)
    return prepare(key, name, str(data.get("description") or ""), body, date)


def revocation_texts(rev: dict, history: Sequence[dict]) -> tuple[str, str] | None:
    """The whole file before the revoking commit and after it (the newer may be another file)."""
    before = after = None
    for h in history:
        if h["commit"] != rev["commit"]:
            continue
        if h["path"] == rev["path_after"] and h.get("after"):
            after = h["after"]
            if rev["path_before"] in (rev["path_after"], h.get("old_path")) and h.get("before"):
                before = h["before"]
        if before is None and h["path"] == rev["path_before"] and h.get("before"):
            before = h["before"]
    return None if before is None or after is None else (before, after)


def revocations(stores: Path) -> list[tuple[int, dict, tuple[str, str]]]:
    """Every usable revocation of `revocations.jsonl`: (its line number, the row, (file before, file after)).

    The one reader of the revocations: training and `benchmarks/real_stores.py` both start here."""
    path = stores / "revocations.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    histories: dict[str, list[dict]] = {}
    out = []
    for n, rev in enumerate(rows):
        if rev["repo"] not in histories:
            folder = stores / rev["repo"].replace("/", "__")
            lines = (folder / "history.jsonl").read_text(encoding="utf-8").splitlines()
            histories[rev["repo"]] = [json.loads(line) for line in lines if line.strip()]
        texts = revocation_texts(rev, histories[rev["repo"]])
        if texts is not None:
            out.append((n, rev, texts))
    return out


def load_revocations(stores: Path) -> list[Example]:
    """The real revocations as contradiction pairs (older file text, newer file text)."""
    out = []
    for n, rev, texts in revocations(stores):
        date = rev["date"][:10]
        older = memory_from_file("old_" + Path(rev["path_before"]).name, texts[0], "0000-" + date)
        newer = memory_from_file(Path(rev["path_after"]).name, texts[1], date)
        out.append(Example(f"r{n:03d}", older, newer, "contradiction", "real", "contradiction", rev["repo"]))
    return out


def background_of(examples: Iterable[Example]) -> bgmod.Background:
    """The background table of the memories of some pairs."""
    return bgmod.build(m.tokens for e in examples for m in (e.older, e.newer))


STORE_PAIRS = Path(__file__).with_name("store_pairs.jsonl")
"""Pairs of memories from two different labelled pairs of one set that the engine showed or held back when all
of the set's memories were in one store, each labelled by reading it (`contradiction`, `duplicate`, `none`):
what a dense store of short memories adds to what pairs alone teach. Ids only; the texts are the sets'."""


def load_store_pairs(examples: Sequence[Example], pair_set: str, path: Path = STORE_PAIRS) -> list[Example]:
    """The store pairs of one set (`pairs-dev` or `pairs-dev2`, whose `examples` these are), each judged in the
    store of all the set's memories."""
    memories = {m.key: m for e in examples for m in (e.older, e.newer)}
    store = tuple(memories.values())
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Example(
            f"{r['older']}~{r['newer']}",
            memories[r["older"]],
            memories[r["newer"]],
            r["label"],
            "store",
            r["label"],
            pair_set,
            store,
        )
        for r in rows
        if r["set"] == pair_set
    ]


def features(examples: Sequence[Example], bg: bgmod.Background) -> list[tuple[float, ...]]:
    """Each pair judged in its store: alone, the background standing in for the rest, or, for a store pair, among
    all the memories of its set."""
    weights: dict[int, Weights] = {}
    out = []
    for e in examples:
        if e.context:
            w = weights.get(id(e.context))
            if w is None:
                w = weights[id(e.context)] = Weights(e.context, bg)
                w.partners = partner_counts(e.context, scored_candidates(e.context, w))
        else:
            w = Weights([e.older, e.newer], bg)
        out.append(evidence(e.older, e.newer, w).features)
    return out


def in_store(examples: Sequence[Example], pair_set: str) -> list[Example]:
    """What a dense store teaches about one set: its store pairs, and those of its labelled pairs that are judged
    at all among all the set's memories (a candidate pair there), each judged in that store."""
    read = load_store_pairs(examples, pair_set)
    memories = read[0].context if read else tuple(m for e in examples for m in (e.older, e.newer))
    index = {m.key: i for i, m in enumerate(memories)}
    judged = {frozenset(pair) for pair in scored_candidates(memories, Weights(memories))}
    placed = [
        replace(e, id=e.id + "@store", store=pair_set, context=memories)
        for e in examples
        if frozenset((index[e.older.key], index[e.newer.key])) in judged
    ]
    return read + placed


def train(examples: Sequence[Example], bg: bgmod.Background, store_examples: Sequence[Example] = ()) -> Model:
    """The model fitted on some pairs, in two steps: every weight from the pairs alone (where the store features
    are zero, so they stay zero), then only the store features' weights from `store_examples`, judged in their
    stores. A pair alone is judged exactly as the first step fitted it; in a big store the second step asks for
    more, because there most candidates are strangers sharing a word."""
    model = fit(features(examples, bg), [e.label for e in examples], FEATURES)
    if not store_examples:
        return model
    rows = features(store_examples, bg)
    return fit(rows, [e.label for e in store_examples], FEATURES, start=model, learn=STORE_FEATURES)


def training_sets(shared: Path) -> tuple[list[Example], list[Example], list[Example]]:
    """(pairs-dev, pairs-dev2, revocations)."""
    return (
        load_pairs(shared / "pairs-dev" / "pairs.jsonl"),
        load_pairs(shared / "pairs-dev2" / "pairs.jsonl"),
        load_revocations(shared / "real-stores"),
    )


def build_all(shared: Path) -> tuple[str, str]:
    """(background.json, judgement.json) as they ship."""
    dev, dev2, revs = training_sets(shared)
    bg = background_of(dev + dev2)
    model = train(dev + dev2 + revs, bg, in_store(dev, "pairs-dev") + in_store(dev2, "pairs-dev2"))
    return bgmod.to_json(bg), model.to_json()


def rule_rates(shared: Path, model: Model) -> dict[str, tuple[int, int]]:
    """(right, fired) on pairs-dev and pairs-dev2 of the two rules that set a fixed probability: a stated change
    is a contradiction, and two short memories flagged while giving the same reason carry the right label."""
    dev, dev2, _ = training_sets(shared)
    bg = background_of(dev + dev2)
    counts = {"STATED_CHANGE_RIGHT": [0, 0], "SAME_REASON_RIGHT": [0, 0]}
    for e in dev + dev2:
        w = Weights([e.older, e.newer], bg)
        ev = evidence(e.older, e.newer, w)
        if relations._stated_change(ev) and "contradiction" in relations.allowed_labels(ev):
            counts["STATED_CHANGE_RIGHT"][0] += e.label == "contradiction"
            counts["STATED_CHANGE_RIGHT"][1] += 1
        rel = relations.classify(e.older, e.newer, w, model) if relations._gives_same_reason(ev) else None
        if rel is not None:
            counts["SAME_REASON_RIGHT"][0] += rel.kind == e.label
            counts["SAME_REASON_RIGHT"][1] += 1
    return {k: (right, n) for k, (right, n) in counts.items()}


def stale_rates(shared: Path, model_json: str) -> list[str]:
    """The rule probabilities in `relations` that no longer state their measured rate (add-one smoothed)."""
    stale = []
    for name, (right, n) in rule_rates(shared, from_json(model_json)).items():
        rate = round((right + 1) / (n + 2), 2)
        print(f"{name}: {right} of {n} right, smoothed {rate}; relations says {getattr(relations, name)}")
        if getattr(relations, name) != rate:
            stale.append(name)
    return stale


def main() -> int:
    args = sys.argv[1:]
    shared = Path(args[args.index("--shared") + 1]) if "--shared" in args else SHARED
    if not (shared / "pairs-dev").exists():
        print(f"no training data at {shared}")
        return 2
    bg_json, model_json = build_all(shared)
    targets = {DATA / "background.json": bg_json, DATA / "judgement.json": model_json}
    if "--check" in args:
        stale = [p.name for p, text in targets.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        print("shipped files differ: " + ", ".join(stale) if stale else "shipped files reproduced exactly")
        stale += stale_rates(shared, model_json)
        return 1 if stale else 0
    DATA.mkdir(parents=True, exist_ok=True)
    for p, text in targets.items():
        p.write_text(text, encoding="utf-8")
        print(f"wrote {p.relative_to(ROOT)} ({len(text)} bytes)")
    if stale_rates(shared, model_json):
        print("update those constants in memtui/analysis/relations.py to the smoothed rates")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
