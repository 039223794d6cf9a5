"""The history of decisions, newest first; revoked rules on a toggle; enter shows a rule as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from memtui import ops
from memtui.audit.repo import Event, StoreRepo
from memtui.review import is_duplicate_archive, revoked_only, undone_commits
from memtui.tui import render
from memtui.tui.decisions import Operation, Outcome
from memtui.tui.dialogs import HelpScreen, help_text
from memtui.tui.messages import Decide, Host, ThreadSaid, WorkspaceChanged
from memtui.tui.render import cut

COLUMNS = (("date", 10), ("action", 20), ("memory", 28), ("reason", 38), ("replaced by", 22), ("author", 10))
"""Widths that fit 140 columns with the cell padding; longer text is cut with an ellipsis."""


class HistoryDetail(ModalScreen[str | None]):
    """A decision in full: the rule's text as it was before the commit, and the commit's diff. `R` on a retired
    rule restores it (dismissed with "restore")."""

    BINDINGS = [
        Binding("R", "restore", "Restore this rule", id="detail.restore"),
        Binding("escape,enter,q", "close", "Close", id="detail.close"),
    ]

    def __init__(self, event: Event, before: str, diff: str) -> None:
        super().__init__()
        self.event = event
        self.before = before
        self.diff = diff

    def compose(self) -> ComposeResult:
        e = self.event
        with Vertical(classes="dialog"):
            yield Label(render.plain(f"{e.action} · {e.memory} · {e.date[:10]} · {e.author}"), classes="dialog-title")
            if archived_to(e):
                yield Static(render.styled("R restores this rule (its file and its index line) · esc closes", "bold"))
            if e.reason:
                yield Static(render.plain(f"Why: {e.reason}"))
            if e.superseded_by:
                yield Static(render.plain(f"Replaced by: {e.superseded_by}"))
            with VerticalScroll(id="detail-body"):
                yield Static(Content.styled("The memory as it was:", "bold"))
                yield Static(render.plain(self.before or "(not a file change)"))
                yield Static(Content.styled("\nThe commit:", "bold"))
                yield Static(render.diff(self.diff))

    def action_close(self) -> None:
        """Back to the list."""
        self.dismiss(None)

    def action_restore(self) -> None:
        """Restore the retired rule shown (only an archive or merge can be restored)."""
        if not archived_to(self.event):
            self.notify("Only an archived or merged-away memory can be restored", severity="warning")
            return
        self.dismiss("restore")


def archived_to(event: Event) -> list[str]:
    """The archived files an archive (or merge) left, by name: what restoring it brings back."""
    if event.action not in ("archive", "merge"):
        return []
    return [PurePosixPath(p).name for p in event.trailers.get("Memtui-Archived-To", []) if p]


class HistoryScreen(Screen[None]):
    """memtui's events: action, memory, reason, successor, author, date."""

    BINDINGS = [
        Binding("t", "toggle_revoked", "Revoked only", id="history.revoked"),
        Binding("slash", "filter", "Filter", id="history.filter"),
        Binding("enter", "open", "Open", id="history.open", show=False),
        Binding("space", "mark", "Mark", id="history.mark", show=False),
        Binding("R", "restore", "Restore", id="history.restore"),
        Binding("U", "redo", "Redo", id="history.redo"),
        Binding("question_mark", "help", "Help", id="history.help"),
        Binding("escape,q,H", "leave", "Back", id="history.leave"),
    ]

    HELP_NOTES = (
        "Undone decisions are struck through and marked (undone); an undo row names what it reverted.",
        "A duplicate archived beside its twin is shown as archive (duplicate) and is not a revoked rule.",
        "A redo is shown as the decision it applied again, marked (redo).",
        "ctrl+p: the palette acts on this screen.",
    )

    def __init__(self, repo: StoreRepo) -> None:
        super().__init__()
        self.repo = repo
        self.events: list[Event] = []
        self.revoked = False
        self.filter_text = ""
        self.marked: set[str] = set()
        """Commits of archive decisions marked with space: `R` restores them all in one commit."""

    def compose(self) -> ComposeResult:
        yield Static(id="history-header")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Input(placeholder="filter history (enter keeps, escape clears)", id="history-filter")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in COLUMNS:
            table.add_column(label, width=width, key=label)
        self.query_one("#history-filter").display = False
        self._load()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False, description="Reading history")
    def _load(self) -> None:
        events = self.repo.history()
        self.post_message(ThreadSaid(lambda: self._show(events)))

    def _show(self, events: list[Event]) -> None:
        self.events = events
        self.refresh_table()
        self.query_one(DataTable).focus()

    def shown_events(self) -> list[Event]:
        """The events after the toggle and the filter."""
        events = revoked_only(self.events) if self.revoked else self.events
        if self.filter_text:
            needle = self.filter_text.casefold()
            events = [
                e
                for e in events
                if needle in f"{e.action} {e.memory} {e.reason} {e.superseded_by} {e.author}".casefold()
            ]
        return events

    def refresh_table(self) -> None:
        """Redraw the list."""
        table = self.query_one(DataTable)
        table.clear()
        shown = self.shown_events()
        undone = undone_commits(self.events)
        by_commit = {e.commit: e for e in self.events}
        w = dict(COLUMNS)
        for i, e in enumerate(shown):
            action = ("archive (duplicate)" if is_duplicate_archive(e) else e.action) + (
                " (redo)" if e.reapplies else ""
            )
            colour = (
                "flag-contradiction"
                if e.action in ("archive", "merge") and not is_duplicate_archive(e)
                else "badge-unknown"
            )
            reason = e.reason
            if e.action == "undo":
                reverted = [by_commit.get(sha) for sha in e.trailers.get("Memtui-Reverts", [])]
                reason = "reverted " + ", ".join(
                    f"{r.action} of {_short(r.memory)} ({r.commit[:8]})" if r else "an older decision" for r in reverted
                )
            if e.commit in undone:
                action_cell = Content.assemble(
                    render.styled(cut(action, w["action"] - 9), "badge-unknown").stylize("strike"),
                    render.styled(" (undone)", "badge-unknown"),
                )
            else:
                mark = "• " if e.commit in self.marked else ""
                action_cell = render.styled(cut(mark + action, w["action"]), colour)
            table.add_row(
                Content(e.date[:10]),
                action_cell,
                render.plain(cut(_short(e.memory), w["memory"])),
                render.plain(cut(reason, w["reason"])),
                render.plain(cut(_short(e.superseded_by), w["replaced by"])),
                render.plain(cut(e.author, w["author"])),
                key=str(i),
            )
        mode = "revoked rules" if self.revoked else "all decisions"
        extra = f" · filter: {self.filter_text}" if self.filter_text else ""
        extra += f" · {len(self.marked)} marked" if self.marked else ""
        self.query_one("#history-header", Static).update(
            render.plain(
                f"History · {mode} · {len(shown)} of {len(self.events)}{extra} · t toggles revoked · enter opens · R restores"
            )
        )

    def action_toggle_revoked(self) -> None:
        """Show only retired rules, or everything."""
        self.revoked = not self.revoked
        self.refresh_table()

    def action_filter(self) -> None:
        """Filter by memory, reason, action or author."""
        box = self.query_one("#history-filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#history-filter")
    def _filter(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()
        self.refresh_table()

    @on(Input.Submitted, "#history-filter")
    def _filter_kept(self) -> None:
        self.query_one("#history-filter").display = False
        self.query_one(DataTable).focus()

    def on_key(self, event: object) -> None:
        box = self.query_one("#history-filter", Input)
        if getattr(event, "key", "") == "escape" and box.has_focus:
            box.value = ""
            self.filter_text = ""
            box.display = False
            self.refresh_table()
            self.query_one(DataTable).focus()
            getattr(event, "stop", lambda: None)()

    @on(ThreadSaid)
    def _thread_said(self, message: ThreadSaid) -> None:
        message.stop()
        message.callback()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        shown = self.shown_events()
        index = int(str(event.row_key.value))
        if 0 <= index < len(shown):
            self._detail(shown[index])

    @work(thread=True, exclusive=True, group="history-detail", exit_on_error=False, description="Reading a commit")
    def _detail(self, event: Event) -> None:
        before = b""
        if event.memory:
            before = self.repo.show(event.commit + "^", event.memory) or b""
        text = before.decode("utf-8", errors="replace")
        diff = self.repo.diff(event.commit)
        detail = HistoryDetail(event, text, diff)

        def answered(answer: str | None) -> None:
            if answer == "restore":
                self.restore(event)

        self.post_message(ThreadSaid(lambda: self.app.push_screen(detail, answered)))

    def _decide(self, label: str, operation: Operation) -> None:
        def done(outcome: Outcome) -> None:
            self._load()  # the list shows the new commit (the app has already said what came of it)

        self.app.post_message(Decide(label, operation, done))

    def restore(self, event: Event) -> None:
        """Restore what an archive (or merge) retired: one commit, the file and its index line as they were."""
        names = archived_to(event)
        if not names:
            self.notify("Only an archived or merged-away memory can be restored", severity="warning")
            return
        store = cast(Host, self.app).store_path
        self._decide("Restore", lambda allow, today: ops.restore_many(store, names, allow_secret=allow, today=today))

    def _under_cursor(self) -> Event | None:
        table = self.query_one(DataTable)
        shown = self.shown_events()
        return shown[table.cursor_row] if 0 <= table.cursor_row < len(shown) else None

    def action_mark(self) -> None:
        """Mark or unmark the archive under the cursor, to restore several rules in one commit."""
        event = self._under_cursor()
        if event is None:
            return
        if not archived_to(event):
            self.notify("Only an archived memory can be marked for restore", severity="warning")
            return
        self.marked ^= {event.commit}
        row = self.query_one(DataTable).cursor_row
        self.refresh_table()
        self.query_one(DataTable).move_cursor(row=row, animate=False)

    def action_restore(self) -> None:
        """Restore the marked rules (one commit naming each), else the one under the cursor."""
        marked = [e for e in self.events if e.commit in self.marked]
        if marked:
            names = sorted({name for e in marked for name in archived_to(e)})
            store = cast(Host, self.app).store_path
            self.marked.clear()
            self._decide(
                "Restore", lambda allow, today: ops.restore_many(store, names, allow_secret=allow, today=today)
            )
            return
        event = self._under_cursor()
        if event is not None:
            self.restore(event)

    def action_redo(self) -> None:
        """Apply again what the last undo reverted."""
        store = cast(Host, self.app).store_path
        self._decide("Redo", lambda allow, today: ops.redo(store, today=today))

    @on(WorkspaceChanged)
    def _store_changed(self, message: WorkspaceChanged) -> None:
        message.stop()
        self._load()

    def action_open(self) -> None:
        """Open the decision under the cursor."""
        table = self.query_one(DataTable)
        shown = self.shown_events()
        if 0 <= table.cursor_row < len(shown):
            self._detail(shown[table.cursor_row])

    def action_help(self) -> None:
        """This screen's keys."""
        self.app.push_screen(HelpScreen("Keys · history", help_text(self.BINDINGS, self.HELP_NOTES)))

    def action_leave(self) -> None:
        """Back to the panes."""
        self.app.pop_screen()

    def palette_commands(self) -> list[tuple[str, Callable[[], None], str]]:
        """This screen's actions, for the command palette."""
        return [
            ("history: Revoked rules only / everything", self.action_toggle_revoked, "Toggle the revoked-rules view"),
            ("history: Filter", self.action_filter, "Filter by memory, reason, action or author"),
            ("history: Open the selected decision", self.action_open, "The rule as it was, and the commit"),
            ("history: Restore the selected rule", self.action_restore, "Bring an archived memory back (one commit)"),
            ("history: Redo", self.action_redo, "Apply again what the last undo reverted"),
            ("history: Help", self.action_help, "This screen's keys"),
            ("history: Back", self.action_leave, "Back to the panes"),
        ]


def _short(path: str) -> str:
    return path.split("/", 1)[1] if path.startswith(("memory/", "memory.archive/")) else path
