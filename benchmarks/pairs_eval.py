"""Precision and recall of memtui's contradiction/duplicate judgement on labelled memory pairs.

Usage: python benchmarks/pairs_eval.py [PAIRS.jsonl] [--cross] [--verbose]

Each pair is judged alone in its own store (two memories, the background table standing in for the rest),
as the acceptance test does. With `--cross` the model and the background table are fitted on one source and
scored on the other, both directions (dev -> dev2 and dev2 -> dev; the real revocations are in both training
sets), and the revocations are scored by a model fitted on the pairs alone: the honest figures. It also pools
both sets and scores each fifth by a model fitted on the rest: the estimate the short-memory threshold is chosen
on. Without it, the shipped model scores the given file (default: both dev sets), which is in-sample.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_judgement import (  # noqa: E402
    STORE_PAIRS,
    Example,
    background_of,
    in_store,
    load_pairs,
    load_revocations,
    memory_from_file,
    train,
)

from memtui.analysis.background import Background, load_background  # noqa: E402
from memtui.analysis.model import Model, load_model  # noqa: E402
from memtui.analysis.relations import (  # noqa: E402
    MemoryText,
    Relation,
    Weights,
    candidate_pairs,
    classify,
    find_relations,
)

SHARED = ROOT.parent / "shared" / "corpus"
FLAG = {"contradiction", "duplicate"}


def evaluate(examples: Sequence[Example], model: Model, bg: Background, verbose: bool = False) -> dict[str, float]:
    """Judge every pair alone and return the headline numbers (held-back pairs count as not flagged)."""
    tp = fp = fn = label_right = 0
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for e in examples:
        docs = [e.older, e.newer]
        weights = Weights(docs, bg)
        rel = classify(e.older, e.newer, weights, model) if (0, 1) in candidate_pairs(docs, weights) else None
        if rel is not None and rel.held_back:
            rel = None
        got = rel.kind if rel else "none"
        if e.gold == "contradiction":
            group = "en" if e.lang == "en" else "zh/mixed"
            total[group] += 1
            found[group] += got == "contradiction"
        if e.gold in FLAG:
            if rel:
                tp += 1
                label_right += got == e.gold
            else:
                fn += 1
        elif rel:
            fp += 1
        if verbose and ((e.gold in FLAG) != bool(rel) or (rel and got != e.gold)):
            print(f"{e.id} {e.lang:5} gold={e.gold:13} got={got:13} {rel.explanation[:150] if rel else ''}")
            print(f"     a: {e.older.description[:100]}\n     b: {e.newer.description[:100]}")
    contra = found["en"] + found["zh/mixed"]
    return {
        "pairs": len(examples),
        "precision": round(tp / (tp + fp), 3) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0,
        "label_right": round(label_right / tp, 3) if tp else 0.0,
        "contradictions_found": round(contra / max(1, total["en"] + total["zh/mixed"]), 3),
        "contradictions_found_zh_mixed": round(found["zh/mixed"] / max(1, total["zh/mixed"]), 3),
        "false_flags": fp,
    }


def one_store(examples: Sequence[Example], model: Model, bg: Background) -> dict[str, int]:
    """Every memory of a pair set in one store, judged as `memtui check` would: the pairs shown within a labelled
    pair (and how many of those need a decision), and those across two labelled pairs, split by what reading them
    found (`scripts/store_pairs.jsonl`; a pair nobody read counts as false). The store pairs of the set scored
    here were read, but the model scoring it never saw them: fitted on the other set."""
    within, across, _ = _shown_in_one_store(examples, model, bg)
    return {
        "memories": 2 * len(examples),
        "shown within a pair": len(within),
        "of those needing a decision": sum(e.gold in FLAG for e in within),
        "shown across pairs, needing a decision": sum(READ.get(pair) in FLAG for pair in across),
        "shown across pairs, false": sum(READ.get(pair) not in FLAG for pair in across),
    }


def stores_of_120(examples: Sequence[Example], model: Model, bg: Background, stores: int = 6) -> dict[str, list[int]]:
    """Stores like the acceptance's realistic one: 14 pairs needing a decision and 46 others of one set (seeded
    draws), all 120 memories in one store. Per store: the 14 found (shown, whatever its label; and shown or held
    back), the other labelled pairs shown, the pairs shown across two labelled pairs, and the false ones among all of
    those (across pairs by `store_pairs.jsonl`)."""
    found, found_held, others, across, false = [], [], [], [], []
    for seed in range(stores):
        draw = random.Random(seed)
        chosen = draw.sample([e for e in examples if e.gold in FLAG], 14)
        chosen += draw.sample([e for e in examples if e.gold not in FLAG], 46)
        within, shown_across, held = _shown_in_one_store(chosen, model, bg)
        found.append(sum(e.gold in FLAG for e in within))
        found_held.append(found[-1] + sum(e.gold in FLAG for e in held))
        others.append(sum(e.gold not in FLAG for e in within))
        across.append(len(shown_across))
        false.append(others[-1] + sum(READ.get(pair) not in FLAG for pair in shown_across))
    return {
        "found of 14": found,
        "found of 14, held back included": found_held,
        "other labelled pairs shown": others,
        "shown across pairs": across,
        "false (other labelled, and across pairs read as false or not read)": false,
    }


def stores_of_singles(
    examples: Sequence[Example], model: Model, bg: Background, stores: int = 6
) -> dict[str, list[int]]:
    """The other shape of a realistic store: 14 pairs needing a decision among 92 single memories of the same set
    (one of each of 92 other labelled pairs, seeded draws), 120 memories. Per store: the 14 found, and the other
    pairs shown that reading found false or nobody read."""
    found, found_held, false = [], [], []
    for seed in range(stores):
        draw = random.Random(seed)
        planted = draw.sample([e for e in examples if e.gold in FLAG], 14)
        singles = [draw.choice((e.older, e.newer)) for e in draw.sample([e for e in examples if e not in planted], 92)]
        owner = {m.key: e for e in planted for m in (e.older, e.newer)}
        docs = [m for e in planted for m in (e.older, e.newer)] + singles
        shown, hits, held = _planted_found(find_relations(docs, bg, model), owner)
        found.append(len(hits))
        found_held.append(len(hits) + held)
        false.append(sum(READ.get(frozenset((r.older, r.newer))) not in FLAG for r in shown if r not in hits))
    return {"found of 14": found, "found of 14, held back included": found_held, "false": false}


def _planted_found(judged: Sequence[Relation], owner: dict[str, Example]) -> tuple[list[Relation], list[Relation], int]:
    """Of the relations found in a store with planted pairs (`owner`: memory key to its pair): those shown, the
    shown ones that are planted pairs, and how many planted pairs are held back."""
    shown = [r for r in judged if not r.held_back]

    def planted(r: Relation) -> bool:
        return r.older in owner and owner[r.older] is owner.get(r.newer)

    return shown, [r for r in shown if planted(r)], sum(r.held_back and planted(r) for r in judged)


REAL_STORES = SHARED / "real-stores"


def real_memories() -> list[MemoryText]:
    """Every memory file of the real stores (their MEMORY.md indexes left out), each keyed by its store."""
    out = []
    for folder in sorted(p for p in REAL_STORES.iterdir() if (p / "store").is_dir()):
        for path in sorted((folder / "store").rglob("*.md")):
            if path.name != "MEMORY.md":
                key = f"{folder.name}/{path.relative_to(folder / 'store')}"
                out.append(memory_from_file(key, path.read_text(encoding="utf-8", errors="replace"), ""))
    return out


def stores_in_real(
    examples: Sequence[Example], model: Model, bg: Background, real: Sequence[MemoryText], stores: int = 6
) -> dict[str, list[int]]:
    """The realistic store the acceptance names, in a third shape: 14 pairs needing a decision planted among 92
    memories real agents wrote (seeded draws from the real stores). Per store: the 14 found, and every other pair
    shown, except those reading found to need a decision (two real memories of one store, `real_pairs.json`, or
    two planted memories of different pairs, `store_pairs.jsonl`)."""
    needed = json.loads((ROOT / "benchmarks" / "real_pairs.json").read_text(encoding="utf-8"))["pairs"]
    decide = {frozenset((f"{n['store']}/{n['a']}", f"{n['store']}/{n['b']}")) for n in needed}
    found, found_held, false = [], [], []
    for seed in range(stores):
        draw = random.Random(seed)
        planted = draw.sample([e for e in examples if e.gold in FLAG], 14)
        owner = {m.key: e for e in planted for m in (e.older, e.newer)}
        docs = [m for e in planted for m in (e.older, e.newer)] + draw.sample(list(real), min(92, len(real)))
        shown, hits, held = _planted_found(find_relations(docs, bg, model), owner)
        found.append(len(hits))
        found_held.append(len(hits) + held)
        pairs = [frozenset((r.older, r.newer)) for r in shown if r not in hits]
        false.append(sum(pair not in decide and READ.get(pair) not in FLAG for pair in pairs))
    return {"found of 14": found, "found of 14, held back included": found_held, "false": false}


def _shown_in_one_store(
    examples: Sequence[Example], model: Model, bg: Background
) -> tuple[list[Example], list[frozenset[str]], list[Example]]:
    """The memories of some labelled pairs in one store: the labelled pairs shown as pairs, the shown pairs that
    join memories of two different labelled pairs, and the labelled pairs held back."""
    owner = {m.key: e for e in examples for m in (e.older, e.newer)}
    docs = [m for e in examples for m in (e.older, e.newer)]
    judged = find_relations(docs, bg, model)
    shown = [r for r in judged if not r.held_back]
    within = [owner[r.older] for r in shown if owner[r.older] is owner[r.newer]]
    held = [owner[r.older] for r in judged if r.held_back and owner[r.older] is owner[r.newer]]
    return within, [frozenset((r.older, r.newer)) for r in shown if owner[r.older] is not owner[r.newer]], held


def _read_store_pairs() -> dict[frozenset[str], str]:
    rows = [json.loads(line) for line in STORE_PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {frozenset((r["older"], r["newer"])): r["label"] for r in rows}


READ = _read_store_pairs()
"""What reading found each store pair to be."""


def pooled_folds(pairs: Sequence[Example], revs: Sequence[Example], k: int = 5) -> dict[str, object]:
    """The shipped recipe's best estimate on unseen pairs like these: both pair sets pooled, each fifth scored by
    a model and a background table fitted on the other four (the model with the revocations too). Returns the
    shown figures; precision and recall from each probability on (every pair of these sets is two short
    memories, so this is the curve the short-memory threshold is read from); and, per band of probability, how
    often the label was right."""
    judged: list[tuple[Example, Relation | None]] = []
    for fold in range(k):
        fit_on = [e for i, e in enumerate(pairs) if i % k != fold]
        bg = background_of(fit_on)
        model = train(fit_on + list(revs), bg)
        for e in (e for i, e in enumerate(pairs) if i % k == fold):
            weights = Weights([e.older, e.newer], bg)
            candidate = (0, 1) in candidate_pairs([e.older, e.newer], weights)
            judged.append((e, classify(e.older, e.newer, weights, model) if candidate else None))
    positives = sum(e.gold in FLAG for e, _ in judged)
    sweep: dict[str, str] = {}
    for t in (0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
        hits = [(e, r) for e, r in judged if r is not None and r.score >= t]
        tp = sum(e.gold in FLAG for e, _ in hits)
        sweep[f"from {t:.2f}"] = f"precision {tp / max(1, len(hits)):.3f} recall {tp / max(1, positives):.3f}"
    bands: dict[str, str] = {}
    for lo, hi in ((0.25, 0.4), (0.4, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)):
        band = [(e, r) for e, r in judged if r is not None and lo <= r.score < hi]
        right = sum(r.kind == e.gold for e, r in band)
        bands[f"{lo:.2f}-{min(hi, 1.0):.2f}"] = f"{right} of {len(band)} right"
    shown = [(e, r) for e, r in judged if r is not None and not r.held_back]
    tp = sum(e.gold in FLAG for e, _ in shown)
    return {
        "pairs": len(judged),
        "precision": round(tp / max(1, len(shown)), 3),
        "recall": round(tp / max(1, positives), 3),
        "label_right": round(sum(r.kind == e.gold for e, r in shown) / max(1, tp), 3),
        "every pair scored": sweep,
        "label right by score": bands,
    }


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    if not (SHARED / "pairs-dev").exists():
        print(f"no pairs at {SHARED}")
        return 0
    out: dict[str, object] = {}
    if "--cross" in sys.argv:
        dev = load_pairs(SHARED / "pairs-dev" / "pairs.jsonl")
        dev2 = load_pairs(SHARED / "pairs-dev2" / "pairs.jsonl")
        revs = load_revocations(SHARED / "real-stores")
        real = real_memories() if REAL_STORES.exists() else []
        for name, fit_on, set_name, score_on in (
            ("dev->dev2", dev, "pairs-dev", dev2),
            ("dev2->dev", dev2, "pairs-dev2", dev),
        ):
            bg = background_of(fit_on)
            model = train(fit_on + revs, bg, in_store(fit_on, set_name))
            out[name] = evaluate(score_on, model, bg, verbose)
            out[f"{name}, all its memories in one store"] = one_store(score_on, model, bg)
            out[f"{name}, six stores of 120 memories"] = stores_of_120(score_on, model, bg)
            out[f"{name}, six stores of 14 pairs among 92 single memories"] = stores_of_singles(score_on, model, bg)
            if real:
                out[f"{name}, six stores of 14 pairs among 92 real memories"] = stores_in_real(
                    score_on, model, bg, real
                )
        out["pooled, 5-fold"] = pooled_folds(dev + dev2, revs)
        # the revocations scored by a model that never saw them (fitted on both pair sets only)
        bg = background_of(dev + dev2)
        model = train(dev + dev2, bg)
        judged = [classify(e.older, e.newer, Weights([e.older, e.newer], bg), model) for e in revs]
        shown = [r for r in judged if r is not None and not r.held_back]
        out["revocations, model fitted without them"] = {
            "revocations": len(revs),
            "flagged": len(shown),
            "labelled_contradiction": sum(r.kind == "contradiction" for r in shown),
        }
        # leave one store out: each store's revocations scored by a model fitted on the others' and the pairs
        flagged = labelled = 0
        for store in sorted({e.store for e in revs}):
            model = train(dev + dev2 + [e for e in revs if e.store != store], bg)
            for e in (e for e in revs if e.store == store):
                rel = classify(e.older, e.newer, Weights([e.older, e.newer], bg), model)
                if rel is not None and not rel.held_back:
                    flagged += 1
                    labelled += rel.kind == "contradiction"
        out["revocations, leave one store out"] = {
            "revocations": len(revs),
            "flagged": flagged,
            "labelled_contradiction": labelled,
        }
    else:
        paths = (
            [Path(args[0])] if args else [SHARED / "pairs-dev" / "pairs.jsonl", SHARED / "pairs-dev2" / "pairs.jsonl"]
        )
        model = load_model()
        assert model is not None, "no shipped model"
        for path in paths:
            out[f"{path.parent.name} (in-sample, shipped model)"] = evaluate(
                load_pairs(path), model, load_background(), verbose
            )
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
