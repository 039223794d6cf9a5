"""The background table: how many memories of a general collection hold each token.

Built by `scripts/train_judgement.py` from the development pairs and shipped in `data/background.json`, it
lets a store of two memories weigh its words like a big store would (see `relations.Weights`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("data")
BACKGROUND_DOCS = 200
"""Below this many memories a store's own counts are topped up with the background table."""


@dataclass(frozen=True)
class Background:
    """Document frequencies of tokens over `n` memories."""

    n: int
    df: dict[str, int] = field(hash=False)


EMPTY = Background(0, {})


def build(token_sets: Iterable[frozenset[str]], min_df: int = 2) -> Background:
    """The table of a collection; tokens seen in fewer than `min_df` memories are left out (they are rare anyway)."""
    df: Counter[str] = Counter()
    n = 0
    for toks in token_sets:
        df.update(toks)
        n += 1
    return Background(n, {t: c for t, c in sorted(df.items()) if c >= min_df})


def to_json(bg: Background) -> str:
    """The shipped form, stable byte for byte."""
    return json.dumps({"n": bg.n, "df": bg.df}, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


@lru_cache(maxsize=1)
def load_background() -> Background:
    """The shipped table, or an empty one when the package has none."""
    path = DATA / "background.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Background(int(raw["n"]), {str(k): int(v) for k, v in raw["df"].items()})
    except (OSError, ValueError, KeyError, TypeError):
        return EMPTY
