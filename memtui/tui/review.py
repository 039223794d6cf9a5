"""The weekly review: one card at a time, one key decides, and the end is marked in git.

`ReviewScreen` is the one screen (its keys, its help, asking the app for a decision and following the store
after it, undo and finish); its parts are mixins over the shared cursor (`review_cursor`): drawing a card
(`review_show`), steering and marks (`review_steer`), and the decisions (`review_decide`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, SelectionList, Static

from memtui import claude_settings, ops
from memtui.audit.repo import open_repo
from memtui.core.model import Memory
from memtui.core.store import detect_layout
from memtui.review import GROUPS, Card, current_card, date_left, held_back_cards, relinking, review_record
from memtui.tui.decisions import DiskChange, Operation, Outcome, undo_own
from memtui.tui.dialogs import ChangedDialog, HelpScreen, help_text
from memtui.tui.messages import Decide, Host, WorkspaceChanged
from memtui.tui.review_cursor import DATE_FIXED, Decision, ReviewSession
from memtui.tui.review_decide import ReviewDeciding
from memtui.tui.review_show import ReviewDrawing, option_values
from memtui.tui.review_steer import ReviewSteering
from memtui.tui.widgets import ItemLine, KeyLine, MarkList, footer_width
from memtui.workspace import Workspace, agent_sessions

PAIR_ONLY = frozenset({"archive_newer", "edit_older", "merge", "keep_both"})
STEERING = frozenset(
    {
        "help",
        "leave",
        "skip",
        "undo",
        "previous",
        "first",
        "last",
        "next_group",
        "previous_group",
        "group",
        "filter",
        "weaker",
    }
)
"""Keys that move through the queue rather than decide a card: live on every card."""


def described(bindings: Iterable[BindingType]) -> list[Binding]:
    """The bindings a help screen lists (the digits after the first are one row: `1…0 Jump to group 1…9, 0`)."""
    return [b for b in bindings if isinstance(b, Binding) and b.description]


class ReviewScreen(ReviewDrawing, ReviewSteering, ReviewDeciding, Screen[None]):
    """Everything that needs a decision, in groups (pairs first); `pairs 3 / 7 · 14 left` at the top.

    A card counts as decided only once its decision committed: the screen asks the app for the decision
    (`Decide`), waits for the outcome, and a refusal stays on the card with its reason. After each decision the
    cards not yet decided follow the store as it is now; `u` undoes only this review's decisions.
    """

    CSS_PATH = "review.tcss"

    BINDINGS = [
        Binding("question_mark", "help", "Help", id="review.help", tooltip="List every key of the review."),
        Binding(
            "a",
            "archive_older",
            "Archive",
            id="review.archive",
            tooltip="Archive this card's memory, out of what the agent loads; asks why. On a pair, the older one, "
            "replaced by the newer. With marks, every marked memory in one commit.",
        ),
        Binding(
            "A",
            "archive_newer",
            "Archive newer",
            id="review.archive_newer",
            tooltip="On a pair, archive the newer memory instead, replaced by the older one; asks why.",
        ),
        Binding(
            "m",
            "merge",
            "Merge",
            id="review.merge",
            tooltip="Merge the pair into one memory: a dialog shows both and the merged text, to edit before saving.",
        ),
        Binding(
            "b",
            "keep_both",
            "Keep both",
            id="review.keep_both",
            tooltip="Both memories stay as they are; the pair does not come back until one of them changes.",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            id="review.edit",
            tooltip="Edit the memory's text here (on a pair, the newer one); ctrl+s saves. A file that cannot be "
            "read opens in $EDITOR, as E does on the main screen.",
        ),
        Binding(
            "E",
            "edit_older",
            "Edit older",
            id="review.edit_older",
            tooltip="On a pair, edit the older memory instead (the outdated claim may be one line of a long note).",
        ),
        Binding(
            "e,E",
            "edit_in_editor",
            "Fix in $EDITOR",
            id="review.edit_in_editor",
            tooltip="On a file that cannot be read: open it in $EDITOR to fix it, as E does on the main screen; the "
            "text you leave is saved as an edit.",
        ),
        Binding(
            "R",
            "bring_back",
            "Bring back",
            id="review.bring_back",
            tooltip="On a memory the agent deleted: write it back as it was last committed, in one commit.",
        ),
        Binding(
            "v",
            "accept_deletion",
            "Accept deletion",
            id="review.accept_deletion",
            tooltip="On a memory the agent deleted: the deletion is fine. It stays deleted; one commit records the "
            "decision (its last text stays in git), and the card does not come back.",
        ),
        Binding(
            "v",
            "approve",
            "Approve/verify",
            id="review.approve",
            tooltip="Still true: accept what the agent wrote, or stamp last_verified so the memory counts as fresh "
            "again. With marks, every marked memory in one commit. Not offered where nothing can be stamped (no "
            "front matter, a file that cannot be read).",
        ),
        Binding(
            "v",
            "accept",
            "Accept as is",
            id="review.accept",
            tooltip="On a schema card: the memory's format is right as it is. An accept commit that settles its schema "
            "finding for this version (it comes back only if the memory changes) and stamps nothing: it does not say "
            "the memory is still true. With marks, every marked memory in one commit.",
        ),
        Binding(
            "f",
            "fix_date",
            "Fix date",
            id="review.fix_date",
            tooltip='Replace a relative date such as "next Thursday" with the date it meant; shows the line before '
            "and after, and asks first.",
        ),
        Binding(
            "i",
            "index_add",
            "Add to index",
            id="review.index_add",
            tooltip="On memories MEMORY.md does not list: add a line for each, '- [name](file.md) — description', in "
            "one commit (with some of them marked, only those). Refused when MEMORY.md changed since it was read, or "
            "when the lines would fall past what Claude Code loads.",
        ),
        Binding(
            "d",
            "drop_link",
            "Drop line",
            id="review.drop_link",
            tooltip="On a broken link: remove the MEMORY.md line linking to the missing file (every line linking to "
            "it), in one commit.",
        ),
        Binding(
            "l",
            "relink",
            "Relink",
            id="review.relink",
            tooltip="On a wikilink to no live memory: point it at the memory the card names instead (the successor of "
            "an archived memory, or the one it was probably meant for), alias and #heading kept, in one commit; on a "
            "list card the marked memories, else all it lists.",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            id="review.mark",
            tooltip="Mark this card's memory for one bulk archive or verify, and move on. On a list card, mark the "
            "memory under the cursor (up and down move in the list).",
        ),
        Binding(
            "x",
            "mark_all",
            "Mark all/none",
            id="review.mark_all",
            tooltip="On a list card, mark every memory it lists (press again: none); elsewhere, clear the marks.",
        ),
        Binding(
            "s,j",
            "skip",
            "Skip",
            id="review.skip",
            tooltip="Leave this card for later and show the next one; it still counts as left.",
        ),
        Binding(
            "p,k",
            "previous",
            "Previous",
            id="review.previous",
            tooltip="Back to the previous card still to decide (one you skipped).",
        ),
        Binding("g", "first", "First", show=False, id="review.first", tooltip="Go to the first card still to decide."),
        Binding("G", "last", "Last", show=False, id="review.last", tooltip="Go to the last card still to decide."),
        Binding(
            "n",
            "next_group",
            "Next group",
            id="review.next_group",
            tooltip="Go to the first card of the next group (pairs, agent, expired, …).",
        ),
        Binding(
            "N",
            "previous_group",
            "Previous group",
            show=False,
            id="review.previous_group",
            tooltip="Go to the first card of the previous group.",
        ),
        Binding(
            "slash",
            "filter",
            "Filter kind",
            id="review.filter",
            tooltip="Show one group only; each press shows the next group, then every group again.",
        ),
        Binding(
            "w",
            "weaker",
            "Weaker pairs",
            id="review.weaker",
            tooltip="Add the weaker pair candidates the analysis held back, as a last group (press again: hide them).",
        ),
        Binding(
            "u",
            "undo",
            "Undo",
            id="review.undo",
            tooltip="Undo this review's last decision (never an older one) and show its card again.",
        ),
        Binding(
            "r",
            "reload_card",
            "Show new text",
            id="review.reload_card",
            tooltip="The card's memory changed on disk while shown: show the new text (no decision acts until then).",
        ),
        Binding(
            "enter",
            "finish",
            "Finish",
            id="review.finish",
            tooltip="At the end: mark the review finished in git, so next week's queue starts here.",
        ),
        Binding(
            "escape,q",
            "leave",
            "Leave",
            id="review.leave",
            tooltip="Back to the main screen; what you decided stays decided.",
        ),
        Binding(
            "1",
            "group(1)",
            "Jump to group 1…9, 0",
            show=False,
            key_display="1…0",
            id="review.group",
            tooltip="Go to the group with that number in the line under the header (the numbers never change).",
        ),
        *(Binding(str(n), f"group({n})", "", show=False) for n in (*range(2, 10), 0)),
    ]

    HELP_NOTES = (
        "Moving: j and k (or s and p) go to the next and previous card, g and G to the first and last card still to "
        "decide, n and N to the next and previous group, and the digits to the numbered group — as j, k, g, G, n and "
        "N move on the main screen. / shows one kind only; w adds the weaker (held-back) pair candidates as a last "
        "group.",
        "a asks for the reason on every card, pre-filled. On a pair, a archives the older memory as replaced by the "
        "newer (a duplicate is recorded as merged away, not as a revoked rule); A archives the newer instead.",
        "Marks: space marks this card's memory and moves on; on a list card it marks the memory under the cursor "
        "(up and down move in the list), and x marks the whole list. With marks, a archives and v verifies every "
        "marked memory in one commit; without, a, v and e on a list card act on the memory under the cursor, and the "
        "card stays for the others.",
        "On a schema card v accepts the memory as it is: a verify commit that also settles its schema finding for "
        "that version, in git, so it comes back (in the review, on the main screen, in check) only if the memory "
        "changes. v is offered only where it can stamp: not on a memory without front matter (memtui never adds "
        "one: e adds it, or a archives it), nor on a file that cannot be read (e or E fixes it in $EDITOR).",
        "A memory the agent deleted is a card showing its last committed text: R writes it back as it was (its "
        "MEMORY.md line, if the agent took that out too, comes back with i), v accepts the deletion (one commit that "
        "writes no file; the memory stays deleted and its text stays in git). A memory archived or merged away is "
        "no deletion of the agent's: it has no card.",
        "Index cards: i adds a MEMORY.md line for each memory an unindexed card lists (the marked ones among them, "
        "when some are), built from its name and description, and d removes a broken link's line; one commit each. "
        "On a [[wikilink]] to no live memory, l points it at the memory the card names (an archived memory's "
        "successor, or the one it was probably meant for) in one commit; e edits the memory to fix it by hand. "
        "Both are refused when MEMORY.md changed since it was read, and i when the new lines would fall past what "
        "Claude Code loads (200 lines or 24.4KB; the index-over-cap card lists the memories already past it).",
        "A card counts as decided only once its commit exists; a refusal stays on the card with its reason. A card "
        "whose memory changed on disk while shown says so and decides nothing until r shows the new text.",
        "Counts: cards left is every card not yet decided (skipped ones too), and the group line adds up to it; a "
        "list card is one card and one finding for each memory it lists (index hygiene is not counted as a finding), "
        "and an agent write is a card, not a finding. The group line's numbers never change.",
        "u undoes this review's last decision only. ctrl+p opens the palette, which acts on this card.",
    )

    def __init__(self, ws: Workspace, cards: list[Card], store_path: Path) -> None:
        super().__init__()
        self.ws = ws
        self.store_path = store_path
        self.cards: list[Card] = list(cards)
        self.index = 0
        self.session = ReviewSession()
        """The review this screen shows (the app's review under way, adopted on mount)."""
        self.decisions: list[Decision] = self.session.decisions
        self.looked: list[Decision] = self.session.looked
        """Cards approved where nothing needed writing (no commit, not counted as a commit)."""
        self.finished = False
        self.pending = ""
        """The label of the decision being written, while one is."""
        self.refusal = ""
        """Why the last decision on this card was refused (shown on the card until it moves on, or until the dialog
        it was made in is cancelled)."""
        self.change_refusal = ""
        """The last refusal because a file changed on disk: it stays when its dialog is cancelled, as it says why
        the card shows another text."""
        self.sessions: dict[str, tuple[str, ...]] = {}
        """Per memory, the Claude Code sessions that wrote it since the last review (read in the background)."""
        self.hook: claude_settings.Status | None = None
        """Whether memtui's Claude Code hook is installed (None until read)."""
        self.marks: set[str] = set()
        """Memories marked for one bulk decision (store paths)."""
        self.marked_as: dict[str, str] = {}
        """The version (content hash) of each marked memory the person saw when marking it: what is decided."""
        self.marked_on: dict[str, str] = {}
        """The kind of card each marked memory was marked on: v accepts those marked on a schema card as they are."""
        self.seen_card: Card | None = None
        """The card as last drawn (its text stays until `r` when its memories change on disk)."""
        self.seen: dict[str, Memory | None] = {}
        """The card's memories as last drawn: what a decision on it acts on."""
        self.opened_at: tuple[object, ...] | None = None
        """The single card (and its line to fix) the preview last opened at: drawn again, it keeps its scroll."""
        self.only: str | None = None
        """The one group shown (`/`), or None for every group."""
        self.weaker = False
        """Whether the held-back pair candidates are in the queue (`w`)."""
        self.typed_ahead: list[tuple[str, str | None]] = []
        """Keys typed while the store was still being analysed (key, character): they act once the cards are shown."""

    @property
    def host(self) -> Host:
        """The app, as far as a screen may see it."""
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        yield ItemLine(separator=" · ", id="card-header")  # broken between its parts on a narrow terminal
        yield ItemLine(separator=" · ", id="card-groups")
        yield Static(id="card-explain")
        yield Static(id="card-refusal")
        with Horizontal(id="card-sides"):
            with VerticalScroll(classes="card-side", id="side-a"):
                yield Label(id="side-a-title")
                yield Static(id="side-a-text")
            with VerticalScroll(classes="card-side -newer", id="side-b"):
                yield Label(id="side-b-title")
                yield Static(id="side-b-text")
        with VerticalScroll(id="card-single"):
            yield Static(id="single-text")
        with Vertical(id="card-bulk"):
            yield MarkList(id="bulk-list")
            with VerticalScroll(id="bulk-preview"):
                yield Static(id="bulk-text")
        with VerticalScroll(id="card-summary"):
            yield Static(id="summary-text")
        yield Footer(compact=True)
        yield KeyLine([], id="review-keys")

    FOOTER_SLACK = 16
    """Columns of the terminal the footer does not give to keys (measured: a pair card's 135 columns of keys are
    cut at 147 columns and whole at 150)."""

    def on_mount(self) -> None:
        self._adopt_session()
        self.show_card()
        self._read_context()

    def _adopt_session(self) -> None:
        """Continue the review under way (left with escape), or start one: its decisions, what was looked at and
        which cards were shown carry over; the cards themselves are the queue as the store is now."""
        host = self.host
        session = host.review_session
        if session is None or session.finished:
            session = ReviewSession()
            host.review_session = session
        self.session = session
        self.decisions, self.looked = session.decisions, session.looked
        self.cards = session.holding_decided(self.cards)
        self.index = self._next_open(0)

    def on_resize(self, event: events.Resize) -> None:
        self.show_keys()

    def on_key(self, event: events.Key) -> None:
        """A key typed before there is a card to act on (the store still being analysed) waits for the first card,
        so a quick typist's `r` `a` archives the first card instead of doing nothing; help and leave act at once."""
        if self.ws.analysed or event.key in ("escape", "q", "question_mark"):
            return
        self.typed_ahead.append((event.key, event.character))
        event.stop()
        event.prevent_default()

    def take_typed_ahead(self, event: events.Key) -> None:
        """A key typed in the same instant as `r` (it was on its way through the main screen) acts on the review,
        in the order typed: it waits for the first card while the store is analysed, like `on_key`'s."""
        if self.ws.analysed:
            self.app.call_later(self._replay, [(event.key, event.character)])
        else:
            self.typed_ahead.append((event.key, event.character))

    def _cards_ready(self) -> None:
        """The analysis ended after the review opened: its queue becomes the review's, then the keys typed meanwhile
        act, in the order typed, as they would have on the first card."""
        self.ws = self.host.ws or self.ws
        self.cards = self.session.holding_decided(self._queue())
        self.index = self._next_open(0)
        self.show_card()
        typed, self.typed_ahead = self.typed_ahead, []
        # made by the app, as the terminal's keys are: a key this screen made would stop bubbling here (its sender)
        # and never reach the bindings
        self.app.call_later(self._replay, typed)

    def _replay(self, typed: list[tuple[str, str | None]]) -> None:
        """Hand the keys typed ahead to the app, in order, as if typed now."""
        for key, character in typed:
            self.app.post_message(events.Key(key, character))

    def live_bindings(self) -> list[BindingType]:
        """The keys shown for the card under the cursor, in the footer's order."""
        return [b for b in self.BINDINGS if isinstance(b, Binding) and b.show and self.check_action(b.action, ())]

    def show_keys(self) -> None:
        """The card's keys: in the footer when they fit on one line, else in a key line that wraps between keys
        (the footer would cut the last ones off at the right edge)."""
        live = self.live_bindings()
        # the footer keeps some columns for itself (the palette key sits apart at the right edge)
        self.set_class(footer_width(live) + self.FOOTER_SLACK > self.size.width, "-narrow")
        self.query_one("#review-keys", KeyLine).show_keys(live)

    @work(
        thread=True,
        exclusive=True,
        group="review-context",
        exit_on_error=False,
        description="Reading the agent's sessions",
    )
    def _read_context(self) -> None:
        """Who wrote what (the hook's session trailers) and whether the hook is installed: git and a settings
        file, so off the event loop."""
        sessions = agent_sessions(self.ws)
        hook = claude_settings.status()
        self.app.call_from_thread(self._context_read, sessions, hook)

    def _context_read(self, sessions: dict[str, tuple[str, ...]], hook: claude_settings.Status) -> None:
        self.sessions, self.hook = sessions, hook
        self.show_card()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that act on this card kind are live (and shown in the footer)."""
        if not self.ws.analysed:
            return action in ("help", "leave")  # the other keys wait for the first card (`on_key`)
        card = self.current()
        if action == "finish":
            # never while an agent write was passed by unseen: finishing would count it as seen
            unseen_writes = any(c.group == "agent" for c in self.never_shown())
            return card is None and not self.finished and self.only is None and not unseen_writes
        if action == "weaker":
            # offered only when there is something to add or take away
            return self.weaker or bool(self.ws.report is not None and self.ws.report.held_back)
        if action == "reload_card":
            return bool(self.unseen_changes())
        if action in STEERING:
            return True
        if action in ("approve", "accept"):
            return self.what_v_does(card) == action
        if self.marks and action in ("archive_older", "mark_all"):
            return True
        if card is None:
            return False
        if action in ("archive_older", "edit", "edit_in_editor", "mark") and not self._has_memory(card):
            return False  # a link to a file that is gone (or a card about MEMORY.md): nothing to act on
        if action in ("edit", "edit_in_editor"):
            # a file that cannot be read is fixed in $EDITOR, and the key says so
            return self._unreadable(card) == (action == "edit_in_editor")
        if action == "index_add":
            return card.kind == "unindexed"
        if action == "drop_link":
            return card.kind == "broken-link"
        if action == "relink":
            return relinking(card) is not None
        if action == "bring_back":
            return card.kind == "deleted"
        if action == "accept_deletion":
            return card.kind == "deleted" and not self.marks  # with marks, v verifies the marked memories
        if action in PAIR_ONLY:
            return self.is_pair(card)
        if action == "mark":
            return not self.is_pair(card)
        if action == "mark_all":
            return card.is_bulk
        if action == "fix_date":
            return card.kind == "relative-date"
        return True

    def what_v_does(self, card: Card | None) -> str | None:
        """What `v` does here, as its key says it: `accept` on a schema card (verified, and its finding settled for
        this version), `approve` elsewhere (still true: the agent's write accepted, last_verified stamped), or None
        where it cannot work: nothing it would act on can be stamped (no front matter, a file that cannot be read),
        or the card is one v never settles (a pair, a malformed file, a secret, an expired or unindexed memory). With marks, v acts on the marked
        memories, whatever the card: `accept` when some were marked on a schema card."""
        if self.marks:  # what happens to the marked memories: those marked on a schema card are accepted
            stampable = [p for p in self.marks if self._stampable(p)]
            if not stampable:
                return None
            return "accept" if any(self.marked_on.get(p) == "schema" for p in stampable) else "approve"
        verb = "accept" if card is not None and card.kind == "schema" else "approve"
        unstampable = ("malformed", "secret", "expired", "unindexed", "broken-wikilink")
        if card is None or self.is_pair(card) or card.kind in unstampable:
            # an expired memory is not made current by a stamp: ops refuses it (edit expires_at); a stamp does not
            # put a memory in the index (`i` does), nor mend a link (`l` or `e` does)
            return None
        if not self._has_memory(card):
            return None
        return verb if any(self._stampable(p) for p in (card.paths if card.is_bulk else card.paths[:1])) else None

    def _stampable(self, path: str) -> bool:
        """A memory a verify can stamp: readable, with front matter (memtui never adds one)."""
        m = self.shown(path)
        return m is not None and not m.is_malformed and m.has_frontmatter

    def _unreadable(self, card: Card) -> bool:
        """A card about one memory that cannot be read (its malformed card, or the agent's write of it)."""
        if self.is_pair(card) or card.is_bulk or not card.paths:
            return False
        m = self.shown(card.paths[0])
        return m is not None and m.is_malformed

    def _has_memory(self, card: Card) -> bool:
        """A card whose memory is there to archive, verify, edit or mark (pairs and list cards always are)."""
        if self.is_pair(card) or card.is_bulk or card.kind == "new":
            return True
        return bool(card.paths) and self.memory(card.paths[0]) is not None

    @on(SelectionList.SelectionHighlighted, "#bulk-list")
    def _bulk_highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        self._preview_bulk(event.selection_index)

    @on(SelectionList.SelectedChanged, "#bulk-list")
    def _bulk_marked(self, event: SelectionList.SelectedChanged[str]) -> None:
        card = self.current()
        if card is None or not card.is_bulk:
            return
        listing = event.selection_list
        if option_values(listing) != list(card.paths):
            return  # the list is being refilled for another card
        ticked = set(listing.selected)
        self.marks -= set(card.paths) - ticked
        self.mark(ticked - self.marks)
        self.show_card()

    def _queue(self) -> list[Card]:
        """The app's queue as the store is now, with the weaker pair candidates when they are shown."""
        ws = self.host.ws
        extra = held_back_cards(ws.report) if self.weaker and ws is not None and ws.report is not None else []
        return [*self.host.cards, *extra]

    def _follow_store(self) -> None:
        """Cards not yet decided follow the store as it is now: moot ones leave, the rest are redrawn fresh, and
        cards the store now needs that the review does not hold yet come in at the end of their group.

        The cursor stays on the card it was on (or the next one, when that card left).
        """
        ws = self.host.ws
        if ws is None or ws.report is None:
            return
        self.ws = ws
        queue = self._queue()
        self.session.reopen_returned(queue)
        done = self.decided()
        kept: list[Card] = []
        held: list[Card] = []  # the queue's cards the review holds (a decided card's, as it is now, too)
        index = None
        for i, card in enumerate(self.cards):
            if i == self.index:
                index = len(kept)
            fresh = current_card(card, queue)
            if card in done:
                kept.append(card)
            elif fresh is None or fresh in held:
                continue
            else:
                kept.append(fresh)
            if fresh is not None:
                held.append(fresh)
        added = [c for c in queue if c not in held]
        if added:
            names = ", ".join(sorted({c.group for c in added}))
            self.notify(f"{len(added)} card{'s' if len(added) != 1 else ''} added as the store changed ({names})")
        for card in added:  # e.g. the agent wrote meanwhile: at the end of its group, counted like the rest
            rank = GROUPS.index(card.group)
            slot = max((i + 1 for i, c in enumerate(kept) if GROUPS.index(c.group) <= rank), default=0)
            kept.insert(slot, card)
            if index is not None and slot <= index:
                index += 1
        self.cards = kept
        self.index = len(kept) if index is None else index

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        message.stop()
        if not self.ws.analysed:
            self._cards_ready()
        elif not self.pending:  # a decision in flight redraws when its outcome arrives
            self._follow_store()
            self.show_card()
        # who wrote what, read again: a decision (or the hook) may have just recorded the agent's writes in git
        self._read_context()

    # ------------------------------------------------------------------------------------------ deciding

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
    ) -> None:
        """Ask the app for a decision on the current card (or on the marked memories, or one memory of a list card,
        when `marked` names them: the card is then not decided, it follows the store); the card moves on only if it
        committed. An edit names its text (`typed`, `path`, and the text it started from, `base`) so a refused
        save offers it again instead of losing it; a deciding dialog hears the outcome through `reply`."""
        card, marked = self.current(), frozenset(marked)
        if card is None and not marked:
            if reply is not None:
                reply(Outcome(label, "refused", "this card left the queue (the store changed); nothing was written"))
            return
        if not marked and typed is None and (unseen := self._unseen_outcome(label)) is not None:
            # a memory of the card changed while a dialog was open over it (ops checks only the file it writes,
            # not a successor): refused before anything runs, and shown as a refusal by ops is. An edit is left to
            # ops, which checks the one file it writes: its refusal keeps the typed text (the app offers it again,
            # joined with the change on disk where they do not touch), where this one would drop it
            self._decided(card, action, unseen)
            if reply is not None:
                reply(unseen)
            change = unseen.change
            if change is not None:  # a memory deleted has nothing to show: the refusal says it
                self.app.push_screen(
                    ChangedDialog(
                        change.path, unseen.message, change.now_text, before=change.before_text, change=change
                    )
                )
            return
        self.pending = label
        self.refusal = ""
        self.show_card()

        def answered(outcome: Outcome) -> None:
            self._decided(card, action, outcome, marked)
            if reply is not None:
                reply(outcome)

        self.app.post_message(
            Decide(
                label,
                operation,
                answered,
                typed=typed,
                path=path,
                base=base,
                in_dialog=reply is not None,
            )
        )

    def _decided(self, card: Card | None, action: str, outcome: Outcome, marked: frozenset[str] = frozenset()) -> None:
        self.pending = ""
        if not outcome.ok:
            if outcome.change is not None:
                self._await_seen(outcome.change)
            self._follow_store()
            if card in self.cards:
                self.index = self.cards.index(card)
            self.refusal = outcome.message
            self.change_refusal = outcome.message if outcome.change is not None else ""
            self.show_card()
            return
        before = self.left()
        # a date fixed where the memory still says the phrase, counted from another day: the card stays to fix it
        closes = not marked and not (action == DATE_FIXED and card is not None and date_left(card, self._queue()))
        decision = Decision(card, action, outcome.commit, closes=closes)
        decisions = self.decisions if outcome.committed else self.looked
        decisions.append(decision)
        self._follow_store()
        remaining = {c.key for c in self.cards}
        pruned = tuple(c for c in before if c != card and c.key not in remaining)
        decisions[-1] = replace(decision, pruned=pruned)
        if closes and card in self.cards:
            self.index = self._next_open(self.cards.index(card) + 1)
        else:
            self.index = self._next_open(self.index)
        self._lift_spent_filter()
        self.marks = {p for p in self.marks - marked if self.memory(p) is not None}  # archived ones leave the marks
        # what this decision wrote is the person's own change: seen as it is now, not "changed on disk"
        for path in outcome.result.paths if outcome.result is not None else ():
            now = self.memory(path)
            if path in self.seen:
                self.seen[path] = now
            if path in self.marks and now is not None:
                self.marked_as[path] = now.content_hash
        self.refusal = ""
        self.show_card()

    def _unseen_outcome(self, label: str) -> Outcome | None:
        """A refusal for the first of the card's memories that changed on disk since the card showed it, if any."""
        changed = self.unseen_changes()
        if not changed:
            return None
        path, now = changed[0], self.memory(changed[0])
        if now is None:  # nothing left to decide on: said as such, with no new text to look at
            gone = ops.DeletedOnDisk(path, "decide on")
            return Outcome(label, "refused", gone.message, title=gone.title, gone_path=path)
        change = DiskChange(path, now.text)
        change.now = now
        message = (
            f"{path} changed on disk since it was shown (the agent may have rewritten it); nothing was changed — "
            "look at the new text and decide again"
        )
        return Outcome(label, "refused", message, changed_path=path, title="Changed on disk", change=change)

    def _await_seen(self, change: DiskChange) -> None:
        """A file of this card changed on disk under a decision: name the version the card showed (the app shows
        what changed since), and once the person has been shown it, the card shows the new text."""
        shown = self.seen.get(change.path) if self.seen_card is not None else None
        if shown is not None:
            change.expected(shown.content_hash, shown.text)
        elif change.path in self.marked_as:
            change.expected(self.marked_as[change.path])
        change.when_seen(self._saw_change)

    def _saw_change(self, change: DiskChange) -> None:
        """The person was shown what changed: the card (and a mark) now holds that version, the one a new try
        decides on. A later write, not shown, still stops any decision (`refuse_unseen`)."""
        now = self.memory(change.path)
        if now is None or now.content_hash != change.now_hash:
            return  # gone, or written again since: the card says so and `r` shows it
        if change.path in self.seen:
            self.seen[change.path] = now
        if change.path in self.marks:
            self.marked_as[change.path] = now.content_hash
        self.show_card()  # the refusal stays said on the card until it moves on

    def action_undo(self) -> None:
        """Undo this review's last decision (never an older one) and show its card again."""
        if self._busy():
            return
        if self.finished:
            self.notify("This review is marked finished; undo from the main screen (u)", severity="warning")
            return
        if not self.decisions:
            self.notify("Nothing of this review to undo", severity="warning")
            return
        last = self.decisions[-1]
        store, commit = self.store_path, last.commit
        assert commit is not None

        def undone(outcome: Outcome) -> None:
            self.pending = ""
            if not outcome.committed:
                self.refusal = outcome.message
                self.show_card()
                return
            self.decisions.pop()
            self.refusal = ""
            at = self.cards.index(last.card) if last.card in self.cards else min(self.index, len(self.cards))
            if last.card is not None and last.card not in self.cards:
                self.cards.insert(at, last.card)
            for card in (c for c in last.pruned if c not in self.cards):
                # back into its own group, not after the undone card: a stale card put back right behind a
                # pair made the next skip jump over the whole stale group
                rank = GROUPS.index(card.group)
                slot = max((i + 1 for i, c in enumerate(self.cards) if GROUPS.index(c.group) <= rank), default=0)
                self.cards.insert(slot, card)
                at += slot <= at
            self.index = at
            self._follow_store()
            self.index = self._next_open(self.index)
            self._lift_spent_filter()
            self.show_card()

        self.pending = "Undo"
        self.show_card()
        self.app.post_message(Decide("Undo", lambda allow, today: undo_own(store, commit, today=today), undone))

    def action_finish(self) -> None:
        """At the end: mark the review finished in git."""
        if self.current() is not None or self.finished or self._busy():
            return
        ours = {d.commit: d.action for d in self.decisions if d.commit}
        counted = self.card_counts()
        cards = sum(counted)  # the number the end screen says
        store = self.store_path

        def finish(allow: bool, today: dt.date | None) -> ops.OpResult:
            # counted from git as the review ends: its own commits not undone since, and every other decision
            # made since the last finished review (the panes, the CLI, a review memtui was closed in)
            events = open_repo(detect_layout(store)).history()
            return ops.finish_review(store, review_record(events, ours, cards), today=today)

        def done(outcome: Outcome) -> None:
            self.pending = ""
            if outcome.committed:
                self.finished = self.session.finished = True
                self.session.counted = counted
            else:
                self.refusal = outcome.message
            self.show_card()

        self.pending = "Marking the review finished"
        self.show_card()
        self.app.post_message(Decide("Review", finish, done))

    def action_reload_card(self) -> None:
        """Show the card's memories as they are on disk now (after the agent changed them while shown)."""
        if self._busy():
            return
        self.seen_card = None
        self.refusal = ""
        self.show_card()

    def action_help(self) -> None:
        """This screen's keys."""
        self.app.push_screen(HelpScreen("Keys · review", help_text(described(self.BINDINGS), self.HELP_NOTES)))

    def action_leave(self) -> None:
        """Back to the panes."""
        self.app.pop_screen()

    def palette_commands(self) -> list[tuple[str, Callable[[], None], str]]:
        """The actions that act on the card on screen, for the command palette."""
        names = {
            "archive_older": ("review: Archive", self.action_archive_older, "Archive (on a pair: the older one)"),
            "archive_newer": ("review: Archive the newer", self.action_archive_newer, "Archive the newer of the pair"),
            "merge": ("review: Merge the pair", self.action_merge, "Merge the two memories"),
            "keep_both": ("review: Keep both", self.action_keep_both, "Both stay; the pair does not come back"),
            "edit": ("review: Edit", self.action_edit, "Edit this card's memory"),
            "edit_older": ("review: Edit the older", self.action_edit_older, "Edit the older memory of the pair"),
            "edit_in_editor": ("review: Fix in $EDITOR", self.action_edit_in_editor, "A file that cannot be read"),
            "approve": ("review: Approve / verify", self.action_approve, "Still true: stamp last_verified"),
            "accept": (
                "review: Accept as is",
                self.action_accept,
                "Its format is fine: the schema card settles for this text (nothing stamped)",
            ),
            "fix_date": ("review: Fix relative date", self.action_fix_date, "Replace the relative date (asks)"),
            "index_add": ("review: Add to MEMORY.md", self.action_index_add, "A line for each memory it does not list"),
            "drop_link": ("review: Drop the broken line", self.action_drop_link, "Remove the line to a missing file"),
            "relink": ("review: Relink", self.action_relink, "Point the [[link]] at the memory the card names"),
            "bring_back": ("review: Bring back", self.action_bring_back, "A memory the agent deleted, as it was"),
            "accept_deletion": (
                "review: Accept the deletion",
                self.action_accept_deletion,
                "A memory the agent deleted stays deleted",
            ),
            "skip": ("review: Skip", self.action_skip, "Leave this card for later"),
            "mark": ("review: Mark", self.action_mark, "Mark this memory for a bulk archive or verify"),
            "mark_all": ("review: Mark all / none", self.action_mark_all, "Every memory of this list card"),
            "previous": ("review: Previous card", self.action_previous, "Back to a skipped card"),
            "first": ("review: First card", self.action_first, "The first card still to decide"),
            "last": ("review: Last card", self.action_last, "The last card still to decide"),
            "next_group": ("review: Next group", self.action_next_group, "First card of the next group"),
            "previous_group": (
                "review: Previous group",
                self.action_previous_group,
                "First card of the previous group",
            ),
            "filter": ("review: Filter by kind", self.action_filter, "One group only; again: the next"),
            "weaker": ("review: Weaker pair candidates", self.action_weaker, "Show the held-back pairs"),
            "undo": ("review: Undo this review's last decision", self.action_undo, "Only decisions of this review"),
            "reload_card": ("review: Show the new text", self.action_reload_card, "The card's memory changed on disk"),
            "finish": ("review: Finish", self.action_finish, "Mark the review finished in git"),
            "help": ("review: Help", self.action_help, "This screen's keys"),
            "leave": ("review: Leave", self.action_leave, "Back to the panes"),
        }
        return [cmd for action, cmd in names.items() if self.check_action(action, ())]
