"""Freshness per memory type (seed 004's decay table) and the date a memory's age runs from."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from memtui.core.model import Memory

POLICY_DAYS: dict[str, int | None] = {"user": 180, "feedback": None, "project": 30, "reference": 90}
"""Days until a memory of each type is stale; None means it never decays (badge `standing`)."""

EXPLICIT_DATE_KEYS = ("last_verified", "updated", "modified", "timestamp", "created")


@dataclass(frozen=True)
class Freshness:
    """A memory's badge and where its age came from."""

    badge: str
    """fresh, aging, stale, expired, standing, or unknown (untyped or malformed)."""
    age_days: int | None
    since: dt.date | None
    source: str
    """Which date the age runs from: a front matter key, `git`, or `mtime`."""
    period_days: int | None
    expires_at: dt.date | None = None


def to_date(value: Any) -> dt.date | None:
    """A date from a YAML value: date, datetime or an ISO-8601 string (`2026-07-25T19:17:39.087Z`)."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        text = value.strip().strip("\"'")
        if len(text) >= 10:
            try:
                return _iso_date(text[:10])
            except ValueError:
                return None
    return None


@lru_cache(maxsize=4096)
def _iso_date(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def explicit_date(memory: Memory) -> tuple[dt.date | None, str]:
    """The newest date written in the front matter (top level or under `metadata:`), and its key."""
    best: tuple[dt.date | None, str] = (None, "")
    meta = memory.frontmatter.get("metadata")
    present = set(memory.frontmatter) | (set(meta) if isinstance(meta, dict) else set())
    for key in EXPLICIT_DATE_KEYS:
        if key not in present:
            continue
        found = to_date(memory.field_value(key))
        if found and (best[0] is None or found > best[0]):
            best = (found, key)
    return best


def assess(
    memory: Memory,
    today: dt.date,
    fallback: dt.date | None = None,
    fallback_source: str = "mtime",
    policy: dict[str, int | None] | None = None,
) -> Freshness:
    """The freshness badge of a memory on `today`.

    `fallback` is the date of the file's last commit (or its mtime outside git), used only when the
    front matter carries no date at all: checkouts and copies reset mtimes, so they are the last resort.
    """
    policy = POLICY_DAYS if policy is None else policy
    expires = to_date(memory.field_value("expires_at"))
    since, source = explicit_date(memory)
    if since is None:
        since = fallback or dt.datetime.fromtimestamp(memory.mtime or 0).date()
        source = fallback_source if fallback else "mtime"
    age = max(0, (today - since).days)
    period = policy.get(memory.type) if memory.type else None
    if memory.is_malformed:
        return Freshness("unknown", age, since, source, None, expires)
    if expires is not None and expires < today:
        return Freshness("expired", age, since, source, period, expires)
    if memory.type is None:
        return Freshness("unknown", age, since, source, None, expires)
    if period is None:
        return Freshness("standing", age, since, source, None, expires)
    if age > period:
        badge = "stale"
    elif age > period / 2:
        badge = "aging"
    else:
        badge = "fresh"
    return Freshness(badge, age, since, source, period, expires)
