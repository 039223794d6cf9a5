"""`memtui check` against the floor: merely reading and YAML-parsing the same files, timed in the same run.

Issue #2: at 10,000 memories check takes at most 3x the floor, and grows close to linearly (2,500 → 10,000).
Usage: python benchmarks/check_speed.py
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402

from memtui.analysis.check import check_store  # noqa: E402
from memtui.core.frontmatter import split_block  # noqa: E402

FLOOR_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from memtui.core.store import load_store  # noqa: E402


def floor(store: Path, loader: type = FLOOR_LOADER) -> int:
    """Read every file and YAML-parse its front matter: the least any checker must do.

    The parser is libyaml's CSafeLoader, as python-frontmatter uses it: the fastest standard way to read
    these files in Python.
    """
    n = 0
    for path in sorted(store.rglob("*.md")):
        text = path.read_bytes().decode("utf-8")
        block, _ = split_block(text)
        if block is not None:
            yaml.load(block, Loader=loader)
            n += 1
    return n


def floor_safe_load(store: Path) -> int:
    """The same with `yaml.safe_load` (PyYAML's default, pure Python): what most tools do."""
    return floor(store, yaml.SafeLoader)


def check(store: Path) -> int:
    report = check_store(load_store(store), dt.date(2026, 11, 30), parallel=True)  # as `memtui check` runs it
    return len(report.findings)


def best_of(fn, arg, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count in (2500, 10000):
            store = make_store(Path(tmp) / str(count), count)
            floor(store)  # warm the page cache for both
            f = best_of(floor, store)
            fs = best_of(floor_safe_load, store, repeat=1)
            c = best_of(check, store)
            results[count] = {
                "floor_s": round(f, 3),
                "floor_safe_load_s": round(fs, 3),
                "check_s": round(c, 3),
                "ratio": round(c / f, 2),
                "ratio_vs_safe_load": round(c / fs, 2),
            }
    growth = results[10000]["check_s"] / results[2500]["check_s"]
    floor_growth = results[10000]["floor_s"] / results[2500]["floor_s"]
    out = {
        "sizes": results,
        "check_growth_2500_to_10000": round(growth, 2),
        "floor_growth_2500_to_10000": round(floor_growth, 2),
        "linear_would_be": 4.0,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
