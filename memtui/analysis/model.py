"""The learned decision: a multinomial logistic regression over a pair's evidence, readable and in plain Python.

Weights ship in `data/judgement.json`, written by `scripts/train_judgement.py`; `fit` is deterministic (full
batch gradient descent from zeros or from a given model, fixed steps, weights rounded), so retraining reproduces
the file exactly.
Each weight reads as "how much this piece of evidence moves the odds of the label against `none`".
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("data")
CLASSES = ("none", "contradiction", "duplicate")


@dataclass(frozen=True)
class Model:
    """Per class (other than `none`, whose weights are zero) a bias and one weight per feature."""

    features: tuple[str, ...]
    bias: dict[str, float] = field(hash=False)
    weights: dict[str, tuple[float, ...]] = field(hash=False)

    def probabilities(self, x: Sequence[float]) -> dict[str, float]:
        """Probability of each class for a feature vector."""
        logits = {"none": 0.0}
        for c in CLASSES[1:]:
            logits[c] = self.bias[c] + sum(w * v for w, v in zip(self.weights[c], x, strict=True))
        top = max(logits.values())
        exp = {c: math.exp(v - top) for c, v in logits.items()}
        total = sum(exp.values())
        return {c: v / total for c, v in exp.items()}

    def to_json(self) -> str:
        """The shipped form, stable byte for byte."""
        body = {
            "classes": list(CLASSES),
            "features": list(self.features),
            "bias": self.bias,
            "weights": {c: dict(zip(self.features, w, strict=True)) for c, w in self.weights.items()},
        }
        return json.dumps(body, indent=1, sort_keys=True) + "\n"


def fit(
    rows: Sequence[Sequence[float]],
    labels: Sequence[str],
    features: Sequence[str],
    *,
    steps: int = 600,
    rate: float = 1.5,
    l2: float = 0.002,
    start: Model | None = None,
    learn: Collection[str] | None = None,
) -> Model:
    """Fit the regression by full-batch gradient descent with momentum; same input, same weights, bit for bit.

    With `start`, begin from its weights; with `learn`, change only the weights of those features (the biases and
    every other weight stay as they start)."""
    d = len(features)
    n = len(rows) or 1
    classes = CLASSES[1:]
    w = {c: [0.0] * d for c in classes}
    b = {c: 0.0 for c in classes}
    if start is not None:
        for c in classes:
            b[c] = start.bias[c]
            for i, name in enumerate(features):
                if name in start.features:
                    w[c][i] = start.weights[c][start.features.index(name)]
    free = [learn is None or name in learn for name in features]
    vw = {c: [0.0] * d for c in classes}
    vb = {c: 0.0 for c in classes}
    # most features of most pairs are zero: visiting only the others gives the same sums, several times faster
    sparse = [[(i, xi) for i, xi in enumerate(x) if xi] for x in rows]
    if len(sparse) != len(labels):
        raise ValueError("one label per row")
    for _ in range(steps):
        gw = {c: [0.0] * d for c in classes}
        gb = {c: 0.0 for c in classes}
        for x, y in zip(sparse, labels, strict=True):
            logits = [0.0] + [b[c] + sum(w[c][i] * xi for i, xi in x) for c in classes]
            top = max(logits)
            exp = [math.exp(v - top) for v in logits]
            total = sum(exp)
            for k, c in enumerate(classes, 1):
                err = exp[k] / total - (1.0 if y == c else 0.0)
                if err:
                    gb[c] += err
                    g = gw[c]
                    for i, xi in x:
                        g[i] += err * xi
        for c in classes:
            if learn is None:
                vb[c] = 0.9 * vb[c] - rate * gb[c] / n
                b[c] += vb[c]
            for i in range(d):
                if not free[i]:
                    continue
                vw[c][i] = 0.9 * vw[c][i] - rate * (gw[c][i] / n + l2 * w[c][i])
                w[c][i] += vw[c][i]
    return Model(
        features=tuple(features),
        bias={c: round(b[c], 4) for c in classes},
        weights={c: tuple(round(v, 4) for v in w[c]) for c in classes},
    )


def from_json(text: str) -> Model:
    """Read the shipped form."""
    raw = json.loads(text)
    features = tuple(raw["features"])
    return Model(
        features=features,
        bias={c: float(raw["bias"][c]) for c in CLASSES[1:]},
        weights={c: tuple(float(raw["weights"][c][f]) for f in features) for c in CLASSES[1:]},
    )


@lru_cache(maxsize=1)
def load_model() -> Model | None:
    """The shipped model, or None when the package has none (the caller then falls back to its rules)."""
    try:
        return from_json((DATA / "judgement.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
