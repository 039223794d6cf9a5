"""Precision and recall of memtui's contradiction/duplicate judgement on labelled memory pairs.

Usage: python benchmarks/pairs_eval.py [PAIRS.jsonl] [--verbose]
Default set: ../shared/corpus/pairs-dev/pairs.jsonl. Each pair is judged on its own; token weights come
from all memories of the set (no labels are used), as they would from a real store.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memtui.analysis.relations import Weights, candidate_pairs, classify, prepare  # noqa: E402

FLAG = {"contradiction", "duplicate"}


def _mem(key: str, m: dict) -> object:
    body = m.get("body", "")
    return prepare(key, m.get("name", key), m.get("description", ""), body, str(m.get("updated", "")))


def evaluate(path: Path, verbose: bool = False) -> dict[str, float]:
    """Judge every pair of a JSONL file and return the headline numbers."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    docs = []
    for r in rows:
        docs += [_mem(r["id"] + "a", r["a"]), _mem(r["id"] + "b", r["b"])]
    weights = Weights(docs)
    # the real pipeline: a pair is only judged if candidate generation over the whole set proposes it
    candidates = candidate_pairs(docs, weights)
    tp = fp = fn = 0
    label_right = 0
    found_by = Counter()
    total_by = Counter()
    confusion = Counter()
    for r, i in zip(rows, range(0, len(docs), 2)):
        rel = classify(docs[i], docs[i + 1], weights) if (i, i + 1) in candidates else None
        got = rel.kind if rel else "none"
        gold = r["label"]
        confusion[(gold, got)] += 1
        group = "contradiction-" + ("en" if r["lang"] == "en" else "zh/mixed") if gold == "contradiction" else None
        if group:
            total_by[group] += 1
        if gold in FLAG:
            total_by["flag"] += 1
            if rel:
                tp += 1
                label_right += got == gold
                if gold == "contradiction" and got == "contradiction" and group:
                    found_by[group] += 1
            else:
                fn += 1
        elif rel:
            fp += 1
        if verbose and ((gold in FLAG) != bool(rel) or (rel and got != gold)):
            print(f"{r['id']} {r['lang']:5} gold={gold:13} got={got:13} {rel.explanation if rel else ''}")
            print(f"     a: {r['a']['description']}\n     b: {r['b']['description']}")
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    cz = found_by["contradiction-zh/mixed"] / max(1, total_by["contradiction-zh/mixed"])
    call = (found_by["contradiction-en"] + found_by["contradiction-zh/mixed"]) / max(
        1, total_by["contradiction-en"] + total_by["contradiction-zh/mixed"]
    )
    result = {
        "pairs": len(rows),
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "label_right": round(label_right / tp, 3) if tp else 0.0,
        "contradictions_found": round(call, 3),
        "contradictions_found_zh_mixed": round(cz, 3),
        "false_flags": fp,
    }
    if verbose:
        for (gold, got), n in sorted(confusion.items()):
            print(f"  {gold:13} -> {got:13} {n}")
    return result


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = Path(args[0]) if args else ROOT.parent / "shared" / "corpus" / "pairs-dev" / "pairs.jsonl"
    if not path.exists():
        print(f"no pairs file at {path}")
        return 0
    result = evaluate(path, verbose="--verbose" in sys.argv)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
