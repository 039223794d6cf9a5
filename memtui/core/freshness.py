"""Freshness per memory type (seed 004's decay table) and the date a memory's age runs from."""

from __future__ import annotations

import datetime as dt
import re
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
    """fresh, aging, stale, expired, standing, undated (no date it was written is known), or unknown (untyped or
    malformed)."""
    age_days: int | None
    since: dt.date | None
    source: str
    """Which date the age runs from: a front matter key, `git`, `name` (a date in its name), `mtime`, or `init`
    (none: see `added`)."""
    period_days: int | None
    expires_at: dt.date | None = None
    added: dt.date | None = None
    """The day memtui's `init` put the file under git, when that is the only date git has for it: it was written
    on or before that day, so its age is unknown (badge `undated`, no `age_days`)."""


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


NAME_DATE = re.compile(r"(?<!\d)(\d{4})[-_](\d{2})[-_](\d{2})(?!\d)")
"""A day written in a memory's name or file name (`bug_fixes_and_context_2026-05-09`, `session_2026_08_06`)."""


def days_named(value: str) -> set[dt.date]:
    """The valid days `NAME_DATE` finds in a name."""
    days = set()
    for year, month, day in NAME_DATE.findall(value):
        try:
            days.add(dt.date(int(year), int(month), int(day)))
        except ValueError:
            continue
    return days


def name_date(memory: Memory) -> dt.date | None:
    """The one day a memory's name (front matter) or file name gives, as a daily log or a session's note is named
    after the day it was written; None when neither names exactly one."""
    for value in (str(memory.frontmatter.get("name") or ""), memory.stem):
        days = days_named(value)
        if len(days) == 1:
            return days.pop()
    return None


def assess(
    memory: Memory,
    today: dt.date,
    fallback: dt.date | None = None,
    fallback_source: str = "mtime",
    policy: dict[str, int | None] | None = None,
    *,
    added: dt.date | None = None,
) -> Freshness:
    """The freshness badge of a memory on `today`.

    `fallback` is the date of the file's last commit (or its mtime outside git), used only when the
    front matter carries no date at all: checkouts and copies reset mtimes, so they are the last resort.
    Without a front matter date or a commit, a day the memory's name gives (not after `today`) is when it was
    written. `added` (with no `fallback`) is the day memtui's `init` put the file under git and nothing wrote it
    since: that says when it was committed, not when it was written, so a decaying type is `undated`, with no age.
    """
    policy = POLICY_DAYS if policy is None else policy
    expires = to_date(memory.field_value("expires_at"))
    since, source = explicit_date(memory)
    if since is None and not (fallback is not None and fallback_source == "git"):
        named = name_date(memory)
        if named is not None and named <= today:
            since, source = named, "name"
    if since is None and fallback is None and added is not None:
        return _undated(memory, today, policy, expires, added)
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


def _undated(
    memory: Memory, today: dt.date, policy: dict[str, int | None], expires: dt.date | None, added: dt.date
) -> Freshness:
    """The badge of a memory whose only date is the day memtui's `init` committed it: no age is claimed."""
    period = policy.get(memory.type) if memory.type else None
    if memory.is_malformed or memory.type is None:
        badge = "unknown"
    elif expires is not None and expires < today:
        badge = "expired"
    elif period is None:
        badge = "standing"
    else:
        badge = "undated"
    return Freshness(badge, None, None, "init", period, expires, added)


def age_text(fresh: Freshness) -> str:
    """How old a memory is, in words: `12 days since 2026-11-18 (updated)`, or why that is not known."""
    if fresh.since is not None:
        return f"{fresh.age_days} days since {fresh.since.isoformat()} ({fresh.source})"
    if fresh.added is not None:
        return f"age unknown: no date in the front matter, and memtui init put it under git {fresh.added.isoformat()}"
    return "age unknown"
