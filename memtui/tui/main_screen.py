"""The main screen: four panes by memory type and the preview; the filter, the sort, marks and single-key decisions.

The screen owns what it shows; the app owns the store. A decision is asked for with `Decide` (the app runs it and
answers with an `Outcome`), and the app calls `store_changed` whenever it has read the store again.

Longer than 400 lines on purpose: each of the screen's decisions (archive, merge, edit, $EDITOR, verify, fix
date, undo, redo) builds its dialog and operation from the selection and the marks kept here; moving them to a
mixin would only make them reach back into this class. The preview lives in `tui/preview.py`, the panes and
their order in `tui/widgets.py`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Protocol, cast

from textual import events, on, work
from textual.app import ComposeResult, ScreenStackError, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from memtui import ops
from memtui.analysis.wikilinks import links_left
from memtui.audit.history import DUPLICATE_PREFIX
from memtui.core.model import Finding, Memory
from memtui.review import Card, successor_named, tally
from memtui.tui import render
from memtui.tui.decisions import Operation, Outcome, edited_in_editor, follow_changed, keep_final_newline
from memtui.tui.dialogs import (
    HELP,
    ArchiveDialog,
    EditDialog,
    HelpScreen,
    MergeDialog,
    MergeRequest,
    conflict_reason,
    fix_date_dialog,
)
from memtui.tui.messages import Decide
from memtui.tui.preview import Preview
from memtui.tui.review_cursor import ReviewSession
from memtui.tui.widgets import GROUPS, KeyLine, MemoryPane, footer_width, sorter
from memtui.workspace import Workspace

EditorRunner = Callable[[Path], None]


class MainHost(Protocol):
    """What the main screen reads from the app that hosts it."""

    ws: Workspace | None
    cards: list[Card]
    store_path: Path
    load_error: str
    editor_runner: EditorRunner
    review_session: ReviewSession | None

    def reload(self, reason: str = "reload") -> None:
        """Read the store again."""

    def action_init_store(self) -> None:
        """Put the store under git."""


class MainScreen(Screen[None]):
    """The panes, the preview and the keys that act on the selected (or marked) memories."""

    BINDINGS = [
        Binding("question_mark", "help", "Help", id="main.help"),
        Binding("slash", "filter", "Filter", id="main.filter"),
        Binding("a", "archive", "Archive", id="memory.archive"),
        Binding("m", "merge", "Merge", id="memory.merge"),
        Binding("space", "mark", "Mark", id="memory.mark"),
        Binding("e", "edit", "Edit", id="memory.edit"),
        Binding("E", "edit_external", "$EDITOR", id="memory.edit_external", show=False),
        Binding("v", "verify", "Verify", id="memory.verify"),
        Binding("f", "fix_date", "Fix date", id="memory.fix_date"),
        Binding("u", "undo", "Undo", id="store.undo"),
        Binding("U", "redo", "Redo", id="store.redo"),
        Binding("r", "review", "Review", id="view.review"),
        Binding("H", "history", "History", id="view.history"),
        Binding("1", "focus_pane('user')", "User", show=False, id="focus.user"),
        Binding("2", "focus_pane('feedback')", "Feedback", show=False, id="focus.feedback"),
        Binding("3", "focus_pane('project')", "Project", show=False, id="focus.project"),
        Binding("4", "focus_pane('reference')", "Reference", show=False, id="focus.reference"),
        Binding("5", "focus_pane('other')", "Other", show=False, id="focus.other"),
        Binding("0", "focus_preview", "Preview", show=False, id="focus.preview"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="store.reload"),
        Binding("s", "cycle_sort", "Sort", id="view.sort"),
        Binding("n", "next_finding(1)", "Next finding", id="view.next_finding"),
        Binding("N", "next_finding(-1)", "Previous finding", show=False, id="view.previous_finding"),
    ]

    WIDE = 120
    """Wider than this, each pane shows an age column and the description."""
    SHORT = 32
    """Shorter than this, one pane shows at a time under a line of tabs (digits switch)."""
    FOOTER_SLACK = 20
    """Columns of the terminal the footer does not give to keys (the palette key sits apart at the right edge;
    measured: the main screen's 130 columns of keys lose Quit at 149 columns and are whole at 150)."""

    SORTS = ("name", "age", "freshness", "findings")
    """What `s` cycles through: name A–Z, oldest first, worst badge first, most findings first."""

    def __init__(self) -> None:
        super().__init__()
        self.marked: set[str] = set()
        """Memories marked with space."""
        self.filter_text = ""
        self.sort = "name"
        """How every pane is ordered (one of SORTS; shown in the header unless it is `name`)."""
        self._order: list[tuple[str, str]] = []
        """(group, path) of every shown memory, pane by pane, in the order shown (for n / N)."""
        self._focused_group = "feedback"
        self._told_before_compose: bool | None = None
        """Set when the app read the store before this screen composed (its `first` flag); `on_mount` draws it."""

    @property
    def host(self) -> MainHost:
        """The app, as far as this screen reads it."""
        return cast(MainHost, self.app)

    @property
    def ws(self) -> Workspace | None:
        """The store on screen."""
        return self.host.ws

    # ------------------------------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="pane-tabs")
        with Horizontal(id="body"):
            with Vertical(id="panes"):
                for group, label, digit in GROUPS:
                    yield MemoryPane(group, label, digit)
            yield Preview()
        yield Input(placeholder="filter: name, description, file or text (enter keeps, escape clears)", id="filter")
        yield Footer()
        yield KeyLine(self.shown_bindings(), id="keys")

    def shown_bindings(self) -> list[BindingType]:
        """The keys the footer or the key line names: this screen's and the app's (quit)."""
        return [*self.BINDINGS, *self.app.BINDINGS]

    @on(MemoryPane.Mounted)
    def _pane_mounted(self, event: MemoryPane.Mounted) -> None:
        """A store read that landed before every pane was mounted is drawn once the last one is."""
        event.stop()
        if self._told_before_compose is not None and len(self.query(MemoryPane)) == len(GROUPS):
            first, self._told_before_compose = self._told_before_compose, None
            self.store_changed(first=first)

    def on_mount(self) -> None:
        self.query_one("#filter").display = False
        self._set_current(self._focused_group)
        self._fit(self.app.size.width, self.app.size.height)
        self.update_header()
        if self._told_before_compose is not None:
            first, self._told_before_compose = self._told_before_compose, None
            self.store_changed(first=first)

    def on_screen_resume(self) -> None:
        # back from the review: the cards it decided since the header was drawn are no longer to review
        self.update_header()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Lay the screen out for the terminal: tabs when short, a compact key line when narrow, the age and
        description columns when wide."""
        self.set_class(height < self.SHORT, "-short")
        # the footer only when every key fits on its one line; else the key line, which wraps between keys
        self.set_class(footer_width(self.shown_bindings()) + self.FOOTER_SLACK > width, "-narrow")
        wide = width > self.WIDE
        self.set_class(wide, "-wide")
        # a wide screen gives the panes 60% (memtui.tcss); a row there is border, badge, flags, name, age,
        # description, each cell padded by one column on both sides, and the scrollbar
        free = int(width * 0.6) - 2 - 8 - 6 - 5 - 2 * 5 - 2
        name = max(20, min(render.NAME_WIDTH, free * 9 // 20))
        if not wide:
            # the panes' 55% (at least 40 columns) is border, badge and flags padded on both sides, the name padded on
            # its left (its column runs past the pane's edge), and the scrollbar
            name = max(40, int(width * 0.55)) - 2 - 8 - 6 - 2 * 2 - 1 - 2
        changed = [pane.set_widths(name, free - name if wide else 0) for pane in self.query(MemoryPane)]
        if any(changed):
            self._fill_panes()

    def _set_current(self, group: str) -> None:
        """The pane keys act on; on a short terminal the only one shown."""
        self._focused_group = group
        for pane in self.query(MemoryPane):
            pane.set_class(pane.group == group, "-current")
        self._update_tabs()

    def _update_tabs(self) -> None:
        parts: list[Content] = []
        for pane in self.query(MemoryPane):
            count = f"{pane.row_count}/{pane.total}" if pane.row_count != pane.total else f"{pane.total}"
            text = f" {pane.digit} {pane.label} ({count}) "
            parts.append(Content.styled(text, "reverse bold") if pane.group == self._focused_group else Content(text))
        self.query_one("#pane-tabs", Static).update(Content("").join(parts))

    def store_changed(self, *, first: bool = False) -> None:
        """The app read the store again: redraw the panes, the header and the preview."""
        if len(self.query(MemoryPane)) < len(GROUPS):
            # The default screen composes in its own task and each container mounts its children in its own turn
            # after that, so a fast read can finish while the header is there and the panes are not (seen under
            # load: the redraw's query for a pane failed and ended the app). Drawn when the last one is mounted.
            self._told_before_compose = first or bool(self._told_before_compose)
            return
        ws = self.ws
        if ws is None:
            self.update_header()
            return
        self.marked &= set(ws.store.by_path)
        with self.app.batch_update():
            self._fill_panes()
            self.update_header()
        if first:
            self._focus_first_pane()
        self._show_preview()

    # ------------------------------------------------------------------------------------------ panes

    def _visible(self, memory: Memory) -> bool:
        if memory.in_archive:
            return False
        if not self.filter_text:
            return True
        needle = self.filter_text.casefold()
        hay = f"{memory.name}\n{memory.description}\n{memory.path}\n{memory.body}".casefold()
        return needle in hay

    def _fill_panes(self, *, from_top: bool = False) -> None:
        """Draw every pane; a selected memory that left its pane leaves the cursor in its place (archived: the next
        one, or the one before when it was the last), or on the first row when `from_top` (a new filter)."""
        ws = self.ws
        if ws is None:
            return
        groups: dict[str, list[Memory]] = {g: [] for g, _, _ in GROUPS}
        totals: dict[str, int] = {g: 0 for g, _, _ in GROUPS}
        for m in ws.store.memories:
            if m.in_archive:
                continue
            group = m.type if m.type and not m.is_malformed else "other"
            totals[group] += 1
            if self._visible(m):
                groups[group].append(m)
        key = sorter(self.sort, ws)
        order: list[tuple[str, str]] = []
        for group, _, _ in GROUPS:
            pane = self.query_one(f"#pane-{group}", MemoryPane)
            keep = pane.selected_key()
            shown = sorted(groups[group], key=key)
            order += [(group, m.path) for m in shown]
            rows = [
                (
                    m.path,
                    render.row(m, ws, m.path in self.marked, name=pane.name_width, description=pane.description_width),
                )
                for m in shown
            ]
            pane.fill(rows, totals[group], keep, None if from_top else pane.cursor_row)
        self._order = order
        self._update_tabs()

    def update_header(self) -> None:
        """What the store holds, what is left to review, the filter, the sort, the marks and the index budget."""
        if not self.query("#header"):
            return  # not composed yet; on_mount draws it
        ws = self.ws
        load_error = self.host.load_error
        if ws is None:
            text = f"memtui · {load_error}" if load_error else f"memtui · reading {self.host.store_path}"
            self.query_one("#header", Static).update(render.plain(text))
            return
        if load_error:
            state = render.styled(load_error + " (ctrl+p → store: Reload)", "flag-contradiction")
        elif ws.report is None:
            state = Content("analysing…")
        else:
            session = self.host.review_session
            if session is None or session.finished:
                state = Content(_count_text(self.host.cards, ()))
            else:  # the cards the review under way decided are not to review again: its header and this one agree
                state = Content(_count_text(session.holding_decided(self.host.cards), session.decided()))
        # what the person set (marks, sort, filter) comes before what the store says: a narrow terminal cuts the end
        parts = [Content(f"memtui · {ws.store.count_text()}")]
        if self.marked:
            parts.append(render.styled(f" · {len(self.marked)} marked", "badge-aging"))
        if self.sort != "name":
            parts.append(Content(f" · sort: {self.sort}"))
        if self.filter_text:
            parts.append(render.plain(f" · filter: {self.filter_text}"))
        parts += [Content(" · "), state, Content(" · "), render.plain(_short(ws.store.root))]
        parts += [Content("\n"), render.budget_line(ws)]
        self.query_one("#header", Static).update(Content("").join(parts))

    def _focus_first_pane(self) -> None:
        for group, _, _ in GROUPS:
            pane = self.query_one(f"#pane-{group}", MemoryPane)
            if pane.row_count:
                self._set_current(group)
                self.call_after_refresh(pane.focus)
                return

    def current_pane(self) -> MemoryPane:
        """The pane that last had focus."""
        return self.query_one(f"#pane-{self._focused_group}", MemoryPane)

    def selected(self) -> Memory | None:
        """The memory under the cursor of the current pane."""
        if self.ws is None:
            return None
        key = self.current_pane().selected_key()
        return self.ws.store.get(key) if key else None

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        pane = event.data_table
        if isinstance(pane, MemoryPane):
            pane.update_subtitle()
            if pane.has_focus:
                self._set_current(pane.group)
            if pane.group == self._focused_group:  # focused, or the filter is being typed
                self._show_preview()

    def on_descendant_focus(self, event: object) -> None:
        try:
            focused = self.focused
        except ScreenStackError:  # the app is closing
            return
        if isinstance(focused, MemoryPane):
            self._set_current(focused.group)
            self._show_preview()

    def _show_preview(self) -> None:
        self.query_one(Preview).show(self.selected(), self.ws)

    # ------------------------------------------------------------------------------------------ navigation

    def action_focus_pane(self, group: str) -> None:
        """Focus a type pane by its digit."""
        pane = self.query_one(f"#pane-{group}", MemoryPane)
        self._set_current(group)  # shown first: on a short terminal a hidden pane cannot take focus
        if pane.focusable:
            # now, not a turn later as focus() does: a key typed right after the digit (`2G`) is already queued
            # and went to the pane focused before
            self.set_focus(pane)
        else:
            pane.focus()  # shown once its styles are applied
        self._show_preview()

    def action_focus_preview(self) -> None:
        """Focus the preview to scroll it."""
        self.query_one(Preview).focus()

    @on(MemoryPane.RowSelected)
    def _open_in_preview(self, event: MemoryPane.RowSelected) -> None:
        """Enter on a memory opens it: the preview takes the focus to be read and scrolled (escape comes back)."""
        event.stop()
        self.action_focus_preview()

    def action_cycle_sort(self) -> None:
        """Order every pane by the next of name, age, freshness and finding count."""
        self.sort = self.SORTS[(self.SORTS.index(self.sort) + 1) % len(self.SORTS)]
        self._fill_panes()
        self.update_header()
        self.notify(
            f"Sorted by {self.sort}"
            + (
                " (findings appear after the analysis)"
                if self.sort == "findings" and self.ws and not self.ws.analysed
                else ""
            ),
            timeout=2,
        )

    def action_next_finding(self, step: int) -> None:
        """Move to the next (1) or previous (-1) memory with a finding, across panes, wrapping around."""
        ws = self.ws
        if ws is None or not ws.analysed:
            self.notify("Still analysing the store; try again in a moment", severity="warning")
            return
        if not self._order:
            return
        here = (self._focused_group, self.current_pane().selected_key() or "")
        start = self._order.index(here) if here in self._order else (-1 if step > 0 else 0)
        count = len(self._order)
        for i in range(1, count + 1):
            group, path = self._order[(start + step * i) % count]
            if ws.findings_for(path):
                pane = self.query_one(f"#pane-{group}", MemoryPane)
                try:
                    row = pane.get_row_index(path)
                except Exception:  # its row is still being added (big panes fill over a few frames)
                    return
                self._set_current(group)
                pane.focus()
                pane.move_cursor(row=row, animate=False)
                return
        self.notify("No memory on screen has a finding", timeout=3)

    def action_filter(self) -> None:
        """Filter every pane by name, description, file name and text."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._apply_filter(event.value)

    @work(exclusive=True, group="filter", exit_on_error=False, description="Filtering")
    async def _apply_filter(self, text: str) -> None:
        await asyncio.sleep(0.06)  # typing fast filters once
        self.filter_text = text.strip()
        self._fill_panes(from_top=True)
        self.update_header()
        if not self.current_pane().row_count:  # the preview follows the first pane that has a match
            shown = next((p for p in self.query(MemoryPane) if p.row_count), None)
            if shown is not None:
                self._set_current(shown.group)
        self._show_preview()

    @on(Input.Submitted, "#filter")
    def _filter_kept(self) -> None:
        self.query_one("#filter").display = False
        self.current_pane().focus()

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        box = self.query_one("#filter", Input)
        if key == "escape" and self.query_one(Preview).has_focus:
            self.current_pane().focus()
            getattr(event, "stop", lambda: None)()
            return
        if key == "escape" and (box.has_focus or (self.filter_text and isinstance(self.focused, MemoryPane))):
            # in the box, or a filter kept with enter: escape clears it either way
            box.value = ""
            self.filter_text = ""
            box.display = False
            self._fill_panes()
            self.update_header()
            self.current_pane().focus()
            getattr(event, "stop", lambda: None)()

    # ------------------------------------------------------------------------------------------ decisions

    def _require(self, *, writable: bool = True) -> Memory | None:
        memory = self.selected()
        if memory is None:
            self.notify("No memory selected", severity="warning")
            return None
        if writable and memory.is_malformed:
            self.notify(
                f"{memory.path} could not be parsed ({memory.error}); it is read-only here — "
                "fix it by hand with E ($EDITOR), or archive it",
                severity="warning",
            )
            return None
        return memory

    def decide(
        self,
        label: str,
        operation: Operation,
        on_outcome: Callable[[Outcome], None] | None = None,
        *,
        typed: str | None = None,
        path: str | None = None,
        base: str | None = None,
        in_dialog: bool = False,
    ) -> None:
        """Ask the app for a decision; `on_outcome` hears what came of it once the store shows it (a dialog
        that stays open says a refusal itself: `in_dialog`)."""
        self.app.post_message(
            Decide(label, operation, on_outcome, typed=typed, path=path, base=base, in_dialog=in_dialog)
        )

    def _marked_memories(self) -> list[Memory]:
        ws = self.ws
        if ws is None:
            return []
        return [m for p in sorted(self.marked) if (m := ws.store.get(p)) is not None]

    def _unmark_when_committed(self, outcome: Outcome) -> None:
        if outcome.committed:
            self.marked.clear()
            self._fill_panes()
            self.update_header()

    def action_archive(self) -> None:
        """Archive the marked memories (one reason, one commit naming each), else the selected one (the reason
        pre-filled from its contradiction or duplicate)."""
        marked = self._marked_memories()
        if marked:
            hashes = {m.path: m.content_hash for m in marked}
            store = self.host.store_path

            def archive_all(text: str, reply: Callable[[Outcome], None]) -> None:
                self.decide(
                    "Archive",
                    lambda allow, today: ops.archive_many(
                        store, list(hashes), reason=text, expected_hashes=hashes, allow_secret=allow, today=today
                    ),
                    self._answering(reply, hashes, self._unmark_when_committed),
                    in_dialog=True,
                )

            linked = self._linked([m.path for m in marked])
            self.app.push_screen(ArchiveDialog(_several(marked), "", archive_all, count=len(marked), linked=linked))
            return
        memory = self._require(writable=False)
        ws = self.ws
        if memory is None or ws is None:
            return
        reason, successor = archive_reason(ws, memory)
        expected = {memory.path: memory.content_hash}
        store = self.host.store_path

        def submit(text: str, reply: Callable[[Outcome], None]) -> None:
            succ = successor if successor and text == reason else successor_named(ws.store, text, memory.path)
            self.decide(
                "Archive",
                lambda allow, today: ops.archive(
                    store,
                    memory.path,
                    reason=text,
                    superseded_by=succ,
                    expected_hash=expected[memory.path],
                    allow_secret=allow,
                    today=today,
                ),
                self._answering(reply, expected),
                in_dialog=True,
            )

        self.app.push_screen(ArchiveDialog(memory.title, reason, submit, linked=self._linked([memory.path])))

    def _linked(self, paths: list[str]) -> list[str]:
        """What still links to these memories, said in the archive dialog before they go."""
        return links_left(self.ws.store, paths) if self.ws is not None else []

    def action_mark(self) -> None:
        """Mark or unmark the selected memory (marks feed merge)."""
        memory = self.selected()
        if memory is None:
            self.notify("No memory selected", severity="warning")
            return
        self.marked ^= {memory.path}
        self._fill_panes()
        self.update_header()

    def action_merge(self) -> None:
        """Merge the marked memories, or the selected one with its duplicate partner."""
        ws = self.ws
        if ws is None:
            return
        paths = sorted(self.marked)
        if len(paths) < 2:
            memory = self._require()
            if memory is None:
                return
            partners = ws.partners(memory, "duplicate") or ws.partners(memory, "contradiction")
            if not partners:
                self.notify(
                    "Mark two or more memories with space, or select one that has a duplicate", severity="warning"
                )
                return
            paths = [memory.path, partners[0][1]]
        self.open_merge(paths)

    def open_merge(self, paths: list[str], on_outcome: Callable[[Outcome], None] | None = None) -> bool:
        """The merge dialog for these memories; the result is merged through ops. False when it cannot open."""
        ws = self.ws
        if ws is None:
            return False
        memories = [m for p in paths if (m := ws.store.get(p)) is not None]
        if len(memories) < 2 or any(m.is_malformed for m in memories):
            self.notify("Merging needs two or more readable memories", severity="warning")
            return False
        base = max(memories, key=lambda m: (ws.freshness[m.path].since or dt.date.min, m.mtime))
        hashes = {m.path: m.content_hash for m in memories}
        store = self.host.store_path

        def merged(outcome: Outcome) -> None:
            self._unmark_when_committed(outcome)
            if on_outcome is not None:
                on_outcome(outcome)

        def submit(request: MergeRequest, reply: Callable[[Outcome], None]) -> None:
            self.decide(
                "Merge",
                request.operation(store, [m.path for m in memories], hashes),
                self._answering(reply, hashes, merged),
                in_dialog=True,
            )

        reason = None  # the dialog's own: "duplicates of <into>"
        chosen = {m.path for m in memories}
        duplicated = {m.path for m in memories for _, other in ws.partners(m, "duplicate") if other in chosen}
        conflicts = [f for f, other in ws.partners(memories[0], "contradiction") if other in chosen]
        if len(memories) == 2 and conflicts and not duplicated:
            reason = conflict_reason(*conflicts[0].paths[:2])
        elif duplicated != chosen:
            reason = ""  # memtui never said they are duplicates: history must not say it for the person
        self.app.push_screen(MergeDialog(memories, base.path, reason, submit))
        return True

    def _answering(
        self,
        reply: Callable[[Outcome], None],
        hashes: dict[str, str],
        then: Callable[[Outcome], None] | None = None,
    ) -> Callable[[Outcome], None]:
        """Who hears a deciding dialog's outcome: the dialog first (it closes, or says why not), then `then`;
        `hashes` follow a file that changed on disk (`follow_changed`)."""

        def answered(outcome: Outcome) -> None:
            follow_changed(hashes, outcome)
            reply(outcome)
            if then is not None:
                then(outcome)

        return answered

    def action_edit(self) -> None:
        """Edit the selected memory in the app."""
        memory = self._require()
        if memory is None:
            return

        def done(text: str | None) -> None:
            if text is not None and text != memory.text:
                self._save_edit(memory, keep_final_newline(memory.text, text))

        self.app.push_screen(EditDialog(memory.title, memory.text), done)

    def action_edit_external(self) -> None:
        """Edit the selected memory in $EDITOR (a malformed one too: fixing it by hand is what it needs)."""
        memory = self._require(writable=False)
        if memory is None:
            return
        try:
            text = edited_in_editor(self.host.editor_runner, memory.text)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor; use e to edit here", severity="warning")
            return
        if text == memory.text:
            self.notify("No change")
            return
        self._save_edit(memory, text)

    def _save_edit(self, memory: Memory, text: str) -> None:
        """Save the person's text of `memory` as an edit, expecting the version they started from (a refusal keeps
        the text and offers it again, joined with the change on disk where they do not touch)."""
        store, expected = self.host.store_path, memory.content_hash
        self.decide(
            "Edit",
            lambda allow, today: ops.edit(
                store, memory.path, text, expected_hash=expected, allow_secret=allow, today=today
            ),
            typed=text,
            path=memory.path,
            base=memory.text,
        )

    def action_verify(self) -> None:
        """Mark the marked memories (one commit naming each), else the selected one, as still true."""
        marked = self._marked_memories()
        if marked:
            broken = [m.path for m in marked if m.is_malformed]
            if broken:
                self.notify(
                    f"{', '.join(broken)} could not be parsed; unmark it to verify the others", severity="warning"
                )
                return
            hashes = {m.path: m.content_hash for m in marked}
            store = self.host.store_path
            self.decide(
                "Verify",
                lambda allow, today: ops.verify_many(
                    store, list(hashes), expected_hashes=hashes, allow_secret=allow, today=today
                ),
                self._unmark_when_committed,
            )
            return
        memory = self._require()
        if memory is not None:
            expected = memory.content_hash
            store = self.host.store_path
            self.decide(
                "Verify",
                lambda allow, today: ops.verify(
                    store, memory.path, expected_hash=expected, allow_secret=allow, today=today
                ),
            )

    def action_fix_date(self) -> None:
        """Show the selected memory's relative date and the date it meant; write it only when the person agrees."""
        memory = self._require()
        if memory is None or self.ws is None:
            return
        if not self.ws.analysed:
            self.notify("Still analysing the store; try again in a moment", severity="warning")
            return
        dated = [f for f in self.ws.findings_for(memory.path) if f.kind == "relative-date"]
        if not dated:
            self.notify("No relative date in this memory", severity="warning")
            return
        self.ask_fix_date(memory, dated[0])

    def ask_fix_date(
        self, memory: Memory, finding: Finding, on_outcome: Callable[[Outcome], None] | None = None
    ) -> None:
        """The fix-date dialog: the line before and after, the proposed date (editable), enter writes it."""
        details = finding.details or {}
        phrase = str(details.get("phrase") or "")
        expected = memory.content_hash
        store = self.host.store_path
        today = getattr(self.app, "today", None)
        repo = self.ws.repo if self.ws is not None else None
        # every line the fix writes, to show them all (the description often says the phrase too), read from git
        # history by the dialog's worker, off the UI thread: read here, a long history froze the screen
        dialog = fix_date_dialog(
            memory,
            details,
            finding.line,
            preview=lambda: ops.fix_date_preview(store, memory.path, phrase=phrase or None, today=today, repo=repo),
        )

        def done(date: str | None) -> None:
            plan = dialog.plan  # the lines the person was shown: the dialog writes no date before it has them
            if date is None or plan is None:
                return
            self.decide(
                "Fix date",
                lambda allow, today: ops.fix_date(
                    store,
                    memory.path,
                    phrase=phrase or None,
                    date=date,
                    lines=plan.numbers,
                    expected_hash=expected,
                    allow_secret=allow,
                    today=today,
                ),
                on_outcome,
            )

        self.app.push_screen(dialog, done)

    def action_undo(self) -> None:
        """Undo the last memtui decision."""
        store = self.host.store_path
        self.decide("Undo", lambda allow, today: ops.undo(store, today=today))

    def action_redo(self) -> None:
        """Apply again the decision the last undo reverted."""
        store = self.host.store_path
        self.decide("Redo", lambda allow, today: ops.redo(store, today=today))

    def action_reload(self) -> None:
        """Read the store from disk again."""
        self.host.load_error = ""
        self.host.reload("manual")

    def action_review(self) -> None:
        """Open the review queue."""
        from memtui.tui.review import ReviewScreen

        if self.host.load_error:
            self.notify(
                f"{self.host.load_error}\nFix that and reload (ctrl+p → store: Reload) to review.",
                severity="error",
                timeout=10,
            )
            return
        ws = self.ws
        if ws is None:
            self.notify("Still reading the store; try again in a moment", severity="warning")
            return
        # while the analysis runs the review says so, and keys typed meanwhile wait for its first card
        self.app.push_screen(ReviewScreen(ws, self.host.cards, self.host.store_path))

    def action_history(self) -> None:
        """Open the history of decisions."""
        from memtui.tui.history import HistoryScreen

        ws = self.ws
        if ws is None or ws.repo is None:
            self.notify("This store is not in git: there is no history yet", severity="warning")
            return
        repo = ws.own_repo()  # the history screen's threads read through a handle of their own
        if repo is not None:
            self.app.push_screen(HistoryScreen(repo))

    def action_help(self) -> None:
        """Show the main screen's keys."""
        self.app.push_screen(HelpScreen("Keys · main screen", HELP))

    def palette_commands(self) -> list[tuple[str, Callable[[], None], str]]:
        """The main screen's actions, for the command palette ("Put under git" only for a store not in git yet)."""
        in_git = self.ws is not None and self.ws.repo is not None
        return [
            ("memory: Archive", self.action_archive, "Archive the marked (or selected) memories with a reason"),
            ("memory: Merge", self.action_merge, "Merge marked memories (or the selected one with its duplicate)"),
            ("memory: Mark", self.action_mark, "Mark or unmark the selected memory"),
            ("memory: Edit", self.action_edit, "Edit the selected memory here"),
            ("memory: Edit in $EDITOR", self.action_edit_external, "Edit the selected memory in your editor"),
            ("memory: Verify", self.action_verify, "Stamp last_verified on the marked (or selected): still true"),
            (
                "memory: Fix relative date",
                self.action_fix_date,
                "Replace 'tomorrow' with the date it meant (asks first)",
            ),
            ("store: Undo last decision", self.action_undo, "Revert the newest memtui commit"),
            ("store: Redo", self.action_redo, "Apply again what the last undo reverted"),
            ("store: Reload", self.action_reload, "Read the store from disk again"),
            *(
                []
                if in_git
                else [("store: Put under git", self.host.action_init_store, "memtui init: a repository for this store")]
            ),
            ("view: Review queue", self.action_review, "Everything that needs a decision"),
            ("view: History", self.action_history, "memtui's decisions, revoked rules"),
            ("view: Filter", self.action_filter, "Filter every pane"),
            ("view: Sort", self.action_cycle_sort, "Order the panes by name, age, freshness or finding count"),
            ("view: Next finding", lambda: self.action_next_finding(1), "The next memory with a finding"),
            ("view: Previous finding", lambda: self.action_next_finding(-1), "The previous memory with a finding"),
            ("view: Help", self.action_help, "The keys"),
        ]


def archive_reason(ws: Workspace, memory: Memory) -> tuple[str, str | None]:
    """The pre-filled reason and successor for archiving a memory: the newer side of a contradiction
    supersedes it; a duplicate is recorded as merged away into its twin (`duplicate of …`), not revoked."""
    for f, other in ws.partners(memory, "contradiction"):
        if f.paths[0] == memory.path:  # the other one is newer
            partner = ws.store.get(other)
            return f"superseded by {partner.title if partner else other}", other
    for _, other in ws.partners(memory, "duplicate"):
        partner = ws.store.get(other)
        return f"{DUPLICATE_PREFIX}{partner.title if partner else other}", other
    return "", None


def _several(memories: list[Memory]) -> str:
    names = ", ".join(m.title for m in memories[:3])
    return f"{len(memories)} marked memories ({names}{', …' if len(memories) > 3 else ''})"


def _count_text(cards: list[Card], decided: Collection[Card]) -> str:
    counts = tally(cards, decided)  # the review's own numbers, so both headers agree
    findings, new = counts.findings, counts.new_writes
    text = f"{findings} finding{'s' if findings != 1 else ''} to review"
    return text + (f" · {new} new write{'s' if new != 1 else ''}" if new else "")


def _short(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text
