"""The weekly review: one card at a time, one key decides, and the end is marked in git."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from memtui import claude_settings, ops
from memtui.analysis.lexicon import CHANGE_CUES, NEGATIONS, ZH_NEGATIONS
from memtui.core.model import Memory
from memtui.review import DUPLICATE_PREFIX, Card, current_card, finding_count
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
from memtui.workspace import Workspace, agent_sessions

_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}|https?://\S+|\b\d+(?:\.\d+)?%?")


@dataclass(frozen=True)
class Decision:
    """A decision of this review that happened: its card, what was done, and the commit (None: nothing to write)."""

    card: Card
    action: str
    commit: str | None
    pruned: tuple[Card, ...] = ()
    """Later cards this decision made moot (they come back if it is undone)."""


PAIRS = ("contradiction", "duplicate")
PAIR_ONLY = frozenset({"archive_newer", "merge", "keep_both"})
SINGLE_ONLY = frozenset({"approve"})


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
    """Everything that needs a decision, pairs first; `7 / 23` at the top.

    A card counts as decided only once its decision committed: the screen asks the app for the decision
    (`Decide`), waits for the outcome, and a refusal stays on the card with its reason. After each decision the
    remaining cards follow the store as it is now; `u` undoes only this review's decisions.
    """

    BINDINGS = [
        Binding("a", "archive_older", "Archive", id="review.archive"),
        Binding("A", "archive_newer", "Archive newer", id="review.archive_newer"),
        Binding("m", "merge", "Merge", id="review.merge"),
        Binding("b", "keep_both", "Keep both", id="review.keep_both"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("v", "approve", "Approve/verify", id="review.approve"),
        Binding("f", "fix_date", "Fix date", id="review.fix_date"),
        Binding("s", "skip", "Skip", id="review.skip"),
        Binding("u", "undo", "Undo", id="review.undo"),
        Binding("enter", "finish", "Finish", id="review.finish"),
        Binding("question_mark", "help", "Help", id="review.help"),
        Binding("escape,q", "leave", "Leave", id="review.leave"),
    ]

    HELP_NOTES = (
        "a asks for the reason on every card (pre-filled). On a pair, a archives the older one as replaced by",
        "the newer (a duplicate is recorded as merged away, not as a revoked rule); A archives the newer instead.",
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

    @property
    def host(self) -> Host:
        """The app, as far as a screen may see it."""
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="card-header")
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
        with VerticalScroll(id="card-summary"):
            yield Static(id="summary-text")
        yield Footer()

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that act on this card kind are live (and shown in the footer)."""
        card = self.current()
        if action == "finish":
            return card is None and not self.finished
        if action in ("help", "leave", "skip", "undo"):
            return True
        if card is None:
            return False
        if action in PAIR_ONLY:
            return self.is_pair(card)
        if action in SINGLE_ONLY:
            return not self.is_pair(card)
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
        if card is None:
            sides.display = single.display = False
            summary.display = True
            header.update(Content(f"Review · done · {self._commit_count()} committed · {len(self.cards)} cards"))
            explain.update("")
            self.query_one("#summary-text", Static).update(self._summary())
            return
        summary.display = False
        left = self.cards[self.index :]  # what is still to decide: the counts move as cards are decided
        findings = finding_count(left)
        header.update(
            Content.assemble(
                Content(f"Review · {self.index + 1} / {len(self.cards)} · "),
                render.styled(card.kind, "flag-contradiction" if card.kind == "contradiction" else "flag-lint"),
                Content(" · "),
                render.plain(card.title),
                Content(f"   ({findings} findings, {len(left) - findings} new writes left) · "),
                self._hook_text(),
            )
        )
        explain.update(render.plain(card.explanation + (self._written_by(card) if card.kind == "new" else "")))
        raw_shared = card.details.get("shared", []) if card.details else []
        shared = [str(s) for s in raw_shared] if isinstance(raw_shared, list | tuple) else []
        if self.is_pair(card):
            sides.display, single.display = True, False
            for side, path, role in (("a", card.paths[0], "older"), ("b", card.paths[1], "newer")):
                m = self.memory(path)
                self.query_one(f"#side-{side}-title", Label).update(render.plain(f"{role}: {path}"))
                self.query_one(f"#side-{side}-text", Static).update(highlight(m.text if m else "(gone)", shared))
        else:
            sides.display, single.display = False, True
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
        left = len(self.cards) - len(self.decisions) - len(self.looked)
        lines += [Content(""), Content(f"{left} cards skipped or left."), Content("")]
        if self.finished:
            lines.append(render.styled("Marked finished in git: next week's queue starts here.", "badge-fresh"))
        else:
            lines.append(Content("enter: mark the review finished in git (next week starts here) · escape: leave"))
        return Content("\n").join(lines)

    def _follow_store(self) -> None:
        """Cards not yet decided follow the store as it is now: moot ones leave, the rest are redrawn fresh."""
        ws = self.host.ws
        if ws is None or ws.report is None:
            return
        self.ws = ws
        queue = self.host.cards
        kept: list[Card] = self.cards[: self.index]
        for card in self.cards[self.index :]:
            fresh = current_card(card, queue)
            if fresh is not None:
                kept.append(fresh)
        self.cards = kept

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        message.stop()
        if not self.pending:  # a decision in flight redraws when its outcome arrives
            self._follow_store()
            self.show_card()

    # ------------------------------------------------------------------------------------------ deciding

    def _ask(self, label: str, action: str, operation: Operation) -> None:
        """Ask the app for a decision on the current card; the card moves on only if it committed."""
        card = self.current()
        if card is None:
            return
        self.pending = label
        self.refusal = ""
        self.show_card()
        self.app.post_message(Decide(label, operation, lambda outcome: self._decided(card, action, outcome)))

    def _decided(self, card: Card, action: str, outcome: Outcome) -> None:
        self.pending = ""
        if not outcome.ok:
            self._follow_store()
            if card in self.cards:
                self.index = self.cards.index(card)
            self.refusal = outcome.message
            self.show_card()
            return
        later = self.cards[self.index + 1 :]
        self.index += 1
        self._follow_store()
        remaining = {(c.kind, frozenset(c.paths)) for c in self.cards[self.index :]}
        pruned = tuple(c for c in later if (c.kind, frozenset(c.paths)) not in remaining)
        decision = Decision(card, action, outcome.commit, pruned)
        (self.decisions if outcome.committed else self.looked).append(decision)
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
        """Archive: on a pair the older memory, replaced by the newer; elsewhere the card's memory. Asks why."""
        card = self.current()
        if card is None or self._busy():
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
                )

        self.app.push_screen(EditDialog(m.title, m.text), done)

    def action_approve(self) -> None:
        """Approve what the agent wrote, or confirm a stale memory is still true (stamps last_verified)."""
        card = self.current()
        if card is None or self._busy():
            return
        m = self.memory(card.paths[0]) if card.paths else None
        if m is None:
            self.notify("This memory is gone from the store; nothing to verify", severity="warning")
            return
        if m.is_malformed or not m.has_frontmatter:
            self.looked.append(Decision(card, "approved", None))
            self.index += 1
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
        self.refusal = ""
        self.index += 1
        self.show_card()

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
            at = self.cards.index(last.card) if last.card in self.cards else self.index
            if last.card not in self.cards:
                self.cards.insert(at, last.card)
            back = [c for c in last.pruned if c not in self.cards]
            self.cards[at + 1 : at + 1] = back
            self.index = at
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
        self.app.push_screen(HelpScreen("Keys · review", help_text(self.BINDINGS, self.HELP_NOTES)))

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
            "undo": ("review: Undo this review's last decision", self.action_undo, "Only decisions of this review"),
            "finish": ("review: Finish", self.action_finish, "Mark the review finished in git"),
            "help": ("review: Help", self.action_help, "This screen's keys"),
            "leave": ("review: Leave", self.action_leave, "Back to the panes"),
        }
        return [cmd for action, cmd in names.items() if self.check_action(action, ())]
