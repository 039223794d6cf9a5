"""The review's cursor: which card is on screen, which are decided, and which are still to decide.

`ReviewCursor` is the state every part of the ReviewScreen reads (`review_show`, `review_steer`, `review_decide`
are mixins over it); at run time it is a plain class, and `ReviewScreen` in `review.py` is the one Screen."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.widgets import SelectionList

from memtui import claude_settings
from memtui.core.model import Memory
from memtui.review import Card, current_card
from memtui.tui.decisions import Operation, Outcome
from memtui.workspace import Workspace

if TYPE_CHECKING:
    _Base = Screen[None]
else:
    _Base = object


@dataclass(frozen=True)
class Decision:
    """A decision of this review that happened: its card, what was done, and the commit (None: nothing to write)."""

    card: Card | None
    action: str
    commit: str | None
    pruned: tuple[Card, ...] = ()
    """Cards this decision made moot (they come back if it is undone)."""
    closes: bool = True
    """The decision was about `card` itself (False: about marked memories, whatever card was on screen)."""
    reopened: bool = False
    """What the card was about came back after the decision (`ReviewSession.reopen_returned`): to decide again."""


@dataclass
class ReviewSession:
    """One review, from its first card until it is marked finished in git.

    Leaving the review (escape) and opening it again (`r`) in the same run of memtui continues it: its decisions
    (`u` still undoes them, the record counts them), what was looked at and which cards were shown. Marking it
    finished ends it. Quitting memtui ends it too; what it committed stays committed, and the next review's record
    counts those commits among the decisions made since the last finished review.
    """

    decisions: list[Decision] = field(default_factory=list)
    """Decisions that committed, oldest first (an undo of this review takes the last one out)."""
    looked: list[Decision] = field(default_factory=list)
    """Decisions that had nothing to write (no commit, not counted as a commit)."""
    viewed: set[tuple[str, str, frozenset[str], bool]] = field(default_factory=set)
    """The cards shown at least once (`viewed_key`)."""
    finished: bool = False
    counted: tuple[int, int, int] | None = None
    """(decided, settled by them, skipped or left) as the review was marked finished: what its record says, kept
    for the end screen (marking it finished counts the skipped agent writes as seen, and they leave the queue)."""

    def decided(self) -> set[Card]:
        """Cards this review has decided (committed, or looked at with nothing to write), as they were decided."""
        return {d.card for d in (*self.decisions, *self.looked) if d.closes and not d.reopened and d.card is not None}

    def reopen_returned(self, queue: Sequence[Card]) -> None:
        """Take back the decisions whose card is in the queue again although the decision left nothing of it to
        decide: an agent's write approved or rewritten (a card for that memory now is a newer write:
        `review.changed_since` leaves a settled one out), a schema finding accepted (a card for it now means the
        memory changed since), or what was archived or merged away (a card for it now
        means a restore, or an undo outside this review, brought it back), or a deletion the agent made that was
        brought back or accepted (a card for it now is the agent deleting it again). Their cards are to decide
        again; the commits stay, and the record still counts them."""
        for k, d in enumerate(self.decisions):
            card = d.card
            if d.reopened or not d.closes or card is None:
                continue
            settled = d.action in GONE_WORDS or d.action == ACCEPTED_WORD
            settled = settled or (card.kind == "deleted" and d.action in DELETION_WORDS)
            if (settled or (card.kind == "new" and d.action in SETTLING_WORDS)) and current_card(
                card, queue
            ) is not None:
                self.decisions[k] = replace(d, reopened=True)

    def holding_decided(self, queue: Sequence[Card]) -> list[Card]:
        """The queue as the store is now, with each card this review decided in its place as it was decided.

        A decision may leave its card's finding in the store (a schema card verified, an edit that did not settle
        the rule) with its text changed (a line number moved): still the card decided, not one to decide again, on
        the main screen's count and when the review is opened again, as within the review (`_follow_store`)."""
        swap: dict[Card, Card] = {}
        self.reopen_returned(queue)
        for card in self.decided():
            fresh = current_card(card, queue)
            if fresh is not None:
                swap.setdefault(fresh, card)
        return [swap.get(c, c) for c in queue]


ACCEPTED_WORD = "accepted as is"
"""The review's word for a schema card verified and accepted as it is: settled until the memory changes."""
SETTLING_WORDS = frozenset({"verified", "edited"})
"""The review's words for the decisions that settle an agent's write (`review.SETTLING`)."""
GONE_WORDS = frozenset({"archived", "merged", "merged away (duplicate)"})
"""The review's words for the decisions after which what the card was about is gone from the loaded store."""
DELETION_WORDS = ("brought back", "deletion accepted")
"""The review's words for the two decisions on a memory the agent deleted (`R`, `v`): either settles the deletion,
so a card for it again is a new deletion."""
DATE_FIXED = "date fixed"
"""The review's word for a relative date fixed (`ops.fix_date`): it closes its card only when the memory no longer
says the phrase (`review.date_left`)."""


def viewed_key(card: Card) -> tuple[str, str, frozenset[str], bool]:
    """What a card is about, for "was it shown": its kind and memories (`Card.key`), or on a list card its rule (a
    list card stays the same card as memories leave it)."""
    if card.is_bulk:
        return card.kind, card.cue, frozenset(), card.weaker
    return card.kind, "", frozenset(card.paths), card.weaker


PAIRS = ("contradiction", "duplicate")


def _version(memory: Memory | None) -> str | None:
    return memory.content_hash if memory is not None else None


class ReviewCursor(_Base):
    """The queue and the cursor over it; the attributes are set by `ReviewScreen.__init__`."""

    ws: Workspace
    store_path: Path
    cards: list[Card]
    index: int
    decisions: list[Decision]
    looked: list[Decision]
    finished: bool
    pending: str
    refusal: str
    change_refusal: str
    sessions: dict[str, tuple[str, ...]]
    hook: claude_settings.Status | None
    marks: set[str]
    marked_as: dict[str, str]
    marked_on: dict[str, str]
    only: str | None
    weaker: bool
    seen_card: Card | None
    opened_at: tuple[object, ...] | None
    seen: dict[str, Memory | None]
    session: ReviewSession

    if TYPE_CHECKING:  # defined by the screen and its other parts

        def show_card(self) -> None: ...

        def show_keys(self) -> None: ...

        def _ask(
            self,
            label: str,
            action: str,
            operation: Operation,
            *,
            marked: Iterable[str] = (),
            typed: str | None = None,
            path: str | None = None,
            base: str | None = None,
            reply: Callable[[Outcome], None] | None = None,
        ) -> None: ...

    def memory(self, path: str) -> Memory | None:
        """A live memory of the store as it is now."""
        m = self.ws.store.get(path)
        return m if m is not None and not m.in_archive else None

    def shown(self, path: str) -> Memory | None:
        """A memory as the card on screen showed it (what a decision acts on), else as the store is now."""
        return self.seen[path] if path in self.seen else self.memory(path)

    def look(self, card: Card | None) -> Card | None:
        """The card to draw: `card` as the store is now, unless its memories changed on disk since it was shown;
        then the card and its memories as shown, until the person asks for the new text (`r`)."""
        if card is None:
            self.seen_card, self.seen = None, {}
            return None
        self.session.viewed.add(viewed_key(card))
        if self.seen_card is not None and self.seen_card.key == card.key and self.unseen_changes():
            return self.seen_card
        self.seen_card, self.seen = card, {p: self.memory(p) for p in card.paths}
        return card

    def unseen_changes(self) -> list[str]:
        """The card's memories that changed on disk (or went) since the card showed them."""
        card = self.current()
        if card is None or self.seen_card is None or self.seen_card.key != card.key:
            return []
        return [p for p, m in self.seen.items() if _version(self.memory(p)) != _version(m)]

    def refuse_unseen(self) -> bool:
        """Refuse a decision on text the person has not seen (True: refused, and the card says why)."""
        changed = self.unseen_changes()
        if changed:
            self.refusal = f"{', '.join(changed)} changed on disk since shown: r shows the new text, then decide"
            self.show_card()
        return bool(changed)

    def current(self) -> Card | None:
        """The card on screen (None at the end)."""
        return self.cards[self.index] if 0 <= self.index < len(self.cards) else None

    def under_cursor(self, card: Card) -> str:
        """On a list card, the memory under the list's cursor (the first when the list has none yet)."""
        listing = self.query_one("#bulk-list", SelectionList)
        at = listing.highlighted
        if at is not None and 0 <= at < listing.option_count:
            value = str(listing.get_option_at_index(at).value)
            if value in card.paths:
                return value
        return card.paths[0]

    def is_pair(self, card: Card | None) -> bool:
        """Whether the card shows two memories side by side."""
        return card is not None and card.kind in PAIRS and len(card.paths) == 2

    def decided(self) -> set[Card]:
        """Cards this review has decided (committed, or looked at with nothing to write)."""
        return self.session.decided()

    def card_counts(self) -> tuple[int, int, int]:
        """Every card of this review once, as (decided, made moot by its decisions, still to decide): the end screen
        and the review's record in git say their sum, and the header's `cards left` is the last."""
        done, left = self.decided(), self.left()
        keys = {c.key for c in (*done, *left)}
        moot = {c.key for d in (*self.decisions, *self.looked) for c in d.pruned} - keys
        return len(done), len(moot), len(left)

    def _open(self, i: int, done: set[Card]) -> bool:
        card = self.cards[i]
        return card not in done and (self.only is None or card.group == self.only)

    def _next_open(self, start: int) -> int:
        """The first card at or after `start` still to decide (within the filter); the end when none."""
        done = self.decided()
        return next((i for i in range(max(start, 0), len(self.cards)) if self._open(i, done)), len(self.cards))

    def _advance(self) -> None:
        self.refusal = ""
        self.index = self._next_open(self.index + 1)
        self._lift_spent_filter()

    def _lift_spent_filter(self) -> None:
        """A kind filter whose cards are all seen is lifted, so the end of one kind is never the end of the review."""
        if self.index < len(self.cards) or self.only is None:
            return
        ended, self.only = self.only, None
        self.index = self._next_open(0)
        if self.index < len(self.cards):
            self.notify(f"No more {ended} cards: every kind is shown again", timeout=4)

    def left(self) -> list[Card]:
        """The cards still to decide (skipped ones included), whatever the filter."""
        done = self.decided()
        return [c for c in self.cards if c not in done]

    def never_shown(self) -> list[Card]:
        """The cards still to decide that this review has not shown yet (a jump passed them by, or they came in
        behind the cursor as the store changed), held-back weaker candidates aside (extras, shown on request)."""
        return [c for c in self.left() if viewed_key(c) not in self.session.viewed and not c.weaker]

    def _busy(self) -> bool:
        if self.pending:
            self.notify(f"Still writing: {self.pending}", severity="warning")
            return True
        return False

    def _commit_count(self) -> int:
        return sum(1 for d in self.decisions if d.commit)
