"""The weekly review: one card at a time, one key decides, and the end is marked in git.

The queue is steered (groups, a previous card, a kind filter, digits to jump), and several memories can be
decided at once (marks, bulk cards). It stays one screen class, so over 400 lines: every action reads and moves the
same cursor and decision list, which split across modules would have to be passed around whole."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from memtui import claude_settings, ops
from memtui.core.model import Memory
from memtui.review import DUPLICATE_PREFIX, Card, current_card, finding_count, held_back_cards
from memtui.tui import render
from memtui.tui.decisions import Operation, Outcome, keep_final_newline, undo_own
from memtui.tui.dialogs import (
    ArchiveDialog,
    EditDialog,
    FixDateDialog,
    HelpScreen,
    MergeDialog,
    MergeRequest,
    help_text,
)
from memtui.tui.messages import Decide, Host, WorkspaceChanged
from memtui.tui.review_card import claim_row, group_bar, groups, highlight, why
from memtui.workspace import Workspace, agent_sessions


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


PAIRS = ("contradiction", "duplicate")
PAIR_ONLY = frozenset({"archive_newer", "merge", "keep_both"})
SINGLE_ONLY = frozenset({"approve"})
STEERING = frozenset({"help", "leave", "skip", "undo", "previous", "next_group", "group", "filter", "weaker"})
"""Keys that move through the queue rather than decide a card: live on every card."""


def described(bindings: Iterable[BindingType]) -> list[Binding]:
    """The bindings a help screen lists (the digits after the first are one row: `1 Jump to group 1…9`)."""
    return [b for b in bindings if isinstance(b, Binding) and b.description]


def _values(listing: SelectionList[str]) -> list[str]:
    return [str(listing.get_option_at_index(i).value) for i in range(listing.option_count)]


def _key(card: Card) -> tuple[str, frozenset[str], bool]:
    return card.kind, frozenset(card.paths), card.weaker


class ReviewScreen(Screen[None]):
    """Everything that needs a decision, in groups (pairs first); `pairs 3 / 7 · 14 left` at the top.

    A card counts as decided only once its decision committed: the screen asks the app for the decision
    (`Decide`), waits for the outcome, and a refusal stays on the card with its reason. After each decision the
    cards not yet decided follow the store as it is now; `u` undoes only this review's decisions.
    """

    CSS_PATH = "review.tcss"

    BINDINGS = [
        Binding("question_mark", "help", "Help", id="review.help"),
        Binding("a", "archive_older", "Archive", id="review.archive"),
        Binding("A", "archive_newer", "Archive newer", id="review.archive_newer"),
        Binding("m", "merge", "Merge", id="review.merge"),
        Binding("b", "keep_both", "Keep both", id="review.keep_both"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("v", "approve", "Approve/verify", id="review.approve"),
        Binding("f", "fix_date", "Fix date", id="review.fix_date"),
        Binding("space", "mark", "Mark", id="review.mark"),
        Binding("x", "mark_all", "Mark all/none", id="review.mark_all"),
        Binding("s", "skip", "Skip", id="review.skip"),
        Binding("p", "previous", "Previous", id="review.previous"),
        Binding("g", "next_group", "Next group", id="review.next_group"),
        Binding("k", "filter", "Filter kind", id="review.filter"),
        Binding("w", "weaker", "Weaker pairs", id="review.weaker"),
        Binding("u", "undo", "Undo", id="review.undo"),
        Binding("enter", "finish", "Finish", id="review.finish"),
        Binding("escape,q", "leave", "Leave", id="review.leave"),
        Binding("1", "group(1)", "Jump to group 1…9", show=False, id="review.group"),
        *(Binding(str(n), f"group({n})", "", show=False) for n in range(2, 10)),
    ]

    HELP_NOTES = (
        "a asks for the reason on every card (pre-filled). On a pair, a archives the older one as replaced by",
        "the newer (a duplicate is recorded as merged away, not as a revoked rule); A archives the newer instead.",
        "Marks: space marks this card's memory (and moves on), or on a list card the memory under the cursor",
        "(up/down move); x marks the whole list. With marks, a archives and v verifies every marked memory",
        "in one commit. The digits jump to the numbered group; k shows one kind only; w adds the weaker",
        "(held-back) pair candidates as a last group.",
        "A card counts as decided only once its commit exists; a refusal stays on the card with its reason.",
        "u undoes this review's last decision only. ctrl+p: the palette acts on this card.",
    )

    def __init__(self, ws: Workspace, cards: list[Card], store_path: Path) -> None:
        super().__init__()
        self.ws = ws
        self.store_path = store_path
        self.cards: list[Card] = list(cards)
        self.index = 0
        self.decisions: list[Decision] = []
        self.looked: list[Decision] = []
        """Cards approved where nothing needed writing (no commit, not counted as a commit)."""
        self.finished = False
        self.pending = ""
        """The label of the decision being written, while one is."""
        self.refusal = ""
        """Why the last decision on this card was refused (shown on the card until it moves on)."""
        self.sessions: dict[str, tuple[str, ...]] = {}
        """Per memory, the Claude Code sessions that wrote it since the last review (read in the background)."""
        self.hook: claude_settings.Status | None = None
        """Whether memtui's Claude Code hook is installed (None until read)."""
        self.marks: set[str] = set()
        """Memories marked for one bulk decision (store paths)."""
        self.only: str | None = None
        """The one group shown (`k`), or None for every group."""
        self.weaker = False
        """Whether the held-back pair candidates are in the queue (`w`)."""

    @property
    def host(self) -> Host:
        """The app, as far as a screen may see it."""
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="card-header")
        yield Static(id="card-groups")
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
            yield SelectionList[str](id="bulk-list")
            with VerticalScroll(id="bulk-preview"):
                yield Static(id="bulk-text")
        with VerticalScroll(id="card-summary"):
            yield Static(id="summary-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show_card()
        self._read_context()

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

    # ------------------------------------------------------------------------------------------ cards

    def memory(self, path: str) -> Memory | None:
        """A live memory of the store as it is now."""
        m = self.ws.store.get(path)
        return m if m is not None and not m.in_archive else None

    def current(self) -> Card | None:
        """The card on screen (None at the end)."""
        return self.cards[self.index] if 0 <= self.index < len(self.cards) else None

    def is_pair(self, card: Card | None) -> bool:
        """Whether the card shows two memories side by side."""
        return card is not None and card.kind in PAIRS and len(card.paths) == 2

    def decided(self) -> set[Card]:
        """Cards this review has decided (committed, or looked at with nothing to write)."""
        return {d.card for d in (*self.decisions, *self.looked) if d.closes and d.card is not None}

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that act on this card kind are live (and shown in the footer)."""
        card = self.current()
        if action == "finish":
            return card is None and not self.finished and self.only is None
        if action in STEERING:
            return True
        if self.marks and action in ("archive_older", "approve", "mark_all"):
            return True
        if card is None:
            return False
        if action in PAIR_ONLY:
            return self.is_pair(card)
        if action in SINGLE_ONLY or action == "mark":
            return not self.is_pair(card)
        if action == "mark_all":
            return card.is_bulk
        if action == "fix_date":
            return card.kind == "relative-date"
        return True

    def show_card(self) -> None:
        """Draw the card under the index (or the summary at the end)."""
        if not self.is_attached:
            return  # the person left while a decision was being written; its outcome still reached the app
        card = self.current()
        self.refresh_bindings()
        sides = self.query_one("#card-sides")
        single = self.query_one("#card-single")
        bulk = self.query_one("#card-bulk")
        summary = self.query_one("#card-summary")
        header = self.query_one("#card-header", Static)
        explain = self.query_one("#card-explain", Static)
        refusal = self.query_one("#card-refusal", Static)
        refusal.display = bool(self.refusal or self.pending)
        refusal.update(
            render.styled(
                f"{self.pending}…" if self.pending else f"Refused: {self.refusal}",
                "badge-unknown" if self.pending else "flag-contradiction",
            )
        )
        left = self.left()
        self.query_one("#card-groups", Static).update(group_bar(left, card.group if card else None, self.only))
        if card is None:
            sides.display = single.display = bulk.display = False
            summary.display = True
            header.update(
                Content.assemble(
                    Content(f"Review · done · {self._commit_count()} committed · {len(self.cards)} cards"),
                    self._state_text(),
                )
            )
            explain.update("")
            self.query_one("#summary-text", Static).update(self._summary())
            return
        summary.display = False
        done = self.decided()  # what is still to decide from here on: the counts move as cards are decided
        left = [c for c in self.cards[self.index :] if c not in done]
        findings = finding_count(left)
        same = [c for c in self.cards if c.group == card.group]
        header.update(
            Content.assemble(
                render.styled(f"{card.group} {same.index(card) + 1} / {len(same)}", "flag-new"),
                Content(f" · {len(left)} left ({findings} findings, {sum(c.kind == 'new' for c in left)} new writes)"),
                self._state_text(),
                Content(" · "),
                self._hook_text(),
            )
        )
        fresh = self.ws.freshness.get(card.paths[0]) if len(card.paths) == 1 else None
        mtype = (m.type if (m := self.memory(card.paths[0])) else None) if len(card.paths) == 1 else None
        rule = "" if self.is_pair(card) else why(card, fresh, mtype)
        explain.update(
            Content.assemble(
                render.styled(card.kind, "flag-contradiction" if card.kind == "contradiction" else "flag-lint"),
                Content(" · "),
                render.plain(card.title),
                Content("\n"),
                render.plain(card.explanation + (self._written_by(card) if card.kind == "new" else "")),
                Content("\nwhy: ").stylize("bold") + render.plain(rule) if rule else Content(""),
            )
        )
        raw_shared = card.details.get("shared", []) if card.details else []
        shared = [str(s) for s in raw_shared] if isinstance(raw_shared, list | tuple) else []
        if self.is_pair(card):
            sides.display, single.display, bulk.display = True, False, False
            for side, path, role in (("a", card.paths[0], "older"), ("b", card.paths[1], "newer")):
                m = self.memory(path)
                claim = str(card.details.get(f"{role}_claim") or "")
                raw = m.text if m else "(gone)"
                self.query_one(f"#side-{side}-title", Label).update(render.plain(f"{role}: {path}"))
                self.query_one(f"#side-{side}").border_title = render.clean(f"{role}: {path}")
                self.query_one(f"#side-{side}-text", Static).update(highlight(raw, shared, claim))
                self.call_after_refresh(self._scroll_to_claim, f"#side-{side}", raw, claim)
        elif card.is_bulk:
            sides.display, single.display, bulk.display = False, False, True
            self._fill_bulk(card)
        else:
            sides.display, single.display, bulk.display = False, True, False
            if card.kind == "new" and card.diff:
                text = Content("\n").join(
                    render.styled(
                        line,
                        "badge-fresh"
                        if line.startswith("+")
                        else "badge-expired"
                        if line.startswith("-")
                        else "badge-unknown",
                    )
                    for line in card.diff.splitlines()
                )
            else:
                m = self.memory(card.paths[0]) if card.paths else None
                text = highlight(m.text if m else card.explanation, [card.cue] if card.cue else [])
            self.query_one("#single-text", Static).update(text)

    def _scroll_to_claim(self, selector: str, text: str, claim: str) -> None:
        """A long memory opens at the claim the finding quotes (a few lines above it, for context)."""
        if not self.is_attached:
            return
        scroll = self.query_one(selector, VerticalScroll)
        row = claim_row(text, claim, scroll.scrollable_content_region.width)
        scroll.scroll_to(y=max(0, row - 2), animate=False)

    def _fill_bulk(self, card: Card) -> None:
        """The bulk card's list: one row per memory the rule flags, marked rows ticked."""
        listing = self.query_one("#bulk-list", SelectionList)
        if _values(listing) != list(card.paths):
            listing.clear_options()
            listing.add_options([Selection(self._row(path), path, path in self.marks) for path in card.paths])
        else:
            ticked = set(listing.selected)
            for path in card.paths:
                if (path in self.marks) != (path in ticked):
                    listing.toggle(path)
        if listing.highlighted is None and listing.option_count:
            listing.highlighted = 0
        if self.focused is not listing:
            listing.focus()
        self._preview_bulk(listing.highlighted)

    def _row(self, path: str) -> str:
        m = self.memory(path)
        return render.clean(f"{path}  {m.title}" if m is not None and m.title != path else path)

    def _preview_bulk(self, highlighted: int | None) -> None:
        card = self.current()
        if card is None or not card.is_bulk:
            return
        at = highlighted if highlighted is not None and 0 <= highlighted < len(card.paths) else 0
        member = card.members[at] if at < len(card.members) else None
        m = self.memory(card.paths[at])
        text = Content.assemble(
            render.styled(member.message if member else card.paths[at], "flag-lint"),
            Content("\n\n"),
            highlight(m.text, [card.cue] if card.cue else []) if m else Content("(gone)"),
        )
        self.query_one("#bulk-text", Static).update(text)

    @on(SelectionList.SelectionHighlighted, "#bulk-list")
    def _bulk_highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        self._preview_bulk(event.selection_index)

    @on(SelectionList.SelectedChanged, "#bulk-list")
    def _bulk_marked(self, event: SelectionList.SelectedChanged[str]) -> None:
        card = self.current()
        if card is None or not card.is_bulk:
            return
        listing = event.selection_list
        if _values(listing) != list(card.paths):
            return  # the list is being refilled for another card
        self.marks = (self.marks - set(card.paths)) | set(listing.selected)
        self.show_card()

    def _state_text(self) -> Content:
        """Marks, the filter and the held-back candidates, as far as they apply."""
        parts = []
        if self.marks:
            parts.append(render.styled(f"{len(self.marks)} marked", "flag-secret"))
        if self.only:
            parts.append(Content(f"only {self.only} (k)"))
        report = self.ws.report
        held = len(report.held_back) if report is not None else 0
        if held:
            parts.append(
                Content(f"{held} weaker pair{'s' if held != 1 else ''} {'shown' if self.weaker else 'held back (w)'}")
            )
        return Content.assemble(*(Content(" · ") + p for p in parts)) if parts else Content("")

    def _hook_text(self) -> Content:
        """Whether the agent's writes reach memtui as they happen (the hook), for the header."""
        hook = self.hook
        if hook is None:
            return Content("hook: …")
        if hook.error:
            return render.styled("hook: settings unreadable", "badge-unknown")
        if hook.installed and not (hook.hooks_disabled or hook.managed_only):
            return render.styled("hook: installed", "badge-fresh")
        if hook.installed:
            return render.styled("hook: disabled", "badge-expired")
        if hook.plugin:
            return render.styled("hook: plugin installed", "badge-fresh")
        return render.styled("hook: not installed", "badge-unknown")

    def _written_by(self, card: Card) -> str:
        """Which Claude Code session(s) wrote this memory since the last review, from the commit trailers."""
        path = card.paths[0] if card.paths else ""
        if path not in self.sessions:
            return "" if self.hook is None else " · not yet recorded in git (session unknown)"
        sessions = self.sessions[path]
        if not sessions:
            return " · recorded without a session (not by the hook)"
        shown = ", ".join(s[:8] for s in sessions[:3]) + (f" +{len(sessions) - 3}" if len(sessions) > 3 else "")
        return f" · session{'s' if len(sessions) > 1 else ''} {shown}"

    def _commit_count(self) -> int:
        return sum(1 for d in self.decisions if d.commit)

    def _summary(self) -> Content:
        counts = Counter(d.action for d in self.decisions if d.commit)
        lines = [Content.styled("Review finished", "bold"), Content("")]
        if not counts:
            lines.append(Content("Nothing committed."))
        for action, n in sorted(counts.items()):
            lines.append(Content(f"  {action}: {n}"))
        if self.looked:
            lines.append(Content(f"  looked at, nothing to write: {len(self.looked)}"))
        left = len(self.left())
        lines += [Content(""), Content(f"{left} cards skipped or left."), Content("")]
        if self.finished:
            lines.append(render.styled("Marked finished in git: next week's queue starts here.", "badge-fresh"))
        else:
            lines.append(Content("enter: mark the review finished in git (next week starts here) · escape: leave"))
        return Content("\n").join(lines)

    def _queue(self) -> list[Card]:
        """The app's queue as the store is now, with the weaker pair candidates when they are shown."""
        ws = self.host.ws
        extra = held_back_cards(ws.report) if self.weaker and ws is not None and ws.report is not None else []
        return [*self.host.cards, *extra]

    def _follow_store(self) -> None:
        """Cards not yet decided follow the store as it is now: moot ones leave, the rest are redrawn fresh.

        The cursor stays on the card it was on (or the next one, when that card left).
        """
        ws = self.host.ws
        if ws is None or ws.report is None:
            return
        self.ws = ws
        queue = self._queue()
        done = self.decided()
        kept: list[Card] = []
        seen: set[tuple[str, frozenset[str], bool]] = set()
        index = None
        for i, card in enumerate(self.cards):
            if i == self.index:
                index = len(kept)
            fresh = card if card in done else current_card(card, queue)
            if fresh is None or (fresh not in done and _key(fresh) in seen):
                continue
            seen.add(_key(fresh))
            kept.append(fresh)
        self.cards = kept
        self.index = len(kept) if index is None else index

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        message.stop()
        if not self.pending:  # a decision in flight redraws when its outcome arrives
            self._follow_store()
            self.show_card()

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
    ) -> None:
        """Ask the app for a decision on the current card (or on the marked memories, when `marked` names
        them); the card moves on only if it committed. An edit names its text (`typed`, `path`) so a refused
        save offers it again instead of losing it."""
        card, marked = self.current(), frozenset(marked)
        if card is None and not marked:
            return
        self.pending = label
        self.refusal = ""
        self.show_card()
        self.app.post_message(
            Decide(
                label,
                operation,
                lambda outcome: self._decided(card, action, outcome, marked),
                typed=typed,
                path=path,
            )
        )

    def _decided(self, card: Card | None, action: str, outcome: Outcome, marked: frozenset[str] = frozenset()) -> None:
        self.pending = ""
        if not outcome.ok:
            self._follow_store()
            if card in self.cards:
                self.index = self.cards.index(card)
            self.refusal = outcome.message
            self.show_card()
            return
        before = self.left()
        closes = not marked
        decision = Decision(card, action, outcome.commit, closes=closes)
        decisions = self.decisions if outcome.committed else self.looked
        decisions.append(decision)
        self._follow_store()
        remaining = {_key(c) for c in self.cards}
        pruned = tuple(c for c in before if c != card and _key(c) not in remaining)
        decisions[-1] = replace(decision, pruned=pruned)
        if closes and card in self.cards:
            self.index = self._next_open(self.cards.index(card) + 1)
        else:
            self.index = self._next_open(self.index)
        self._lift_spent_filter()
        self.marks = {p for p in self.marks - marked if self.memory(p) is not None}  # archived ones leave the marks
        self.refusal = ""
        self.show_card()

    def _busy(self) -> bool:
        if self.pending:
            self.notify(f"Still writing: {self.pending}", severity="warning")
            return True
        return False

    def _pair(self) -> tuple[Card, Memory, Memory] | None:
        card = self.current()
        if not self.is_pair(card):
            self.notify("This card is not a pair", severity="warning")
            return None
        assert card is not None
        older, newer = self.memory(card.paths[0]), self.memory(card.paths[1])
        if older is None or newer is None:
            self.notify(
                "One of these memories is gone from the store (reload with ctrl+r on the main screen)",
                severity="warning",
            )
            return None
        return card, older, newer

    def _archive(self, target: Memory, successor: Memory | None, card: Card) -> None:
        if successor is not None:
            prefix = DUPLICATE_PREFIX if card.kind == "duplicate" else "superseded by "
            default = f"{prefix}{successor.title}"
        else:
            default = {
                "expired": "expired",
                "stale": "stale: no longer true",
                "archived-but-loaded": "already archived; moved out of the folder the agent loads",
                "secret": "holds a secret; out of what the agent loads",
                "malformed": "unreadable front matter",
                "new": "not worth keeping",
            }.get(card.kind, "no longer needed")
        store, expected, succ = self.store_path, target.content_hash, successor.path if successor else None
        action = "merged away (duplicate)" if successor is not None and card.kind == "duplicate" else "archived"

        def done(reason: str | None) -> None:
            if reason:
                self._ask(
                    "Archive",
                    action,
                    lambda allow: ops.archive(
                        store,
                        target.path,
                        reason=reason,
                        superseded_by=succ,
                        expected_hash=expected,
                        allow_secret=allow,
                    ),
                )

        self.app.push_screen(ArchiveDialog(target.title, default), done)

    def action_archive_older(self) -> None:
        """Archive: the marked memories (one commit); on a pair the older memory, replaced by the newer;
        elsewhere the card's memory. Asks why."""
        card = self.current()
        if self._busy():
            return
        if self.marks:
            self._archive_marked(card)
            return
        if card is None:
            return
        if self.is_pair(card):
            if (pair := self._pair()) is not None:
                self._archive(pair[1], pair[2], card)
            return
        m = self.memory(card.paths[0]) if card.paths else None
        if m is None:
            self.notify(
                "No memory on this card to archive (it is gone, or the card is about MEMORY.md)", severity="warning"
            )
            return
        self._archive(m, None, card)

    def action_archive_newer(self) -> None:
        """Archive the newer memory of the pair instead, replaced by the older. Asks why."""
        if self._busy():
            return
        if (pair := self._pair()) is not None:
            self._archive(pair[2], pair[1], pair[0])

    def action_merge(self) -> None:
        """Merge the pair (the merge dialog opens; the newer leads)."""
        if self._busy() or (pair := self._pair()) is None:
            return
        _, older, newer = pair
        store, hashes = self.store_path, {older.path: older.content_hash, newer.path: newer.content_hash}
        paths = [older.path, newer.path]

        def done(request: MergeRequest | None) -> None:
            if request is not None:
                self._ask(
                    "Merge",
                    "merged",
                    lambda allow: ops.merge(
                        store,
                        paths,
                        into=request.into,
                        text=request.text,
                        reason=request.reason,
                        expected_hashes=hashes,
                        allow_secret=allow,
                    ),
                )

        self.app.push_screen(MergeDialog([older, newer], newer.path), done)

    def action_edit(self) -> None:
        """Edit the memory (the newer of a pair)."""
        card = self.current()
        if card is None or self._busy():
            return
        m = self.memory(card.paths[-1]) if card.paths else None
        if m is None or m.is_malformed:
            self.notify("Nothing editable on this card", severity="warning")
            return
        store, expected = self.store_path, m.content_hash

        def done(text: str | None) -> None:
            if text is not None and text != m.text:
                new = keep_final_newline(m.text, text)
                self._ask(
                    "Edit",
                    "edited",
                    lambda allow: ops.edit(store, m.path, new, expected_hash=expected, allow_secret=allow),
                    typed=new,
                    path=m.path,
                )

        self.app.push_screen(EditDialog(m.title, m.text), done)

    def action_approve(self) -> None:
        """Approve what the agent wrote, or confirm a stale memory is still true (stamps last_verified); with
        marks, every marked memory in one commit."""
        card = self.current()
        if self._busy():
            return
        if self.marks:
            self._verify_marked()
            return
        if card is None:
            return
        m = self.memory(card.paths[0]) if card.paths else None
        if m is None:
            self.notify("This memory is gone from the store; nothing to verify", severity="warning")
            return
        if m.is_malformed or not m.has_frontmatter:
            self.looked.append(Decision(card, "approved", None))
            self._advance()
            self.notify(f"{m.path} has no front matter to stamp; approved without a commit", timeout=4)
            self.show_card()
            return
        store, expected = self.store_path, m.content_hash
        self._ask(
            "Verify", "verified", lambda allow: ops.verify(store, m.path, expected_hash=expected, allow_secret=allow)
        )

    def action_fix_date(self) -> None:
        """Show the relative date and the date it meant; write it when the person agrees."""
        card = self.current()
        if card is None or self._busy() or card.kind != "relative-date":
            return
        m = self.memory(card.paths[0]) if card.paths else None
        if m is None or card.finding is None:
            self.notify("This memory is gone from the store", severity="warning")
            return
        phrase = str(card.details.get("phrase") or "")
        suggestion = str(card.details.get("suggestion") or "")
        context = next((line.strip() for line in m.text.splitlines() if phrase and phrase in line), "")
        store, expected = self.store_path, m.content_hash

        def done(date: dt.date | None) -> None:
            if date is not None:
                self._ask(
                    "Fix date",
                    "date fixed",
                    lambda allow: ops.fix_date(
                        store, m.path, phrase=phrase or None, date=date, expected_hash=expected, allow_secret=allow
                    ),
                )

        self.app.push_screen(FixDateDialog(m.title, phrase, context, suggestion), done)

    def action_keep_both(self) -> None:
        """Both memories stay; the pair does not come back until one of them changes."""
        if self._busy() or (pair := self._pair()) is None:
            return
        card, older, newer = pair
        store = self.store_path
        self._ask("Keep both", "kept both", lambda allow: ops.keep_both(store, older, newer, kind=card.kind))

    def action_skip(self) -> None:
        """Leave this card for later."""
        if self.current() is None or self._busy():
            return
        self._advance()
        self.show_card()

    # ------------------------------------------------------------------------------------------ marks

    def _marked(self) -> list[Memory] | None:
        """The marked memories as the store is now; None (and says which) when one is gone."""
        marked = sorted(self.marks)
        found = [m for p in marked if (m := self.memory(p)) is not None]
        if len(found) != len(marked):
            gone = sorted(set(marked) - {m.path for m in found})
            self.notify(f"Marked but gone from the store: {', '.join(gone)} (unmarked)", severity="warning")
            self.marks -= set(gone)
            self.show_card()
            return None
        return found

    def _archive_marked(self, card: Card | None) -> None:
        """Archive every marked memory in one commit, for one reason (asked)."""
        memories = self._marked()
        if not memories:
            return
        store, paths = self.store_path, [m.path for m in memories]
        hashes = {m.path: m.content_hash for m in memories}
        default = {"schema": "does not follow the memory schema", "unindexed": "not in the index; not needed"}
        reason = default.get(card.kind, "no longer needed") if card is not None else "no longer needed"

        def done(reason: str | None) -> None:
            if reason:
                self._ask(
                    "Archive",
                    "archived",
                    lambda allow: ops.archive_many(
                        store, paths, reason=reason, expected_hashes=hashes, allow_secret=allow
                    ),
                    marked=paths,
                )

        title = f"{len(paths)} marked memories" if len(paths) > 1 else paths[0]
        self.app.push_screen(ArchiveDialog(title, reason), done)

    def _verify_marked(self) -> None:
        """Verify every marked memory (still true: stamps last_verified) in one commit."""
        memories = self._marked()
        if not memories:
            return
        blank = [m.path for m in memories if m.is_malformed or not m.has_frontmatter]
        if blank:  # nothing to stamp there (memtui never adds front matter): unmarked, the rest still verified
            self.marks -= set(blank)
            self.notify(f"No front matter to stamp, unmarked: {', '.join(blank)}", severity="warning", timeout=6)
            memories = [m for m in memories if m.path not in blank]
            self.show_card()
            if not memories:
                return
        store, paths = self.store_path, [m.path for m in memories]
        hashes = {m.path: m.content_hash for m in memories}
        self._ask(
            "Verify",
            "verified",
            lambda allow: ops.verify_many(store, paths, expected_hashes=hashes, allow_secret=allow),
            marked=paths,
        )

    def action_mark(self) -> None:
        """Mark this card's memory for a bulk decision (and move on), or unmark it."""
        card = self.current()
        if card is None or self._busy() or self.is_pair(card):
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
            self.marks.add(path)
            self._advance()
        self.show_card()

    def action_mark_all(self) -> None:
        """On a list card, mark every memory it lists (or unmark them all); elsewhere, clear the marks."""
        card = self.current()
        if self._busy():
            return
        if card is not None and card.is_bulk:
            paths = set(card.paths)
            self.marks = self.marks - paths if paths <= self.marks else self.marks | paths
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

    def action_next_group(self) -> None:
        """To the first card still to decide of the next group (round to the first)."""
        if self._busy():
            return
        present = [g for g, _ in groups(self.left())]
        if not present:
            return
        card = self.current()
        at = present.index(card.group) + 1 if card is not None and card.group in present else 0
        group = present[at % len(present)]
        if self.only is not None and self.only != group:
            self.only = None
        index = self._first_of(group)
        if index is not None:
            self._go(index)

    def action_group(self, number: int) -> None:
        """To the numbered group of the bar under the header."""
        if self._busy():
            return
        present = [g for g, _ in groups(self.left())]
        if not 1 <= number <= len(present):
            self.notify(f"No group {number}: there are {len(present)}", severity="warning")
            return
        group = present[number - 1]
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
            back = [c for c in last.pruned if c not in self.cards]
            self.cards[at + int(last.closes) : at + int(last.closes)] = back
            self.index = at
            self._follow_store()
            self.index = self._next_open(self.index)
            self._lift_spent_filter()
            self.show_card()

        self.pending = "Undo"
        self.show_card()
        self.app.post_message(Decide("Undo", lambda allow: undo_own(store, commit), undone))

    def action_finish(self) -> None:
        """At the end: mark the review finished in git."""
        if self.current() is not None or self.finished or self._busy():
            return
        counts = Counter(d.action for d in self.decisions if d.commit)
        summary = "Review: " + (", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "nothing committed")
        summary += f" ({self._commit_count()} commits); {len(self.cards)} cards."
        store = self.store_path

        def done(outcome: Outcome) -> None:
            self.pending = ""
            if outcome.committed:
                self.finished = True
            else:
                self.refusal = outcome.message
            self.show_card()

        self.pending = "Marking the review finished"
        self.show_card()
        self.app.post_message(Decide("Review", lambda allow: ops.finish_review(store, summary), done))

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
            "approve": ("review: Approve / verify", self.action_approve, "Still true: stamp last_verified"),
            "fix_date": ("review: Fix relative date", self.action_fix_date, "Replace the relative date (asks)"),
            "skip": ("review: Skip", self.action_skip, "Leave this card for later"),
            "mark": ("review: Mark", self.action_mark, "Mark this memory for a bulk archive or verify"),
            "mark_all": ("review: Mark all / none", self.action_mark_all, "Every memory of this list card"),
            "previous": ("review: Previous card", self.action_previous, "Back to a skipped card"),
            "next_group": ("review: Next group", self.action_next_group, "First card of the next group"),
            "filter": ("review: Filter by kind", self.action_filter, "One group only; again: the next"),
            "weaker": ("review: Weaker pair candidates", self.action_weaker, "Show the held-back pairs"),
            "undo": ("review: Undo this review's last decision", self.action_undo, "Only decisions of this review"),
            "finish": ("review: Finish", self.action_finish, "Mark the review finished in git"),
            "help": ("review: Help", self.action_help, "This screen's keys"),
            "leave": ("review: Leave", self.action_leave, "Back to the panes"),
        }
        return [cmd for action, cmd in names.items() if self.check_action(action, ())]
