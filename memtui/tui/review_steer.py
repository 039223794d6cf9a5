"""Steering the review: next and previous card (j/k, s/p), first and last (g/G), next and previous group (n/N), the
digits, the kind filter (/), the weaker candidates, and marking memories for one bulk decision."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import SelectionList

from memtui.review import GROUP_NUMBER, held_back_cards
from memtui.tui.review_card import groups
from memtui.tui.review_cursor import ReviewCursor


class ReviewSteering(ReviewCursor):
    """The keys that move through the queue (or mark) rather than decide a card."""

    def action_skip(self) -> None:
        """Leave this card for later."""
        if self.current() is None or self._busy():
            return
        self._advance()
        self.show_card()

    def action_mark(self) -> None:
        """Mark this card's memory for a bulk decision (and move on), or unmark it."""
        card = self.current()
        if card is None or self._busy() or self.is_pair(card) or self.refuse_unseen():
            return
        if card.is_bulk:
            listing = self.query_one("#bulk-list", SelectionList)
            if listing.highlighted is not None:
                listing.toggle(card.paths[listing.highlighted])
            return
        path = card.paths[0] if card.paths else ""
        if self.memory(path) is None:
            self.notify("No memory on this card to mark (it is gone, or the card is about MEMORY.md)")
            return
        if path in self.marks:
            self.marks.discard(path)
        else:
            self.mark([path])
            self._advance()
        self.show_card()

    def mark(self, paths: Iterable[str]) -> None:
        """Mark memories, each as the card showed it (a bulk decision acts on that version, or is refused), and the
        kind of card they were marked on (v accepts those marked on a schema card as they are)."""
        card = self.current()
        for path in paths:
            m = self.shown(path)
            if m is not None:
                self.marks.add(path)
                self.marked_as[path] = m.content_hash
                self.marked_on[path] = card.kind if card is not None else ""

    def action_mark_all(self) -> None:
        """On a list card, mark every memory it lists (or unmark them all); elsewhere, clear the marks."""
        card = self.current()
        if self._busy():
            return
        if card is not None and card.is_bulk:
            paths = set(card.paths)
            if paths <= self.marks:
                self.marks -= paths
            elif not self.refuse_unseen():
                self.mark(paths - self.marks)
        else:
            self.marks.clear()
        self.show_card()

    # ------------------------------------------------------------------------------------------ steering

    def _go(self, index: int) -> None:
        self.refusal = ""
        self.index = index
        self.show_card()

    def action_previous(self) -> None:
        """Back to the previous card still to decide (a skipped or marked one)."""
        if self._busy():
            return
        done = self.decided()
        before = [i for i in range(min(self.index, len(self.cards)) - 1, -1, -1) if self._open(i, done)]
        if not before:
            self.notify("No earlier card left to decide", severity="warning")
            return
        self._go(before[0])

    def _first_of(self, group: str) -> int | None:
        done = self.decided()
        ahead = [i for i, c in enumerate(self.cards) if c.group == group and c not in done]
        return next((i for i in ahead if i >= self.index), ahead[0] if ahead else None)

    def action_first(self) -> None:
        """To the first card still to decide (within the kind filter)."""
        if self._busy():
            return
        index = self._next_open(0)
        if index < len(self.cards):
            self._go(index)

    def action_last(self) -> None:
        """To the last card still to decide (within the kind filter)."""
        if self._busy():
            return
        done = self.decided()
        last = next((i for i in range(len(self.cards) - 1, -1, -1) if self._open(i, done)), None)
        if last is not None:
            self._go(last)

    def action_next_group(self) -> None:
        """To the first card still to decide of the next group (round to the first)."""
        self._step_group(1)

    def action_previous_group(self) -> None:
        """To the first card still to decide of the previous group (round to the last)."""
        self._step_group(-1)

    def _step_group(self, step: int) -> None:
        if self._busy():
            return
        present = [g for g, _ in groups(self.left())]
        if not present:
            return
        card = self.current()
        # at the end, forward is the first group and back the last
        at = present.index(card.group) + step if card is not None and card.group in present else min(step, 0)
        group = present[at % len(present)]
        if card is None and (unseen := self.never_shown()):
            group = unseen[0].group  # at the end after a jump: where the cards not yet shown are
        if self.only is not None and self.only != group:
            self.only = None
        index = self._first_of(group)
        if index is not None:
            self._go(index)

    def action_group(self, number: int) -> None:
        """To the numbered group of the bar under the header."""
        if self._busy():
            return
        group = next((g for g, n in GROUP_NUMBER.items() if n == number), "")
        if group not in {g for g, _ in groups(self.left())}:
            name = f" ({group})" if group else ""
            self.notify(f"No card left in group {number}{name}", severity="warning")
            return
        if self.only is not None and self.only != group:
            self.only = None
        index = self._first_of(group)
        if index is not None:
            self._go(index)

    def action_filter(self) -> None:
        """Show one kind of card only; each press the next group, then every group again."""
        if self._busy():
            return
        present = [g for g, _ in groups(self.left())]
        if not present:
            return
        at = present.index(self.only) + 1 if self.only in present else 0
        self.only = present[at] if at < len(present) else None
        index = self._first_of(self.only) if self.only else self._next_open(0)
        self._go(len(self.cards) if index is None else index)

    def action_weaker(self) -> None:
        """Add the weaker (held-back) pair candidates as a last group, or take the undecided ones away."""
        if self._busy():
            return
        report = self.ws.report
        weaker = held_back_cards(report) if report is not None else []
        if not self.weaker and not weaker:
            self.notify("No weaker pair candidates were held back", timeout=4)
            return
        self.weaker = not self.weaker
        done, card = self.decided(), self.current()
        if self.weaker:
            self.cards += [c for c in weaker if c not in self.cards]
            self.notify(
                f"{len(weaker)} weaker pair candidate{'s' if len(weaker) != 1 else ''} added as the last group (w hides them)",
                timeout=4,
            )
            index = self._first_of("weaker")
            self._go(self.index if index is None else index)
            return
        self.cards = [c for c in self.cards if not c.weaker or c in done]
        if self.only == "weaker":
            self.only = None
        self._go(self.cards.index(card) if card in self.cards else self._next_open(0))
