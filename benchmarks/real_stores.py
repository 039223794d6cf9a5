"""Judgement on the 12 real stores of ../shared/corpus/real-stores: flags per 25 memories and real revocations.

Usage: python benchmarks/real_stores.py [--pairs] [--store NAME] [--revocations-only] [--misses]

- For every store, `memtui check` runs on the store as copied (HEAD); the pair findings are counted per 25
  live memories, and with `--pairs` every flagged pair is printed with the two claims it rests on, for a
  person to judge. The stores carry no labels: the count of false pairs comes from reading that output.
- For every revocation of revocations.jsonl, the file as it was before the commit is put back beside the
  file as it was after it (both full texts, from the store's history.jsonl), alone in a store, and `check`
  runs: a revocation is *flagged* when the pair is found and *labelled* when it is called a contradiction.
- The pairs of `real_pairs.json`, which readers judged need a person's decision, are looked up in each
  store's check: shown, held back (with its score), or neither (below the held-back floor, or no conflicting
  claims found). It is the recall the stores can give; the false pairs come from reading `--pairs`.
The figures of the engine before issue 9 are printed beside today's (they were measured with this script).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_judgement import revocations  # noqa: E402

from memtui.analysis.check import check_store  # noqa: E402
from memtui.core.store import load_store  # noqa: E402

STORES = ROOT.parent / "shared" / "corpus" / "real-stores"
PAIR_KINDS = ("contradiction", "duplicate")
TODAY = dt.date(2026, 11, 30)
BEFORE_ISSUE_9 = {"pairs": 145, "per_25": 7.05, "revocations_flagged": "81/92", "labelled_contradiction": "12/92"}


JUDGED = Path(__file__).with_name("real_pairs.json")


def _pairs(report) -> list:
    return [f for f in report.findings if f.kind in PAIR_KINDS]


def store_figures(show_pairs: bool, only: str | None, judged: Counter) -> tuple[int, int, Counter]:
    """Check every real store; print its flags per 25 memories (and the pairs); count in `judged` what became of
    the pairs of `real_pairs.json`. Returns totals."""
    needed = json.loads(JUDGED.read_text(encoding="utf-8"))["pairs"]
    total_pairs = total_memories = 0
    kinds: Counter = Counter()
    for folder in sorted(p for p in STORES.iterdir() if (p / "store").is_dir()):
        if only and only not in folder.name:
            continue
        report = check_store(load_store(folder / "store"), TODAY)
        live = [m for m in report.store.memories if m.is_active and not m.is_malformed]
        pairs = _pairs(report)
        held = len(getattr(report, "held_back", ()))
        other = Counter(f.kind for f in report.findings if f.kind in ("superseded-loaded",))
        if show_pairs:
            for f in report.findings:
                if f.kind == "superseded-loaded":
                    print(f"    superseded-loaded {f.paths[0]} [{f.cue}]")
        kinds.update(f.kind for f in pairs)
        total_pairs += len(pairs)
        total_memories += len(live)
        per25 = 25 * len(pairs) / max(1, len(live))
        print(
            f"{folder.name:38} {len(live):4} memories  {len(pairs):3} pairs  {per25:4.1f}/25  held back {held:3}"
            f"  superseded-loaded {other['superseded-loaded']}"
        )
        _look_up(folder.name, [*pairs, *getattr(report, "held_back", ())], needed, judged)
        if show_pairs:
            for f in [*pairs, *getattr(report, "held_back", ())]:
                d = f.details
                held = "held back " if getattr(f, "held_back", False) else ""
                print(f"    {held}{f.kind:13} {f.score:.2f} {f.paths[0]} <-> {f.paths[1]}  [{f.cue}]")
                for side in ("older_claim", "newer_claim"):
                    if d.get(side):
                        print(f"        {side[:5]}: {d[side][:220]!r}")
    return total_pairs, total_memories, kinds


def _look_up(store: str, found: list, needed: list[dict], judged: Counter) -> None:
    """Print and count, for each pair of this store judged to need a decision, whether the check shows it."""
    by_pair = {frozenset(f.paths): f for f in found}
    for n in (n for n in needed if n["store"] == store):
        f = by_pair.get(frozenset((n["a"], n["b"])))
        state = "neither" if f is None else "held back" if getattr(f, "held_back", False) else "shown"
        judged[state] += 1
        score = f" {f.kind} {f.score:.2f}" if f is not None else ""
        print(f"    needs a decision, {state}{score}: {n['a']} <-> {n['b']} ({n['found_by']})")


def revocation_figures(show_misses: bool) -> tuple[int, int, int]:
    """Each revocation alone in a store: (usable, flagged, labelled contradiction)."""
    usable = flagged = labelled = 0
    for n, rev, texts in revocations(STORES):
        usable += 1
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "memory"
            store.mkdir()
            old_name, new_name = "old_" + Path(rev["path_before"]).name, Path(rev["path_after"]).name
            (store / old_name).write_text(texts[0], encoding="utf-8")
            (store / new_name).write_text(texts[1], encoding="utf-8")
            when = dt.datetime.fromisoformat(rev["date"]).timestamp()
            os.utime(store / old_name, (when - 86400 * 30, when - 86400 * 30))
            os.utime(store / new_name, (when, when))
            (store / "MEMORY.md").write_text(
                f"- [old]({old_name}) — old\n- [new]({new_name}) — new\n", encoding="utf-8"
            )
            report = check_store(load_store(store), TODAY)
            pairs = _pairs(report)
            kinds = {f.kind for f in pairs}
            flagged += bool(pairs)
            labelled += "contradiction" in kinds
            if show_misses and "contradiction" not in kinds:
                print(f"  #{n} {rev['repo']} {rev['kind']} {sorted(kinds) or 'not flagged'}: {rev['note'][:150]}")
    return usable, flagged, labelled


def main() -> int:
    if not STORES.exists():
        print("../shared/corpus/real-stores is not here; nothing to measure")
        return 0
    args = sys.argv[1:]
    only = args[args.index("--store") + 1] if "--store" in args else None
    result: dict[str, object] = {}
    if "--revocations-only" not in args:
        judged: Counter = Counter()
        pairs, memories, kinds = store_figures("--pairs" in args, only, judged)
        result.update(pairs=pairs, memories=memories, per_25=round(25 * pairs / max(1, memories), 2), kinds=dict(kinds))
        result["judged to need a decision (real_pairs.json)"] = {
            "pairs": sum(judged.values()),
            "shown": judged["shown"],
            "held back": judged["held back"],
            "neither": judged["neither"],
        }
    if not only:
        usable, flagged, labelled = revocation_figures("--misses" in args)
        result.update(
            revocations=usable, revocations_flagged=f"{flagged}/{usable}", labelled_contradiction=f"{labelled}/{usable}"
        )
    print(json.dumps({"now": result, "before_issue_9": BEFORE_ISSUE_9}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
