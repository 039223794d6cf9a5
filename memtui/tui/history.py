"""The history of decisions, newest first; revoked rules on a toggle; enter shows a rule as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from memtui import ops
from memtui.audit.history import is_duplicate_archive, revoked_events, undone_commits
from memtui.audit.repo import Event, StoreRepo
from memtui.tui import render
from memtui.tui.decisions import Operation, Outcome
from memtui.tui.dialogs import ConfirmDialog, HelpScreen, help_text
from memtui.tui.messages import Decide, Host, ThreadSaid, WorkspaceChanged
from memtui.tui.render import cut, cut_middle
from memtui.tui.widgets import ItemLine

COLUMNS = (("date", 10), ("action", 20), ("memory", 28), ("reason", 36), ("replaced by", 22), ("author", 10))
"""The columns at their full widths, which fit 140 columns with the cell padding and the scrollbar; longer text is
cut with an ellipsis (a memory's name in the middle). `fit_columns` narrows them to the terminal."""
NARROWEST = {"date": 10, "action": 16, "memory": 18, "reason": 12, "replaced by": 12, "author": 10}
"""The width under which a column is dropped rather than narrowed further (`action` keeps `archive (undone)`)."""
DROPPED = ("author", "replaced by", "reason")
"""The columns a narrow terminal drops, first to last: the author first, as soon as the full widths do not fit (the
decision's title says who, `enter`); the others only when even their narrowest widths do not (80 columns keeps
them)."""
GUTTER = 2
"""Columns each cell's padding takes (one on each side)."""
SCROLLBAR = 2
"""Columns the vertical scrollbar takes (kept free, so no row is ever scrolled sideways)."""


def fit_columns(width: int) -> tuple[tuple[str, int], ...]:
    """The history's columns for a table `width` columns wide: the full widths when they fit (the reason gets what
    is left over), else without the author and each column narrowed in proportion to what it can spare down to its
    narrowest, and when even that does not fit without "replaced by", then the reason (the line under the list
    shows the selected decision whole)."""

    def room(columns: list[tuple[str, int]]) -> int:
        return width - SCROLLBAR - GUTTER * len(columns)

    columns = list(COLUMNS)
    if sum(w for _, w in columns) > room(columns):
        columns = [c for c in columns if c[0] != "author"]
    for label in DROPPED[1:]:
        if sum(NARROWEST[name] for name, _ in columns) <= room(columns):
            break
        columns = [c for c in columns if c[0] != label]
    widths = dict(columns)
    over = sum(widths.values()) - room(columns)
    if over < 0:
        widths["reason" if "reason" in widths else "memory"] -= over
    elif over > 0:
        spare = {name: w - NARROWEST[name] for name, w in widths.items()}
        total = sum(spare.values()) or 1
        for name in widths:
            narrowed = min(spare[name], over * spare[name] // total)
            widths[name] -= narrowed
            spare[name] -= narrowed
        left = sum(widths.values()) - room(columns)
        for name in ("reason", "memory", "replaced by", "action"):
            narrowed = max(0, min(left, spare.get(name, 0)))
            if name in widths:
                widths[name] -= narrowed
                left -= narrowed
    return tuple((name, widths[name]) for name, _ in columns)


class HistoryDetail(ModalScreen[str | None]):
    """A decision in full: the rule's text as it was before the commit, and the commit's diff. `R` on a retired
    rule restores it (dismissed with "restore"); on a merge it brings back the memories merged away."""

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
            yield Label(render.plain(f"{e.action} · {e.memory} · {e.date[:10]} · {e.by}"), classes="dialog-title")
            if e.action == "merge":
                into = _short(merged_into(e))
                yield Static(
                    render.styled(
                        f"R brings back the memories merged away; the merged memory {into} stays as it is (u undoes "
                        "the whole merge while it is the newest decision) · esc closes",
                        "bold",
                    )
                )
            elif archived_to(e):
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
        if not restorable(self.event):
            self.notify("Only an archived or merged-away memory can be restored", severity="warning")
            return
        self.dismiss("restore")


def archived_to(event: Event) -> list[str]:
    """The archived files an archive left, by name: what restoring it brings back. (A merge does not name them in
    its trailers: `merged_away` reads them from its commit.)"""
    if event.action not in ("archive", "merge"):
        return []
    return [PurePosixPath(p).name for p in event.trailers.get("Memtui-Archived-To", []) if p]


def restorable(event: Event) -> bool:
    """Whether `R` can bring back what this decision retired: an archive, or the memories a merge merged away."""
    return event.action == "merge" or bool(archived_to(event))


def merged_into(event: Event) -> str:
    """The memory a merge wrote (the one that stays when the memories merged away are restored)."""
    return next(iter(event.trailers.get("Memtui-Merged-Into", [])), "")


def merged_away(repo: StoreRepo, event: Event) -> list[str]:
    """The archived files a merge left, relative to the archive (read from its commit: a merge's trailers name
    the memories, not where they went): what restoring it brings back."""
    archive = repo.rel(repo.layout.archive_dir).rstrip("/") + "/"
    index = repo.rel(repo.layout.archive_index_path)
    return [
        path.removeprefix(archive)
        for status, path in repo.commit_paths(event.commit)
        if status == "A" and path.startswith(archive) and path != index
    ]


class HistoryScreen(Screen[None]):
    """memtui's events: action, memory, reason, successor, author, date."""

    BINDINGS = [
        Binding(
            "t",
            "toggle_revoked",
            "Revoked only",
            id="history.revoked",
            tooltip="Show only the rules that were retired (archived or merged away and not brought back); again: "
            "every decision.",
        ),
        Binding(
            "slash",
            "filter",
            "Filter",
            id="history.filter",
            tooltip="Type to show only the decisions whose memory, reason, action or author holds the text (enter "
            "keeps the filter, escape clears it).",
        ),
        Binding(
            "enter",
            "open",
            "Open",
            id="history.open",
            show=False,
            tooltip="Show the decision in full: the memory as it was before, and the commit.",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            id="history.mark",
            show=False,
            tooltip="Mark the archive under the cursor; R then restores every marked rule in one commit.",
        ),
        Binding(
            "R",
            "restore",
            "Restore",
            id="history.restore",
            tooltip="Bring the retired rule back into what the agent loads (its file and its index line, one "
            "commit). On a merge, bring back the memories merged away (asks first: the merged memory stays).",
        ),
        Binding("U", "redo", "Redo", id="history.redo", tooltip="Apply again what the last undo reverted."),
        Binding("question_mark", "help", "Help", id="history.help", tooltip="List every key of this screen."),
        Binding("escape,q,H", "leave", "Back", id="history.leave", tooltip="Back to the main screen."),
    ]

    HELP_NOTES = (
        "The line under the list shows the selected decision whole: its memory, its reason and what replaced it.",
        "Undone decisions are struck through and marked (undone); an undo row names what it reverted.",
        "A duplicate archived beside its twin is shown as archive (duplicate) and is not a revoked rule.",
        "A redo is shown as the decision it applied again, marked (redo).",
        "Restore is not undo: it brings retired memories back and leaves everything else as it is. To take a "
        "decision back whole (a merge's merged memory too), press u on the main screen: it undoes the newest "
        "decision, and again the one before.",
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
        self.columns: tuple[tuple[str, int], ...] = ()
        """The columns shown and their widths, fitted to the terminal (`fit_columns`)."""

    def compose(self) -> ComposeResult:
        yield ItemLine(separator=" · ", id="history-header")  # broken between its parts on a narrow terminal
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="history-reason")
        yield Input(placeholder="filter history (enter keeps, escape clears)", id="history-filter")
        yield Footer()

    def on_mount(self) -> None:
        self._fit(self.app.size.width)
        self.query_one("#history-filter").display = False
        self._load()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Lay the columns out for a terminal `width` wide; the rows are drawn again when they change."""
        columns = fit_columns(width)
        if columns == self.columns:
            return
        self.columns = columns
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for label, size in columns:
            table.add_column(label, width=size, key=label)
        if self.events:
            self.refresh_table()
            table.move_cursor(row=row, animate=False)

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
        # per memory: a batch archive of which one memory was restored still retires the others, named alone
        events = revoked_events(self.events) if self.revoked else self.events
        if self.filter_text:
            needle = self.filter_text.casefold()
            # every memory a decision names is searched; one found past the first labels the row
            events = [
                e.about([m for m in e.memories if needle in m.casefold()])
                for e in events
                if needle in f"{e.action} {' '.join(e.memories)} {e.reason} {e.superseded_by} {e.by}".casefold()
            ]
        return events

    def reason(self, e: Event) -> str:
        """Why a decision was made, as the list says it (an undo names what it reverted)."""
        if e.action != "undo":
            return e.reason
        by_commit = {x.commit: x for x in self.events}
        reverted = [by_commit.get(sha) for sha in e.trailers.get("Memtui-Reverts", [])]
        return "reverted " + ", ".join(
            f"{r.action} of {_short(r.memory)} ({r.commit[:8]})" if r else "an older decision" for r in reverted
        )

    def refresh_table(self) -> None:
        """Redraw the list."""
        table = self.query_one(DataTable)
        table.clear()
        shown = self.shown_events()
        undone = undone_commits(self.events)
        w = dict(self.columns)
        for i, e in enumerate(shown):
            action = ("archive (duplicate)" if is_duplicate_archive(e) else e.action) + (
                " (redo)" if e.reapplies else ""
            )
            colour = (
                "flag-contradiction"
                if e.action in ("archive", "merge") and not is_duplicate_archive(e)
                else "badge-unknown"
            )
            if e.commit in undone:
                action_cell = Content.assemble(
                    render.styled(cut(action, w["action"] - 9), "badge-unknown").stylize("strike"),
                    render.styled(" (undone)", "badge-unknown"),
                )
            else:
                mark = "• " if e.commit in self.marked else ""
                action_cell = render.styled(cut(mark + action, w["action"]), colour)
            table.add_row(*(self._cell(e, label, size, action_cell) for label, size in self.columns), key=str(i))
        mode = "revoked rules" if self.revoked else "all decisions"
        extra = f" · filter: {self.filter_text}" if self.filter_text else ""
        extra += f" · {len(self.marked)} marked" if self.marked else ""
        self.query_one("#history-header", ItemLine).update(
            render.plain(
                f"History · {mode} · {len(shown)} of {len(self.events)}{extra} · t toggles revoked · enter opens · R restores"
            )
        )
        self.show_reason()

    def _cell(self, e: Event, label: str, width: int, action: Content) -> Content:
        """The cell of `e` in the column `label`, cut to `width` (a memory's name in the middle, so its end shows)."""
        if label == "date":
            return Content(e.date[:10])
        if label == "action":
            return action
        if label == "memory":
            return render.plain(_memory_cell(e, width))
        if label == "reason":
            return render.plain(cut(self.reason(e), width))
        if label == "replaced by":
            return render.plain(cut_middle(_short(e.superseded_by), width))
        return render.plain(cut(e.by, width))

    def show_reason(self) -> None:
        """The selected decision whole under the list, where its columns cut it: memory, reason, successor."""
        line = self.query_one("#history-reason", Static)
        e = self._under_cursor()
        line.display = e is not None
        if e is None:
            return
        parts = [Content.styled(_short(e.memory) or e.action, "bold")]
        parts += [Content(" · "), Content.styled("why: ", "bold"), render.plain(self.reason(e) or "(none recorded)")]
        if e.superseded_by:
            parts += [Content(" · "), Content.styled("replaced by: ", "bold"), render.plain(_short(e.superseded_by))]
        line.update(Content.assemble(*parts))

    @on(DataTable.RowHighlighted, "#history-table")
    def _highlighted(self) -> None:
        self.show_reason()

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
        """Restore what an archive retired: one commit, the file and its index line as they were. A merge brings back
        the memories it merged away, once the person has read that the merged memory stays (`u` undoes a merge
        whole)."""
        if event.action == "merge":
            self._restore_merge(event)
            return
        names = archived_to(event)
        if not names:
            self.notify("Only an archived or merged-away memory can be restored", severity="warning")
            return
        store = cast(Host, self.app).store_path
        self._decide("Restore", lambda allow, today: ops.restore_many(store, names, allow_secret=allow, today=today))

    @work(thread=True, exclusive=True, group="history-restore", exit_on_error=False, description="Reading a merge")
    def _restore_merge(self, event: Event) -> None:
        names = merged_away(self.repo, event)
        self.post_message(ThreadSaid(lambda: self._ask_restore_merge(event, names)))

    def _ask_restore_merge(self, event: Event, names: list[str]) -> None:
        if not names:
            self.notify(
                f"This merge ({event.commit[:8]}) archived no memory to bring back. To take the merge back, press u "
                "on the main screen while it is the newest decision.",
                severity="warning",
                timeout=10,
            )
            return
        undone = undone_commits(self.events)
        newest = next((e for e in self.events if e.action in ops.UNDOABLE and e.commit not in undone), None)
        into = _short(merged_into(event)) or "the merged memory"
        undo = (
            "To take the whole merge back instead (the merged memory too), press u on the main screen: this merge "
            "is the newest decision, so u undoes it."
            if newest is not None and newest.commit == event.commit
            else "To take the whole merge back instead (the merged memory too), u on the main screen undoes "
            "decisions newest first: the ones made since this merge would be undone before it."
        )
        question = (
            f"Bring back the memories this merge archived: {', '.join(names)}?\n\n"
            f"{into} stays as it is now, holding the merged text: archive or edit it afterwards if it should go. "
            f"{undo}"
        )
        store = cast(Host, self.app).store_path

        def answered(yes: bool | None) -> None:
            if yes:
                self._decide(
                    "Restore", lambda allow, today: ops.restore_many(store, names, allow_secret=allow, today=today)
                )

        self.app.push_screen(ConfirmDialog(question), answered)

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
            (
                "history: Restore the selected rule",
                self.action_restore,
                "Bring an archived memory back, or the memories a merge merged away (one commit)",
            ),
            ("history: Redo", self.action_redo, "Apply again what the last undo reverted"),
            ("history: Help", self.action_help, "This screen's keys"),
            ("history: Back", self.action_leave, "Back to the panes"),
        ]


def _memory_cell(event: Event, width: int) -> str:
    """The event's first memory, cut in the middle to `width` with room kept for how many more it names ("(+2)")."""
    more = f" (+{len(event.memories) - 1})" if len(event.memories) > 1 else ""
    return cut_middle(_short(event.memory), width - len(more)) + more


def _short(path: str) -> str:
    return path.split("/", 1)[1] if path.startswith(("memory/", "memory.archive/")) else path
