"""Synthetic memory stores of any size for the benchmarks: four types, varied words, realistic shapes."""

from __future__ import annotations

import random
from pathlib import Path

TYPES = ("user", "feedback", "project", "reference")
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "ta",
    "vi",
    "so",
    "pe",
    "da",
    "ri",
    "mo",
    "lu",
    "ke",
    "na",
    "po",
    "si",
    "te",
    "ga",
    "bo",
]


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """Made-up words (so that no real word pairs up by accident), most frequent first."""
    rng = random.Random(seed)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def make_store(root: Path, count: int, seed: int = 11) -> Path:
    """Write `count` memories and a MEMORY.md under root/memory; return the folder."""
    rng = random.Random(seed)
    words = vocabulary(4000)
    weights = [1 / (i + 1) for i in range(len(words))]  # Zipf: a few common words, a long tail
    store = root / "memory"
    store.mkdir(parents=True, exist_ok=True)
    index = ["# Memory Index", ""]
    for i in range(count):
        mtype = TYPES[i % 4]
        pick = rng.choices(words, weights, k=40)
        name = f"{mtype}_{pick[0]}_{i}"
        desc = " ".join(pick[1:8])
        body = " ".join(pick[8:30]) + "."
        if mtype in ("feedback", "project"):
            body += f"\n\n**Why:** {' '.join(pick[30:36])}.\n\n**How to apply:** {' '.join(pick[36:40])}."
        extra = f"location: https://example.com/{pick[2]}\n" if mtype == "reference" else ""
        (store / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: {desc}\ntype: {mtype}\ncreated: 2026-0{1 + i % 9}-1{i % 10}\n"
            f"updated: 2026-0{1 + i % 9}-2{i % 9}\n{extra}---\n\n{body}\n",
            encoding="utf-8",
        )
        index.append(f"- [{name}]({name}.md) — {desc}")
    (store / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return store
