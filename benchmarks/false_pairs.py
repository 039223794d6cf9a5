"""False pairs in a realistic 120-memory store (issue #2: no more than 5).

The store: the demo's 45 live memories (7 planted pairs: 4 contradictions, 3 duplicates), the 30 real topic
files of ../shared/corpus/real (ten unrelated projects), and 45 memories from the unrelated-labelled
development pairs. Every flagged pair other than the planted ones is printed for a person to judge.
Usage: python benchmarks/false_pairs.py
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memtui.analysis.check import check_store  # noqa: E402
from memtui.core.store import load_store  # noqa: E402
from memtui.demo import make_demo_store  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus"
PLANTED = {
    ("feedback_use_npm.md", "feedback_use_bun.md"),
    ("feedback_weekly_report_formal.md", "feedback_weekly_report_casual.md"),
    ("project_stripe_migration.md", "project_stripe_owner_change.md"),
    ("reference_grafana.md", "reference_grafana_cloud.md"),
    ("feedback_commit_english.md", "feedback_commit_imperative.md"),
    ("feedback_small_prs.md", "feedback_small_prs_zh.md"),
    ("feedback_testing_real_db.md", "feedback_no_mock_db_zh.md"),
}


def _mem_text(m: dict) -> str:
    lines = [
        "---",
        f"name: {m['name']}",
        f"description: {json.dumps(m['description'], ensure_ascii=False)}",
        f"type: {m['type']}",
        f"created: {m['created']}",
        f"updated: {m['updated']}",
    ]
    if "location" in m:
        lines.append(f"location: {json.dumps(m['location'], ensure_ascii=False)}")
    return "\n".join(lines) + "\n---\n\n" + m["body"] + "\n"


def main() -> int:
    if not SHARED.exists():
        print("../shared/corpus is not here; nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        store = make_demo_store(dt.date(2026, 11, 30), parent=Path(tmp))
        real = sorted(p for p in (SHARED / "real").rglob("*.md") if p.name not in ("MEMORY.md", "SOURCES.md"))
        for p in real:
            shutil.copy(p, store / f"real_{p.parent.name}_{p.name}")
        rows = [json.loads(line) for line in (SHARED / "pairs-dev" / "pairs.jsonl").read_text().splitlines()]
        unrelated = [r for r in rows if r["label"] == "unrelated"]
        added = 0
        for r in unrelated:
            for side in ("a", "b"):
                if added < 45:
                    (store / f"{r[side]['name']}.md").write_text(_mem_text(r[side]), encoding="utf-8")
                    added += 1
        report = check_store(load_store(store), dt.date(2026, 11, 30))
        live = [m for m in report.store.memories if m.is_active]
        pairs = [f for f in report.findings if f.kind in ("contradiction", "duplicate")]
        extra = [f for f in pairs if tuple(f.paths) not in PLANTED]
        missing = [p for p in PLANTED if p not in {tuple(f.paths) for f in pairs}]
        held = {tuple(f.paths): f.score for f in report.held_back}
        for p in missing:
            print(f"  planted, not shown: {p[0]} ↔ {p[1]}" + (f" (held back at {held[p]:.2f})" if p in held else ""))
        found = [f for f in pairs if tuple(f.paths) in PLANTED]
        print(
            json.dumps(
                {
                    "memories": len(live),
                    "flagged": len(pairs),
                    "planted_found": f"{len(found)}/{len(PLANTED)}",
                    "other_flagged": len(extra),
                },
                indent=2,
            )
        )
        for f in extra:
            print(f"  {f.kind}: {f.paths[0]} ↔ {f.paths[1]} — {f.cue}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
