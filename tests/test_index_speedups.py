"""The index reader's speed-ups (issue 9 item 7) give exactly the answers of the straightforward versions.

The references below are the code before the change: the entry regex with an alternation per title character,
and `measure` keeping one file offset per loaded character.
"""

from __future__ import annotations

import random
import re

import pytest

from memtui.core import index

OLD_ENTRY = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>(?:[^\]\\\n]|\\.)+)\]\((?P<target>[^)\s]+)\)\s*(?:(?:—|–|--|-|:)\s*(?P<hook>.*))?$"
)
OLD_FRONT = re.compile(r"\A---[^\S\n]*\n[\s\S]*?---\s*\n?")
OLD_COMMENT = re.compile(r"<!--[\s\S]*?-->")
PIECES = [
    "- ",
    "* ",
    "+ ",
    "[",
    "]",
    "(",
    ")",
    "\\",
    "\\]",
    "a",
    "é",
    "😀",
    " ",
    "\t",
    "#",
    "—",
    "–",
    "--",
    ":",
    "x.md",
]


def _old_first_unloaded(text: str) -> tuple[int, int | None]:
    kept, offsets, pos = [], [], 0
    front = OLD_FRONT.match(text)
    if front:
        pos = front.end()
    for comment in OLD_COMMENT.finditer(text, pos, max(pos, text.rfind("-->") + 3)):
        kept.append(text[pos : comment.start()])
        offsets.extend(range(pos, comment.start()))
        pos = comment.end()
    kept.append(text[pos:])
    offsets.extend(range(pos, len(text)))
    loaded = "".join(kept)
    lead, trail = len(loaded) - len(loaded.lstrip()), len(loaded.rstrip())
    trimmed, offsets = loaded[lead:trail], offsets[lead:trail]
    lines = trimmed.split("\n")
    units = len(trimmed.encode("utf-16-le")) // 2
    cut = len("\n".join(lines[: index.MAX_LINES])) + 1 if len(lines) > index.MAX_LINES else None
    kept_text = trimmed[: cut - 1] if cut is not None else trimmed
    if len(kept_text.encode("utf-16-le")) // 2 > index.MAX_UNITS:
        count, limit = 0, len(kept_text)
        for i, ch in enumerate(kept_text):
            if count >= index.MAX_UNITS:
                limit = i
                break
            count += 2 if ord(ch) > 0xFFFF else 1
        newline = kept_text.rfind("\n", 0, limit + 1)
        cut = newline + 1 if newline > 0 else limit
    first = text.count("\n", 0, offsets[cut]) + 1 if cut is not None and cut < len(trimmed) else None
    return units, first


def test_entry_regex_matches_exactly_what_the_old_one_matched() -> None:
    rng = random.Random(9)
    lines = ["- [a\\]b](x.md) — hook", "- [\\](x.md)", "- [](x.md)", "- [a\\\n](x.md)", "- [\\\\](y.md): h"]
    lines += ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))) for _ in range(20_000)]
    lines += [f"- [{t}](f.md) — h" for t in ("a\\", "\\a\\", "a]b", "a\\\\]b", "x" * 300)]
    for line in lines:
        old, new = OLD_ENTRY.match(line), index._ENTRY.match(line)
        assert (old and old.groupdict()) == (new and new.groupdict()), repr(line)


@pytest.mark.parametrize("seed", range(40))
def test_measure_finds_the_same_first_unloaded_line(seed: int) -> None:
    rng = random.Random(seed)
    parts = []
    if rng.random() < 0.3:
        parts.append("---\nname: index\n---\n")
    parts.append("\n" * rng.randint(0, 3) + " " * rng.randint(0, 2))
    for i in range(rng.randint(150, 420)):
        roll = rng.random()
        if roll < 0.1:
            parts.append(f"<!-- note {i}\nspanning -->")
        elif roll < 0.15:
            parts.append("<!--x-->")
        parts.append(f"- [Memory {i} {'😀' * rng.randint(0, 3)}é](m{i}.md) — " + "w" * rng.randint(0, 160))
        parts.append(rng.choice(["\n", "\r\n", "\n\n"]))
    if rng.random() < 0.3:
        parts.append("<!-- unclosed")
    text = "".join(parts)
    budget = index.measure(text)
    assert (budget.units, budget.first_unloaded_line) == _old_first_unloaded(text)
