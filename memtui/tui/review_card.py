"""What a review card shows: the cue and the claim marked in a memory's text, the rule that raised a card, the
memories past the index's load cap, and the groups with their counts."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from textual.content import Content

from memtui.analysis.lexicon import CHANGE_CUES, NEGATIONS, ZH_NEGATIONS
from memtui.analysis.secrets import redacted
from memtui.core.freshness import Freshness
from memtui.review import GROUPS, Card, unloaded
from memtui.tui import render

_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}|https?://\S+|\b\d+(?:\.\d+)?%?")
_WORD = re.compile(r"\w{3,}")
CLAIM_STYLE = "reverse"
"""The conflicting claim on a pair card: marked whatever the theme, the cue words inside it still bold."""


def claim_span(text: str, claim: str) -> tuple[int, int] | None:
    """Where the claim the finding quotes stands in the memory's text.

    The claim is quoted as the analysis split it (bullets and emphasis gone), so when it is not in the text
    word for word, the line sharing most of its words stands for it.
    """
    claim = claim.strip().rstrip("…").strip()
    if not claim:
        return None
    low = text.casefold()
    at = low.find(claim.casefold())
    if at >= 0:
        return at, at + len(claim)
    words = {w.casefold() for w in _WORD.findall(claim)}
    if not words:
        return None
    best: tuple[int, int, int] | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        shared = len(words & {w.casefold() for w in _WORD.findall(line)})
        if shared and (best is None or shared > best[0]):
            start = offset + len(line) - len(line.lstrip())
            best = (shared, start, offset + len(line.rstrip()))
        offset += len(line)
    if best is None or best[0] * 2 < len(words):
        return None
    return best[1], best[2]


def highlight(text: str, shared: Sequence[str], claim: str = "") -> Content:
    """The memory's text with the cue marked (shared terms, negations and change words, dates and numbers)
    and, on a pair, the claim the finding rests on. A suspected secret is shown redacted, never in clear."""
    content = render.plain(redacted(text))
    low = content.plain.casefold()
    spans: list[tuple[int, int]] = []
    for term in shared:
        if len(term) < 2:
            continue
        pattern = re.escape(term) if not term.isascii() else rf"\b{re.escape(term)}\w*"
        spans += [m.span() for m in re.finditer(pattern, low)]
    for word in NEGATIONS:
        spans += [m.span() for m in re.finditer(rf"\b{re.escape(word)}\b", low)]
    for cue in (*CHANGE_CUES, *ZH_NEGATIONS):
        cue = cue.strip()
        if len(cue) > 1:
            spans += [m.span() for m in re.finditer(re.escape(cue), low)]
    spans += [m.span() for m in _VALUE.finditer(content.plain)]
    if claim and (where := claim_span(content.plain, claim)) is not None:
        content = content.stylize(CLAIM_STYLE, *where)
    for start, end in spans:
        content = content.stylize("bold $cue", start, end)
    return content


def claim_row(text: str, claim: str, width: int) -> int:
    """The screen row (text wrapped at `width`) where the claim starts, to scroll a long memory to it."""
    where = claim_span(text, claim) if claim else None
    return 0 if where is None else line_row(text, text.count("\n", 0, where[0]) + 1, width)


def line_row(text: str, line: int, width: int) -> int:
    """The screen row (text wrapped at `width`, as the card wraps it) where the file's `line` (1-based) starts."""
    if line <= 1 or width <= 0:
        return 0
    return len(Content("\n".join(text.split("\n")[: line - 1])).wrap(width))


def _since(fresh: Freshness) -> str:
    if fresh.since is None:
        return "never confirmed"
    source = {"git": "its last commit", "mtime": "the file's time"}.get(fresh.source, f"`{fresh.source}`")
    return f"last confirmed {fresh.since.isoformat()} from {source}"


def why(card: Card, fresh: Freshness | None, memory_type: str | None) -> str:
    """The rule that raised a single-memory card, in a line (e.g. `project memory, 30-day period, last
    confirmed 2026-10-02 from `updated``); empty when the card's explanation already says it all."""
    kind = card.kind
    if kind in ("stale", "expired") and fresh is not None:
        period = f"{fresh.period_days}-day period" if fresh.period_days else "no decay period"
        head = f"{memory_type or 'untyped'} memory, {period}, {_since(fresh)}"
        if kind == "expired" and fresh.expires_at is not None:
            return f"expires_at {fresh.expires_at.isoformat()} has passed · {head}"
        return f"{head} ({fresh.age_days} days ago)"
    if kind in ("new", "deleted"):
        return ""  # the explanation already says the agent wrote or deleted it (and for a write, which session)
    if kind == "secret":
        return f"secret scan: {card.cue or 'a credential-shaped string'}"
    if kind == "relative-date":
        return f'relative date "{card.details.get("phrase") or card.cue}" with no absolute date beside it'
    if kind == "broken-wikilink":
        return f"[[{card.cue}]] reaches no live memory by name, file name or spelling (case, - and _)"
    if card.is_bulk:
        return f"{card.kind} rule: {card.cue}"
    return f"{kind} rule: {card.cue}" if card.cue else f"{kind} rule"


def unloaded_text(card: Card) -> str:
    """The body of an index-over-cap card: every index line Claude Code does not load, so the person sees which
    memories the agent cannot; empty for other cards."""
    rows = [f"line {line}: [{title}]({target})" for line, target, title in unloaded(card.finding)]
    if not rows:
        return ""
    return (
        f"Claude Code does not load these index lines, so the agent does not see these {len(rows)} memories:\n\n"
        + "\n".join(rows)
        + "\n\nArchive or merge memories, or shorten long index lines, until they fall within the lines it loads."
    )


def groups(cards: Sequence[Card]) -> list[tuple[str, int]]:
    """The groups present in the queue, in queue order, with how many cards each holds."""
    count = Counter(c.group for c in cards)
    return [(g, count[g]) for g in GROUPS if count[g]]


def group_items(counted: Sequence[tuple[int, str, int]], current: str | None, only: str | None) -> list[Content]:
    """`1 pairs 7`, `2 agent 7`, … from `Tally.groups`: each group's digit key (always the same) and its cards left,
    one item each (a line that wraps breaks between items, never inside one); the current group stands out."""
    items = []
    for number, group, n in counted:
        text = f"{number} {group} {n}"
        style = "bold reverse" if group == current else ("dim" if only and group != only else "")
        items.append(Content.styled(text, style) if style else Content(text))
    return items
