"""Turning domain objects into Content safely: text from memory files is never read as markup or escapes."""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from textual.content import Content

from memtui.core.display import visible
from memtui.core.index import format_size
from memtui.core.model import Finding, Memory
from memtui.workspace import Workspace

BADGES = ("fresh", "aging", "stale", "expired", "standing", "unknown")
LINT = {"schema", "archived-but-loaded", "unindexed", "broken-link", "duplicate-entry", "broken-wikilink"}
"""Finding kinds the `L` flag stands for. Stale and expired show in the badge; a relative date has its own `T`."""
LEGEND = (
    "C contradiction · D duplicate · $ secret · ! malformed (read-only) · T relative date (f fixes it) · "
    "L lint (front matter, index, links)"
)

NAME_WIDTH = 32
"""The widest name column on a wide terminal, where age and description follow it."""


def clean(text: str) -> str:
    """Memory text with control characters (terminal escapes) shown as visible `\\x1b`, never sent raw. A Windows
    line ending is a line ending (a CRLF file showed `\\r` at the end of every line); a lone carriage return,
    which would move the cursor, is still shown as `\\r`."""
    return visible(text.replace("\r\n", "\n"), keep_newlines=True)


def plain(text: str) -> Content:
    """Untrusted text as Content: no markup is parsed, no control code survives."""
    return Content(clean(text))


def styled(text: str, variable: str) -> Content:
    """Untrusted text in a theme colour (`badge-fresh`, `flag-secret`, ...)."""
    return Content.from_markup(f"[${variable}]$text[/]", text=clean(text))


def diff(text: str) -> Content:
    """A unified diff in theme colours: added lines fresh, removed lines expired, the rest muted."""

    def colour(line: str) -> str:
        return "badge-fresh" if line.startswith("+") else "badge-expired" if line.startswith("-") else "badge-unknown"

    return Content("\n").join(styled(line, colour(line)) for line in text.splitlines())


@lru_cache(maxsize=64)
def badge(name: str) -> Content:
    """A freshness badge in its theme colour."""
    return styled(f"{name:<8}", f"badge-{name if name in BADGES else 'unknown'}")


def flags(kinds: set[str] | frozenset[str]) -> Content:
    """One letter per finding kind worth a flag, each in its colour (the legend is `LEGEND`)."""
    return _flags(frozenset(kinds))


@lru_cache(maxsize=256)
def _flags(kinds: frozenset[str]) -> Content:
    parts: list[Content] = []
    for kind, letter in (("contradiction", "C"), ("duplicate", "D"), ("secret", "$"), ("malformed", "!")):
        parts.append(
            styled(letter, f"flag-{'lint' if kind == 'malformed' else kind}") if kind in kinds else Content(" ")
        )
    parts.append(styled("T", "badge-aging") if "relative-date" in kinds else Content(" "))
    parts.append(styled("L", "flag-lint") if kinds & LINT else Content(" "))
    return Content("").join(parts)


def row(
    memory: Memory, ws: Workspace, marked: bool, *, name: int = NAME_WIDTH, description: int = 0
) -> tuple[Content, ...]:
    """The cells of a memory's row: badge, flags, the name cut in the middle to `name` columns (its end often tells
    two apart); with `description` > 0 (a wide terminal) its age in days and its description cut to `description`
    columns."""
    fresh = ws.freshness.get(memory.path)
    kinds: set[str] = {f.kind for f in ws.findings_for(memory.path)}
    if memory.is_malformed:
        kinds.add("malformed")
    cells = (badge(fresh.badge if fresh else "unknown"), flags(kinds), plain(name_cell(memory, marked, name)))
    if description <= 0:
        return cells
    age = f"{fresh.age_days}d" if fresh and fresh.age_days is not None else "–"
    return (
        *cells,
        Content(f"{age:>5}"),
        plain(cut(memory.description, description)),
    )


def name_cell(memory: Memory, marked: bool, width: int) -> str:
    """A memory's name for its row, cut in the middle to `width`: `• ` when marked, and `(read-only)` after the name
    of a malformed memory when both fit (else the name, and the `!` flag says it)."""
    name = ("• " if marked else "") + memory.title
    if memory.is_malformed and cell_len(name + " (read-only)") <= width:
        return name + " (read-only)"
    return cut_middle(name, width)


def cut(text: str, width: int) -> str:
    """Text that fits `width` terminal cells (CJK counts two), on one line, cut with an ellipsis (never silently)."""
    text = " ".join(text.split())
    if text.isascii():  # one cell a character: the common case, and cheap for 10,000 rows
        return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
    if cell_len(text) <= width:
        return text
    return _cells_from_start(text, width - 1) + "…"


def cut_middle(text: str, width: int) -> str:
    """Text that fits `width` terminal cells on one line, cut in the middle with an ellipsis: its start and its end
    stay, the end the longer (a name's distinguishing part — a date, a number, which file — is often its end:
    `bug_fixes_…t_2026-05-09.md`)."""
    text = " ".join(text.split())
    if (len(text) if text.isascii() else cell_len(text)) <= width:  # one cell a character: cheap for 10,000 rows
        return text
    if width <= 1:
        return "…"[: max(width, 0)]
    keep = width - 1
    if text.isascii():
        head = text[: keep * 2 // 5]
        return head + "…" + text[len(text) - (keep - len(head)) :]
    head = _cells_from_start(text, keep * 2 // 5)
    tail = _cells_from_end(text, keep - cell_len(head))
    return head + "…" + tail


def _cells_from_start(text: str, width: int) -> str:
    """The longest start of `text` that fits `width` cells."""
    used = 0
    for end, ch in enumerate(text):
        used += cell_len(ch)
        if used > width:
            return text[:end]
    return text


def _cells_from_end(text: str, width: int) -> str:
    """The longest end of `text` that fits `width` cells."""
    return _cells_from_start(text[::-1], width)[::-1]


def budget_line(ws: Workspace) -> Content:
    """`MEMORY.md 142/200 lines · 18.2/24.4KB`, in a warning colour past 70%, naming the first invisible line."""
    index = ws.store.index
    if index is None:
        return Content("no MEMORY.md")
    b = index.budget
    share = max(b.lines / b.max_lines, b.units / b.max_units)
    colour = "budget-over" if b.over else ("budget-warn" if share > 0.7 else "budget-ok")
    units = f"{b.units / 1024:.1f}/{b.max_units / 1024:.1f}KB" if b.units >= 1024 else f"{format_size(b.units)}/24.4KB"
    text = f"MEMORY.md {b.lines}/{b.max_lines} lines · {units}"
    if b.over and b.first_unloaded_line:
        text += f" · line {b.first_unloaded_line} on is invisible to the agent"
    return styled(text, colour)


def finding_line(f: Finding) -> Content:
    """One finding for the preview: kind, severity and its explanation."""
    colour = {"error": "flag-contradiction", "warning": "flag-lint"}.get(f.severity, "badge-unknown")
    head = styled(f"{f.kind} ({f.severity})", colour)
    return Content.assemble(head, Content(" "), plain(f.message))
