"""Every scanning regex in memtui.core, memtui.analysis and memtui.audit against adversarial input: time must grow linearly.

Issue 7 H2: one 256 KB line of `http://?` made the secret scan take minutes (1 MB ~ 45 min). This feeds each
module-level pattern (found by introspection, so a new one is covered without editing this file) and each
scanning function a long single line built from a repeated unit (`http://?`, `aaaa`, `a-a-`, base64-ish, ...),
times it at growing sizes, and fits the growth exponent: 1 is linear, 2 is quadratic. A pattern/input pair is
flagged when the exponent is above 1.5 and the largest run takes more than 50 ms of CPU (below that, noise).

Usage: python benchmarks/regex_adversarial.py [--quick] [--only SUBSTRING ...]
  --quick  sizes 8 KB and 32 KB (the `make test` version); default 16, 64 and 256 KB.
Exit status 1 when any pair is flagged (the table lists the worst input for each pattern).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _modules() -> tuple[str, ...]:
    """Every module of the packages that scan text (core, analysis, audit): a module split or added is covered."""
    import pkgutil

    import memtui.analysis
    import memtui.audit
    import memtui.core

    names = []
    for package in (memtui.core, memtui.analysis, memtui.audit):
        names += [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    return tuple(sorted(names))


MODULES = _modules()

# Units repeated to one long line: each aims at a prefix some pattern can start on and then scan far.
UNITS = (
    "http://?",
    "https://a.b/?x&",
    "a",
    "a-",
    "a.",
    "a:",
    "a/",
    "a_",
    "a@",
    "a://",
    "a:b@",
    "Ab0+",
    "Ab0/",
    "eyJ-",
    "eyJa.",
    "sk-",
    "sk_live_",
    "ghp_",
    "BSA",
    "ya29.",
    "xoxb-",
    "AKIA",
    "aws_secret_access_key ",
    "secret: a1",
    "password=",
    "-----BEGIN A ",
    "0123456789abcdef",
    " ",
    "\t",
    "`",
    "#a",
    "**why",
    "**how to apply",
    "**",
    "-",
    "1",
    "1.",
    "1 ",
    "?",
    "&",
    "=",
    "\\",
    "a b ",
    "every ",
    "in 1 ",
    "next ",
    "on ",
    "下周",
    "月",
    "每",
    "다음 ",
    "1일 ",
    "내일",
    "あ1日前",  # kana: the Japanese dates are looked for
    "あ来週",
    "[",
    "[[a]]`",  # wikilinks between inline code spans
    "](",
    "- [a](",
    "<!--",
    "---",
    "a.com",
    "x.io/",
    "a-b.c/",
    ("---", "\n"),
    ("---\n", " "),
    ("<!--", "-"),
    ("- [", "\\]"),  # (prefix, unit): anchored patterns
    ("k: a", " "),  # a front matter value ending in a long run of blanks
)


# Patterns that are quadratic alone but only ever run behind a guard that bounds them; the scanner that
# applies the guard is measured instead (it is in `_scanners`).
GUARDED = {
    "index._COMMENT": "index.measure stops its search at the last '-->', so an unclosed '<!--' scans nothing",
}


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found: list[tuple[str, re.Pattern[str]]] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in sorted(vars(module).items()):
            if isinstance(value, re.Pattern):
                found.append((f"{name.split('.')[-1]}.{attr}", value))
            elif isinstance(value, (tuple, list)):
                for item in value:
                    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], re.Pattern):
                        found.append((f"{name.split('.')[-1]}.{attr}[{item[0]}]", item[1]))
            elif isinstance(value, dict):
                for key, item in value.items():
                    if isinstance(item, re.Pattern):
                        found.append((f"{name.split('.')[-1]}.{attr}[{key}]", item))
    return [(n, p) for n, p in found if isinstance(p.pattern, str)]


def _scanners() -> list[tuple[str, Callable[[str], object]]]:
    """The functions that run the patterns over memory text, as check and every action call them."""
    from memtui.analysis import dates, secrets, wikilinks
    from memtui.core import frontmatter
    from memtui.core.index import measure, parse_entry

    anchor = dt.date(2026, 11, 30)

    def reference_schema(body: str) -> object:
        from memtui.analysis import lint
        from memtui.core.reading import read_memory  # noqa: F401  (same import path as check)

        return lint._LOCATION_IN_BODY.search(body), lint._WHY.search(body), lint._HOW.search(body)

    def parse_front(line: str) -> object:
        try:
            return frontmatter.parse("---\nname: " + line + "\n---\nbody\n")
        except frontmatter.FrontMatterError:
            return None

    return [
        ("secrets.scan", secrets.scan),
        ("secrets.suspects", lambda s: secrets.suspects([s])),
        ("dates.find_relative_dates", lambda s: dates.find_relative_dates(s, anchor)),
        ("dates.suspects", lambda s: dates.suspects([s])),
        ("lint schema regexes", reference_schema),
        ("frontmatter.parse", parse_front),
        ("index.measure", measure),
        ("index.parse_entry", lambda s: parse_entry(s, 1)),
        ("wikilinks.wikilinks", wikilinks.wikilinks),
    ]


def _time(func: Callable[[str], object], text: str, repeats: int) -> float:
    # CPU time of this process, not wall time: five test suites share two cores here, and a quadratic scan
    # shows as CPU whatever else runs.
    best = math.inf
    for _ in range(repeats):
        start = time.process_time()
        func(text)
        best = min(best, time.process_time() - start)
    return best


FLOOR_SECONDS = 0.05
"""Below this a run is too short to call quadratic: the quadratic scans issue 7 found took seconds at 32 KB."""


def _line(unit: str | tuple[str, str], size: int) -> str:
    prefix, unit = unit if isinstance(unit, tuple) else ("", unit)
    return prefix + (unit * (size // len(unit) + 1))[: size - len(prefix)]


def measure_growth(
    func: Callable[[str], object],
    unit: str | tuple[str, str],
    sizes: tuple[int, ...],
    *,
    give_up: float = 2.0,
    repeats: int = 3,
    confirm: bool = True,
) -> tuple[list[float], float, bool]:
    """Times at each size (stopping once one run exceeds `give_up` seconds), the fitted exponent, and a flag
    (a flag is confirmed by a second measurement)."""
    times: list[float] = []
    for size in sizes:
        t = _time(func, _line(unit, size), repeats if not times or times[-1] < 0.2 else 1)
        times.append(t)
        if t > give_up:
            break
    if len(times) < 2:
        return times, math.inf, True  # already too slow at the smallest size
    floor = 1e-4  # timer and call overhead: never let a near-zero small run fake a steep growth
    k = math.log(max(times[-1], floor) / max(times[0], floor)) / math.log(sizes[len(times) - 1] / sizes[0])
    flagged = k > 1.5 and times[-1] > FLOOR_SECONDS
    if flagged and confirm and len(times) == len(sizes):
        # one slow sample (a GC pause, a busy core) is not growth: measure again, keep each size's best
        again, _, _ = measure_growth(func, unit, sizes, give_up=give_up, repeats=repeats, confirm=False)
        times = [min(a, b) for a, b in zip(times, again, strict=False)]
        k = math.log(max(times[-1], floor) / max(times[0], floor)) / math.log(sizes[len(times) - 1] / sizes[0])
        flagged = k > 1.5 and times[-1] > FLOOR_SECONDS
    return times, k, flagged


def run(sizes: tuple[int, ...], only: list[str] | None, out: Callable[[str], None] = print) -> int:
    """Measure every pattern and scanner against every unit; print one line per target; return the flag count."""

    def finditer_all(pattern: re.Pattern[str]) -> Callable[[str], object]:
        return lambda s: sum(1 for _ in pattern.finditer(s))

    targets = [(name, finditer_all(p)) for name, p in _patterns() if name not in GUARDED] + _scanners()
    for name, why in GUARDED.items():
        out(f"{name}: guarded ({why})")
    baseline = [_time(lambda s: s.count("\x00"), _line("a", size), 5) for size in sizes]
    out(
        f"linear baseline (str.count) at {', '.join(f'{s // 1024} KB' for s in sizes)}: "
        + ", ".join(f"{t * 1e3:.3f} ms" for t in baseline)
    )
    out(f"{'target':58} {'worst input':22} " + " ".join(f"{s // 1024:>6} KB" for s in sizes) + "   exp  verdict")
    flagged_total = 0
    for name, func in targets:
        if only and not any(o in name for o in only):
            continue
        began = time.process_time()
        worst: tuple[float, str | tuple[str, str], list[float], bool] | None = None
        flags = 0
        for unit in UNITS:
            times, k, flagged = measure_growth(func, unit, sizes)
            flags += flagged
            score = times[-1] * (1000 if flagged else 1) / sizes[len(times) - 1]
            if worst is None or score > worst[0]:
                worst = (score, unit, times, flagged)
        assert worst is not None
        _, unit, times, flagged = worst
        k = (
            math.log(max(times[-1], 1e-4) / max(times[0], 1e-4)) / math.log(sizes[len(times) - 1] / sizes[0])
            if len(times) > 1
            else math.inf
        )
        cells = " ".join(f"{t * 1e3:7.1f}ms" for t in times) + " " * (10 * (len(sizes) - len(times)))
        verdict = f"QUADRATIC on {flags} input(s)" if flags else "linear"
        shown = repr(unit) if isinstance(unit, str) else f"{unit[0]!r}+{unit[1]!r}*"
        out(f"{name[:58]:58} {shown[:22]:22} {cells} {k:5.2f}  {verdict}  [{time.process_time() - began:.0f}s]")
        flagged_total += flags
    out(f"SUMMARY flagged={flagged_total}")
    return flagged_total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8 KB and 32 KB only (the make-test version)")
    parser.add_argument("--only", action="append", help="only targets whose name contains this (repeatable)")
    args = parser.parse_args()
    kb = 1024
    sizes = (8 * kb, 32 * kb) if args.quick else (16 * kb, 64 * kb, 256 * kb)
    return 1 if run(sizes, args.only) else 0


if __name__ == "__main__":
    sys.exit(main())
