"""The model: memories, index entries, findings. Frozen dataclasses shared by every layer."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True)
class Memory:
    """One memory file of a store, live or archived, as read from disk."""

    path: str
    """Path relative to the store folder (the one holding MEMORY.md), POSIX separators."""
    abs_path: Path
    text: str = field(repr=False)
    """Decoded text (BOM removed); empty for a file that could not be decoded."""
    content_hash: str
    """SHA-256 of the bytes on disk: ops refuse to write when it no longer matches."""
    frontmatter: dict[str, Any] = field(hash=False, repr=False)
    has_frontmatter: bool
    body: str = field(repr=False)
    name: str
    description: str
    type: str | None
    """One of MEMORY_TYPES, or None for an untyped memory."""
    raw_type: str | None
    """The `type` value as written, even when it is not one of the four."""
    status: str
    """`active` or `archived`."""
    in_archive: bool
    """True when the file sits in the archive folder (outside what the agent loads)."""
    mtime: float
    error: str | None = None
    """Why the file could not be read; such a memory is `malformed` and read-only."""
    retried: bool = False
    """Front matter that only Claude Code's quoting retry can read."""
    generation: str = "none"
    """`A` (top-level type), `B` (`metadata:` block) or `none`."""

    @property
    def is_malformed(self) -> bool:
        """Whether the file failed to decode or parse."""
        return self.error is not None

    @property
    def is_active(self) -> bool:
        """Whether the memory takes part in the agent's recall."""
        return self.status == "active"

    @property
    def stem(self) -> str:
        """The file name without folder and extension."""
        return Path(self.path).stem

    @property
    def title(self) -> str:
        """What to call the memory on screen: its name, or the file name."""
        return self.name or self.stem

    def field_value(self, key: str) -> Any:
        """A front matter value, looked up at top level and then under `metadata:`."""
        if key in self.frontmatter:
            return self.frontmatter[key]
        meta = self.frontmatter.get("metadata")
        if isinstance(meta, dict):
            return meta.get(key)
        return None


@dataclass(frozen=True)
class IndexEntry:
    """One `- [Title](file.md) — hook` line of an index."""

    line: int
    """1-based line number in the index file."""
    title: str
    target: str
    """Link target as written, anchor removed."""
    hook: str
    raw: str


@dataclass(frozen=True)
class IndexBudget:
    """What Claude Code loads of MEMORY.md: its 200-line / 25,000-UTF-16-unit budget."""

    lines: int
    units: int
    over_lines: bool
    over_units: bool
    first_unloaded_line: int | None
    """First line of the file (1-based) that Claude Code does not load, or None."""
    max_lines: int = 200
    max_units: int = 25_000

    @property
    def over(self) -> bool:
        """Whether any part of the index is cut off."""
        return self.over_lines or self.over_units


@dataclass(frozen=True)
class Index:
    """A parsed index file (MEMORY.md or ARCHIVE.md): entries plus every other line kept verbatim."""

    path: Path
    text: str = field(repr=False)
    content_hash: str
    entries: tuple[IndexEntry, ...]
    lines: tuple[str, ...] = field(repr=False)
    budget: IndexBudget
    error: str | None = None


class FindingKind(StrEnum):
    """What a finding is about. A `str`, so `finding.kind == "stale"` and JSON output keep the plain names."""

    MALFORMED = "malformed"
    """The file (or MEMORY.md) could not be decoded or parsed: read-only."""
    SCHEMA = "schema"
    """Front matter or body misses what Claude Code expects (name, description, type, Why/How, location)."""
    EXPIRED = "expired"
    """Past its `expires_at` date."""
    STALE = "stale"
    """Older than its type's freshness period."""
    RELATIVE_DATE = "relative-date"
    """A relative date ("next Friday") with no absolute date beside it."""
    SECRET = "secret"
    """Looks like a credential."""
    BROKEN_LINK = "broken-link"
    """A MEMORY.md line links to a file that does not exist."""
    BROKEN_WIKILINK = "broken-wikilink"
    """A `[[name]]` in a live memory (or MEMORY.md) that reaches no live memory: none is named so, or it is archived."""
    DUPLICATE_ENTRY = "duplicate-entry"
    """MEMORY.md lists the same file twice."""
    UNINDEXED = "unindexed"
    """A live memory MEMORY.md does not list."""
    LONG_INDEX_LINE = "long-index-line"
    """A MEMORY.md line longer than Claude Code likes."""
    INDEX_OVER_CAP = "index-over-cap"
    """MEMORY.md is longer than Claude Code loads."""
    ARCHIVED_BUT_LOADED = "archived-but-loaded"
    """Archived, but still inside the folder the agent loads."""
    CONTRADICTION = "contradiction"
    """Two memories that may say opposite things."""
    DUPLICATE = "duplicate"
    """Two memories that say the same thing."""
    SUPERSEDED_LOADED = "superseded-loaded"
    """A memory that says of itself it is superseded, still loaded."""


@dataclass(frozen=True)
class Finding:
    """Something a person needs to decide on, with the reason it was raised."""

    kind: FindingKind
    severity: str
    paths: tuple[str, ...]
    message: str
    line: int | None = None
    score: float | None = None
    cue: str = ""
    """Short label of what triggered it (the negation, the changed value, the pattern)."""
    details: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    held_back: bool = False
    """A contradiction/duplicate candidate below the precision threshold (`Report.held_back`), not shown by default."""

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of `memtui check --json`."""
        out: dict[str, Any] = {
            "kind": self.kind.value,
            "severity": self.severity,
            "paths": list(self.paths),
            "line": self.line,
            "score": None if self.score is None else round(self.score, 3),
            "message": self.message,
        }
        if self.cue:
            out["cue"] = self.cue
        if self.held_back:
            out["held_back"] = True
        if self.details:
            out["details"] = {k: (v.isoformat() if isinstance(v, dt.date) else v) for k, v in self.details.items()}
        return out
