"""The MEMORY.md index: the lenient line grammar and Claude Code's exact load budget."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Sequence
from pathlib import Path

from memtui.core.model import Index, IndexBudget, IndexEntry
from memtui.core.reading import DecodeError, decode, sha256

MAX_LINES = 200
MAX_UNITS = 25_000

# The lenient entry grammar from the format reference: any bullet, a link, an optional separator and hook.
# The title is `(?:[^\]\\\n]|\\.)+` unrolled (same matches, a third faster: no alternation per character).
_ENTRY = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>(?=[^\]\n])[^\]\\\n]*(?:\\.[^\]\\\n]*)*)\]\((?P<target>[^)\s]+)\)\s*"
    r"(?:(?:—|–|--|-|:)\s*(?P<hook>.*))?$"
)
# Claude Code's own pattern (`\A---\s*\n[\s\S]*?---\s*\n?`), same matches, but the opening takes no newline
# before its `\n`: `\s*\n` retried the lazy scan once per blank line (quadratic; issue 7 H2).
_FRONT = re.compile(r"\A---[^\S\n]*\n[\s\S]*?---\s*\n?")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")


def parse_entry(line: str, number: int) -> IndexEntry | None:
    """Parse one index line into an entry, or None for a non-entry line (kept verbatim elsewhere)."""
    raw = line.rstrip("\r")
    match = _ENTRY.match(raw)
    if not match:
        return None
    title, target, hook = match.group("title", "target", "hook")
    target = target.split("#", 1)[0]
    if not target:
        return None
    return IndexEntry(line=number, title=title, target=target, hook=(hook or "").strip(), raw=raw)


def utf16_units(text: str) -> int:
    """JavaScript `string.length`: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def measure(text: str) -> IndexBudget:
    """Measure the index the way Claude Code loads it, and find the first line it will not load.

    Front matter and HTML comments are stripped and the rest trimmed, as in `truncateEntrypointContent`;
    line numbers in the result refer to the original file.
    """
    # CRLF is kept: Claude Code splits on "\n" and counts each "\r" as a unit, and so do we.
    # Build the loaded text while remembering where each kept run of characters starts in it and in the file.
    pieces: list[str] = []
    runs: list[tuple[int, int]] = []  # (offset in the loaded text, offset in the file), one per kept run
    loaded_len = 0
    pos = 0
    front = _FRONT.match(text)
    if front:
        pos = front.end()
    # no comment closes past the last "-->": without this bound every unclosed "<!--" scans to the end (issue 7 H2)
    for comment in _COMMENT.finditer(text, pos, max(pos, text.rfind("-->") + 3)):
        runs.append((loaded_len, pos))
        pieces.append(text[pos : comment.start()])
        loaded_len += comment.start() - pos
        pos = comment.end()
    runs.append((loaded_len, pos))
    pieces.append(text[pos:] if pos else text)
    loaded = "".join(pieces) if len(pieces) > 1 else pieces[0]
    lead = len(loaded) - len(loaded.lstrip())
    trail = len(loaded.rstrip())
    trimmed = loaded[lead:trail] if lead or trail < len(loaded) else loaded
    lines = trimmed.split("\n")
    units = utf16_units(trimmed)
    over_lines = len(lines) > MAX_LINES
    over_units = units > MAX_UNITS
    cut: int | None = None  # index in `trimmed` of the first character not loaded
    if over_lines:
        cut = len("\n".join(lines[:MAX_LINES])) + 1
    kept = trimmed[: cut - 1] if cut is not None else trimmed
    if utf16_units(kept) > MAX_UNITS:
        limit = _char_index_at_unit(kept, MAX_UNITS)
        newline = kept.rfind("\n", 0, limit + 1)
        cut = newline + 1 if newline > 0 else limit
    first_unloaded: int | None = None
    if cut is not None and cut < len(trimmed):
        at = lead + cut
        run_start, file_start = runs[bisect.bisect_right(runs, at, key=lambda run: run[0]) - 1]
        first_unloaded = text.count("\n", 0, file_start + at - run_start) + 1
    return IndexBudget(
        lines=len(lines) if trimmed else 0,
        units=units,
        over_lines=over_lines,
        over_units=over_units,
        first_unloaded_line=first_unloaded,
    )


def _char_index_at_unit(text: str, unit: int) -> int:
    if text.isascii():
        return min(unit, len(text))
    count = 0
    for i, ch in enumerate(text):
        if count >= unit:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


def format_size(units: int) -> str:
    """Claude Code's `formatFileSize`: `<n> bytes` below 1 KB, else `12.3KB` without a trailing `.0`."""
    if units < 1024:
        return f"{units} bytes"
    kb = f"{units / 1024:.1f}".removesuffix(".0")
    return f"{kb}KB"


def parse_index(path: Path) -> Index:
    """Read an index file; an unreadable one yields an Index with `error` set and no entries."""
    try:
        data = path.read_bytes()
        text = decode(data)
    except (OSError, DecodeError) as exc:
        reason = str(exc) if isinstance(exc, DecodeError) else f"cannot be read: {exc}"
        return Index(path=path, text="", content_hash="", entries=(), lines=(), budget=measure(""), error=reason)
    lines = tuple(text.split("\n"))
    return Index(
        path=path, text=text, content_hash=sha256(data), entries=entries_of(lines), lines=lines, budget=measure(text)
    )


def entries_of(lines: Sequence[str]) -> tuple[IndexEntry, ...]:
    """The entries among an index's lines (the text split at "\n"), numbered from 1."""
    return tuple(e for i, line in enumerate(lines, 1) if (e := parse_entry(line, i)) is not None)


def unloaded_entries(entries: Sequence[IndexEntry], budget: IndexBudget) -> list[IndexEntry]:
    """The entries linking to a file (not a URL) on lines Claude Code does not load: at or after the budget's
    first unloaded line (that line may be cut in the middle: its link is not seen whole)."""
    cut = budget.first_unloaded_line
    if cut is None:
        return []
    return [e for e in entries if e.line >= cut and not is_url(e.target)]


def over_reasons(budget: IndexBudget) -> str:
    """Why an index is over Claude Code's load cap, as Claude Code says it: `214 lines (limit: 200)`, `27.6KB
    (limit: 24.4KB)`, or both joined with "and"."""
    reasons = []
    if budget.over_lines:
        reasons.append(f"{budget.lines} lines (limit: {MAX_LINES})")
    if budget.over_units:
        reasons.append(f"{format_size(budget.units)} (limit: {format_size(MAX_UNITS)})")
    return " and ".join(reasons)


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")  # anchored: only ever matched at the start


def is_url(target: str) -> bool:
    """A link target with a scheme (`https:`, `mailto:`): not a memory file."""
    return _SCHEME.match(target) is not None


def entry_line(title: str, target: str, hook: str) -> str:
    """The canonical line memtui writes: `- [Title](file.md) — hook`."""
    title = title.replace("[", "(").replace("]", ")")
    return f"- [{title}]({target}) — {hook}" if hook else f"- [{title}]({target})"


def remove_entries(text: str, index_dir: Path, targets: set[Path]) -> str:
    """The index text without the entry lines that link to any of `targets` (absolute paths); all else kept."""
    kept = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        entry = parse_entry(line.rstrip("\n"), number)
        if entry is not None and not is_url(entry.target):
            if Path(os.path.normpath(index_dir / entry.target)) in targets:
                continue
        kept.append(line)
    return "".join(kept)


def replace_first(text: str, index_dir: Path, targets: set[Path], line: str) -> str:
    """The index text with the first entry line linking to any of `targets` (absolute paths) replaced by `line`
    (an `entry_line`), where it stood: its list marker, indentation and line ending kept, every other byte too.
    Unchanged when no line links to them."""
    lines = text.splitlines(keepends=True)
    for number, raw in enumerate(lines, 1):
        entry = parse_entry(raw.rstrip("\r\n"), number)
        if entry is None or re.match(r"^[a-z][a-z0-9+.-]*:", entry.target):
            continue
        if Path(os.path.normpath(index_dir / entry.target)) in targets:
            match = _ENTRY.match(raw.rstrip("\r\n"))
            assert match is not None  # parse_entry matched the same line
            marker = raw[: match.start("title") - 1]  # "- ", "  * " …: up to the title's "["
            ending = raw[len(raw.rstrip("\r\n")) :]
            lines[number - 1] = marker + line[line.index("[") :] + ending
            return "".join(lines)
    return text


def add_entry(text: str, line: str) -> str:
    """The index text with `line` added after its last entry (or at the end), in the file's newline style."""
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    last_entry = None
    for i, raw in enumerate(lines):
        if parse_entry(raw.rstrip("\r\n"), i + 1) is not None:
            last_entry = i
    if last_entry is None:
        if text and not text.endswith(("\n", "\r")):
            text += nl
        return text + line + nl
    if not lines[last_entry].endswith(("\n", "\r")):
        lines[last_entry] += nl
    lines.insert(last_entry + 1, line + nl)
    return "".join(lines)


def has_entry(text: str, index_dir: Path, target: Path) -> bool:
    """Whether an index text links to `target` (absolute path)."""
    for number, line in enumerate(text.splitlines(), 1):
        entry = parse_entry(line, number)
        if entry is not None and Path(os.path.normpath(index_dir / entry.target)) == target:
            return True
    return False
