"""The weekly review: one card at a time, one key decides, and the end is marked in git."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from memtui import ops
from memtui.analysis.lexicon import CHANGE_CUES, NEGATIONS, ZH_NEGATIONS
from memtui.core.model import Memory
from memtui.review import Card, build_queue
from memtui.tui import render
from memtui.tui.dialogs import ArchiveDialog, EditDialog

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}|https?://\S+|\b\d+(?:\.\d+)?%?")


@dataclass(frozen=True)
class Decision:
    """What the person decided on one card."""

    card: Card
    action: str


def highlight(text: str, shared: list[str]) -> Content:
    """The memory's text with the cue marked: shared terms, negations and change words, dates and numbers."""
    content = render.plain(text)
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
    for start, end in spans:
        content = content.stylize("bold $cue", start, end)
    return content


class ReviewScreen(Screen[None]):
    """Everything that needs a decision, pairs first; `7 / 23` at the top."""

    BINDINGS = [
        Binding("a", "archive_older", "Archive older", id="review.archive"),
        Binding("A", "archive_newer", "Archive newer", id="review.archive_newer"),
        Binding("m", "merge", "Merge", id="review.merge"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("v", "approve", "Approve/verify", id="review.approve"),
        Binding("b", "keep_both", "Keep both", id="review.keep_both"),
        Binding("s", "skip", "Skip", id="review.skip"),
        Binding("u", "undo", "Undo", id="review.undo"),
        Binding("enter", "finish", "Finish", id="review.finish", show=False),
        Binding("escape,q", "leave", "Leave", id="review.leave"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[Card] = []
        self.index = 0
        self.decisions: list[Decision] = []
        self.finished = False

    @property
    def memtui(self) -> MemtuiApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(id="card-header")
        yield Static(id="card-explain")
        with Horizontal(id="card-sides"):
            with VerticalScroll(classes="card-side", id="side-a"):
                yield Label(id="side-a-title")
                yield Static(id="side-a-text")
            with VerticalScroll(classes="card-side -newer", id="side-b"):
                yield Label(id="side-b-title")
                yield Static(id="side-b-text")
        with VerticalScroll(id="card-single"):
            yield Static(id="single-text")
        with VerticalScroll(id="card-summary"):
            yield Static(id="summary-text")
        yield Footer()

    def on_mount(self) -> None:
        ws = self.memtui.ws
        assert ws is not None and ws.report is not None
        self.cards = build_queue(ws.report, ws.repo)
        self.show_card()

    # ------------------------------------------------------------------------------------------ cards

    def memory(self, path: str) -> Memory | None:
        ws = self.memtui.ws
        return ws.store.get(path) if ws else None

    def current(self) -> Card | None:
        return self.cards[self.index] if 0 <= self.index < len(self.cards) else None

    def show_card(self) -> None:
        """Draw the card under the index (or the summary at the end)."""
        card = self.current()
        sides = self.query_one("#card-sides")
        single = self.query_one("#card-single")
        summary = self.query_one("#card-summary")
        header = self.query_one("#card-header", Static)
        explain = self.query_one("#card-explain", Static)
        if card is None:
            sides.display = single.display = False
            summary.display = True
            header.update(Content(f"Review · done · {len(self.decisions)} decided of {len(self.cards)}"))
            explain.update("")
            self.query_one("#summary-text", Static).update(self._summary())
            return
        summary.display = False
        header.update(Content.assemble(
            Content(f"Review · {self.index + 1} / {len(self.cards)} · "),
            render.styled(card.kind, "flag-contradiction" if card.kind == "contradiction" else "flag-lint"),
            Content(" · "), render.plain(card.title),
        ))
        explain.update(render.plain(card.explanation))
        shared = [str(s) for s in card.details.get("shared", [])] if card.details else []
        if len(card.paths) == 2 and card.kind in ("contradiction", "duplicate"):
            sides.display, single.display = True, False
            for side, path, role in (("a", card.paths[0], "older"), ("b", card.paths[1], "newer")):
                m = self.memory(path)
                self.query_one(f"#side-{side}-title", Label).update(render.plain(f"{role}: {path}"))
                self.query_one(f"#side-{side}-text", Static).update(highlight(m.text if m else "(gone)", shared))
        else:
            sides.display, single.display = False, True
            if card.kind == "new" and card.diff:
                text = Content("\n").join(
                    render.styled(line, "badge-fresh" if line.startswith("+") else
                                  "badge-expired" if line.startswith("-") else "badge-unknown")
                    for line in card.diff.splitlines()
                )
            else:
                m = self.memory(card.paths[0]) if card.paths else None
                text = highlight(m.text if m else card.explanation, [card.cue] if card.cue else [])
            self.query_one("#single-text", Static).update(text)

    def _summary(self) -> Content:
        counts = Counter(d.action for d in self.decisions)
        lines = [Content.styled("Review finished", "bold"), Content("")]
        if not self.decisions:
            lines.append(Content("Nothing decided."))
        for action, n in sorted(counts.items()):
            lines.append(Content(f"  {action}: {n}"))
        lines += [Content(""), Content(f"{len(self.cards) - len(self.decisions)} cards skipped or left."), Content("")]
        if self.finished:
            lines.append(render.styled("Marked finished in git: next week's queue starts here.", "badge-fresh"))
        else:
            lines.append(Content("enter: mark the review finished in git (next week starts here) · escape: leave"))
        return Content("\n").join(lines)

    def advance(self, action: str | None) -> None:
        """Record a decision (or a skip) and show the next card."""
        card = self.current()
        if card is None:
            return
        if action:
            self.decisions.append(Decision(card, action))
        self.index += 1
        self.show_card()

    # ------------------------------------------------------------------------------------------ keys

    def _pair(self) -> tuple[Card, Memory, Memory] | None:
        card = self.current()
        if card is None or len(card.paths) != 2:
            return None
        older, newer = self.memory(card.paths[0]), self.memory(card.paths[1])
        if older is None or newer is None:
            self.notify("One of these memories is gone (decided already?)", severity="warning")
            return None
        return card, older, newer

    def _archive(self, target: Memory, successor: Memory | None, card: Card) -> None:
        app = self.memtui
        if successor is not None:
            reason = f"superseded by {successor.title}"
            app.run_op("Archive", lambda: ops.archive(app.store_path, target.path, reason=reason,
                                                      superseded_by=successor.path, expected_hash=target.content_hash))
            self.advance("archived")
            return

        def done(reason: str | None) -> None:
            if reason:
                app.run_op("Archive", lambda: ops.archive(app.store_path, target.path, reason=reason,
                                                          expected_hash=target.content_hash))
                self.advance("archived")

        default = {"expired": "expired", "stale": "stale: no longer true",
                   "archived-but-loaded": "already archived; moved out of the folder the agent loads"}.get(card.kind, "")
        self.app.push_screen(ArchiveDialog(target.title, default), done)

    def action_archive_older(self) -> None:
        """Archive the older memory as superseded by the newer (single cards: archive the memory)."""
        card = self.current()
        if card is None:
            return
        pair = self._pair() if card.kind in ("contradiction", "duplicate") else None
        if pair:
            self._archive(pair[1], pair[2], card)
        elif card.paths and (m := self.memory(card.paths[0])) is not None:
            self._archive(m, None, card)

    def action_archive_newer(self) -> None:
        """Archive the newer memory instead, superseded by the older."""
        pair = self._pair()
        if pair:
            self._archive(pair[2], pair[1], pair[0])

    def action_merge(self) -> None:
        """Merge the pair (the merge dialog opens)."""
        pair = self._pair()
        if pair:
            self.memtui.open_merge([pair[1].path, pair[2].path], after=lambda: self.advance("merged"))

    def action_edit(self) -> None:
        """Edit the memory (the newer of a pair)."""
        card = self.current()
        if card is None or not card.paths:
            return
        m = self.memory(card.paths[-1])
        if m is None or m.is_malformed:
            self.notify("Nothing editable on this card", severity="warning")
            return
        app = self.memtui

        def done(text: str | None) -> None:
            if text is not None and text != m.text:
                app.run_op("Edit", lambda: ops.edit(app.store_path, m.path, text, expected_hash=m.content_hash))
                self.advance("edited")

        self.app.push_screen(EditDialog(m.title, m.text), done)

    def action_approve(self) -> None:
        """Approve what the agent wrote, or confirm a stale memory is still true (stamps last_verified)."""
        card = self.current()
        if card is None or not card.paths:
            return
        m = self.memory(card.paths[0])
        if m is None or m.is_malformed or not m.has_frontmatter:
            self.advance("approved")
            return
        app = self.memtui
        app.run_op("Verify", lambda: ops.verify(app.store_path, m.path, expected_hash=m.content_hash))
        self.advance("verified")

    def action_keep_both(self) -> None:
        """Both memories stay; the pair does not come back until one of them changes."""
        pair = self._pair()
        if pair is None:
            return
        card, older, newer = pair
        app = self.memtui
        app.run_op("Keep both", lambda: ops.keep_both(app.store_path, older, newer, kind=card.kind))
        self.advance("kept both")

    def action_skip(self) -> None:
        """Leave this card for later."""
        self.advance(None)

    def action_undo(self) -> None:
        """Undo the last decision and show its card again."""
        if not self.decisions:
            self.notify("Nothing decided in this review yet", severity="warning")
            return
        last = self.decisions.pop()
        app = self.memtui
        app.run_op("Undo", lambda: ops.undo(app.store_path))
        self.index = self.cards.index(last.card)
        self.show_card()

    def action_finish(self) -> None:
        """At the end: mark the review finished in git."""
        if self.current() is not None or self.finished:
            return
        counts = Counter(d.action for d in self.decisions)
        summary = "Review: " + (", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "nothing decided")
        summary += f"; {len(self.cards)} cards."
        app = self.memtui
        app.run_op("Review", lambda: ops.finish_review(app.store_path, summary))
        self.finished = True
        self.show_card()

    def action_leave(self) -> None:
        """Back to the panes."""
        self.app.pop_screen()
