"""`memtui check` against the floor: merely reading and YAML-parsing the same files, timed in the same run.

Issue #9 item 7: at 10,000 memories check takes at most 2x the floor, and grows close to linearly (2,500 → 10,000).
The floor's split is frozen here (the regexes memtui used before python-frontmatter), so the denominator does not
move when memtui's reader changes. `load_s` is memtui's reading alone (core/); the rest of `check_s` is analysis/.

`--compare REV` also times `check` of another revision (exported with `git archive`, run in a subprocess on the
same store), alternating with this tree's, so old and new ratios are measured back to back on the same machine load.

Usage: python benchmarks/check_speed.py [--compare REV] [--sizes 2500,10000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402

from memtui.analysis.check import check_store  # noqa: E402
from memtui.core.store import load_store  # noqa: E402

FLOOR_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
TODAY = dt.date(2026, 11, 30)

# What each timed run executes, in a fresh process (as `memtui check` starts): reading alone, then `check` as the
# command runs it; prints both in seconds.
_TIMED_CHECK = """
import datetime as dt, sys, time
from pathlib import Path
import memtui
assert memtui.__file__.startswith(sys.argv[2]), f"imported {memtui.__file__}, not the tree asked for"
from memtui.analysis.check import check_store
from memtui.core.store import load_store
start = time.perf_counter()
load_store(Path(sys.argv[1]))
load = time.perf_counter() - start
start = time.perf_counter()
check_store(load_store(Path(sys.argv[1])), dt.date(2026, 11, 30), parallel=True)
print(load, time.perf_counter() - start)
"""


def _split(text: str) -> str | None:
    opening = _OPEN.match(text)
    if not opening:
        return None
    closing = _CLOSE.search(text, opening.end())
    return text[opening.end() : closing.start()] if closing else None


def floor(store: Path, loader: type = FLOOR_LOADER) -> int:
    """Read every file and YAML-parse its front matter: the least any checker must do.

    The parser is libyaml's CSafeLoader, as python-frontmatter uses it: the fastest standard way to read
    these files in Python.
    """
    n = 0
    for path in sorted(store.rglob("*.md")):
        block = _split(path.read_bytes().decode("utf-8"))
        if block is not None:
            yaml.load(block, Loader=loader)  # noqa: S506 - a safe loader
            n += 1
    return n


def floor_safe_load(store: Path) -> int:
    """The same with `yaml.safe_load` (PyYAML's default, pure Python): what most tools do."""
    return floor(store, yaml.SafeLoader)


def check(store: Path) -> int:
    """`memtui check` as the command runs it (lint forked beside the pairing)."""
    report = check_store(load_store(store), TODAY, parallel=True)
    return len(report.findings)


def timed(fn: Callable[[Path], object], arg: Path) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    fn(arg)
    return time.perf_counter() - start


def export(rev: str, into: Path) -> Path:
    """The tree of `rev` (memtui package only) in a folder, to import in a subprocess."""
    archive = into / "rev.tar"
    with open(archive, "wb") as fh:
        subprocess.run(["git", "archive", rev, "memtui"], cwd=ROOT, stdout=fh, check=True, timeout=120)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def timed_tree(tree: Path, store: Path) -> tuple[float, float]:
    """Seconds reading and `check` of the memtui in `tree` take on `store`, in a fresh process.

    A fresh process for every run and every tree: nothing warmed by an earlier run (imports, the loader's tag
    cache) flatters one side.
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _TIMED_CHECK, str(store), str(tree)],
        env=env,
        cwd=tree,  # `python -c` puts the working folder first on sys.path: it must be the tree asked for
        capture_output=True,
        text=True,
        timeout=900,
    )
    if out.returncode != 0:
        raise SystemExit(f"timing {tree} failed: {out.stderr[-800:]}")
    load, check_s = out.stdout.strip().splitlines()[-1].split()
    return float(load), float(check_s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", metavar="REV", help="also time check of this git revision, alternating")
    parser.add_argument("--sizes", default="2500,10000", help="store sizes, comma-separated (default 2500,10000)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tree = export(args.compare, Path(tmp)) if args.compare else None
        for count in sizes:
            store = make_store(Path(tmp) / str(count), count)
            floor(store)  # warm the page cache for all
            f, c, load, old = [], [], [], []
            for _ in range(args.repeat):  # interleaved, so drift in machine load hits every figure alike
                f.append(timed(floor, store))
                load_s, check_s = timed_tree(ROOT, store)
                load.append(load_s)
                c.append(check_s)
                if tree is not None:
                    old.append(timed_tree(tree, store)[1])
            fs = timed(floor_safe_load, store)
            row = {
                "floor_s": round(min(f), 3),
                "floor_safe_load_s": round(fs, 3),
                "load_s": round(min(load), 3),
                "check_s": round(min(c), 3),
                "ratio": round(min(c) / min(f), 2),
                "load_ratio": round(min(load) / min(f), 2),
                "analysis_share_of_check": round(1 - min(load) / min(c), 2),
                "ratio_vs_safe_load": round(min(c) / fs, 2),
            }
            if old:
                row[f"check_s_{args.compare}"] = round(min(old), 3)
                row[f"ratio_{args.compare}"] = round(min(old) / min(f), 2)
            results[count] = row
    out: dict[str, object] = {"sizes": results, "linear_would_be": round(sizes[-1] / sizes[0], 2)}
    if len(sizes) > 1:
        out["check_growth"] = round(results[sizes[-1]]["check_s"] / results[sizes[0]]["check_s"], 2)
        out["floor_growth"] = round(results[sizes[-1]]["floor_s"] / results[sizes[0]]["floor_s"], 2)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
