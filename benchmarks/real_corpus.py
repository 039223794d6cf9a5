"""`memtui check` on every folder of ../shared/corpus/real: every topic file accounted for, and the problems
SOURCES.md describes found. Prints one line per folder and exits 1 if an expectation fails.

Usage: python benchmarks/real_corpus.py
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memtui.analysis.check import check_store  # noqa: E402
from memtui.core.store import load_store  # noqa: E402

REAL = ROOT.parent / "shared" / "corpus" / "real"

# folder → (store path inside it, expected (kind, path-or-None, line-or-None) findings)
EXPECT = {
    "PinKushin__PokemonBattleJournal": (
        "PokemonBattleJournal/docs/memory",
        [
            ("index-over-cap", "MEMORY.md", 109),
            ("duplicate-entry", "feedback_navigate_to_every_test.md", 65),
            ("broken-link", "user_philosophical_framework.md", 121),
            ("unindexed", "feedback_codebehind_preference.md", None),
        ],
    ),
    "duyet__kb": (".", []),
    "Xio-Shark__xiocode_settings": ("memory", []),
    "Aleslammer__deathwatch_foundryvtt": (".claude/memory", [("schema", "architecture.md", None)]),
    "LuckyLee07__HelloOgre3D": (
        "docs/memory",
        [("schema", "tracy-profiler-no-cli-capture.md", None), ("schema", "crlf-encoding-gotcha.md", None)],
    ),
    "AlexSergey__opensa": (".claude/memory", []),
    "Laiwxx__LYSOPSTracker": (
        "docs/memory",
        [("broken-link", "feedback_moeg0d5q06zq.md", 56), ("schema", "feedback_mo9cothqexv8.md", None)],
    ),
    "ActorForth__ActorForth": (".claude/memory", []),
    "DEFRA__nrf-solution": (".claude/agent-memory/code-reviewer", []),
    "joujin-git__KoEnVue": (".claude/memory", [("malformed", "negative-result-verify-instrument.md", None)]),
}


def main() -> int:
    if not REAL.exists():
        print("../shared/corpus/real is not here; nothing to check")
        return 0
    failures = 0
    for folder, (sub, expected) in EXPECT.items():
        path = REAL / folder / sub
        report = check_store(load_store(path), dt.date(2026, 11, 30))
        layout = report.store.layout
        files = sorted(layout.rel(p) for p in layout.scan_root.rglob("*.md") if p.name != "MEMORY.md")
        seen = sorted(m.path for m in report.store.memories)
        problems = []
        if files != seen:
            problems.append(f"files {files} != memories {seen}")
        for kind, target, line in expected:
            if not any(
                f.kind == kind
                and (target in f.paths or target == "MEMORY.md" and not f.paths or target in f.paths)
                and (line is None or f.line == line)
                for f in report.findings
            ):
                problems.append(f"missing {kind} {target} {line or ''}")
        if report.store.index:
            b = report.store.index.budget
            budget = f"{b.lines} lines/{b.units} units" + (f", cut at {b.first_unloaded_line}" if b.over else "")
        else:
            budget = "no index"
        kinds = sorted({f.kind for f in report.findings})
        status = "ok" if not problems else "FAIL: " + "; ".join(problems)
        print(f"{folder:36} {len(seen):2} memories · {budget} · {', '.join(kinds)} · {status}")
        failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
