"""The memtui workstation: four panes by memory type, a preview, single-key decisions, all through ops.

Every decision goes one way: a screen posts `Decide` (or the main screen calls `decide`), the app runs the
operation in a worker (`tui/decisions.run`, which never raises), reads the store again when something was
committed, offers to proceed after an explicit yes when a secret was refused, and answers with an `Outcome`.
The review never imports this module (it reads the app through `messages.Host`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult, ScreenStackError, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Footer, Input, Markdown, Static
from textual.worker import Worker, WorkerState

from memtui import ops
from memtui.core import frontmatter
from memtui.core.model import Finding, Memory
from memtui.core.settings import Settings, SettingsError, load_settings, save_theme
from memtui.review import DUPLICATE_PREFIX, Card, build_queue, finding_count, undone_commits
from memtui.tui import render
from memtui.tui.commands import MemtuiCommands
from memtui.tui.decisions import Operation, Outcome, keep_final_newline, run
from memtui.tui.dialogs import (
    HELP,
    ArchiveDialog,
    ChangedDialog,
    ConfirmDialog,
    ConfirmRisky,
    EditDialog,
    FixDateDialog,
    HelpScreen,
    MergeDialog,
    MergeRequest,
    WelcomeScreen,
)
from memtui.tui.messages import Decide, ThreadSaid, WorkspaceChanged
from memtui.tui.themes import BUILTIN_DIR, DEFAULT_THEME, default_variables, load_themes
from memtui.tui.widgets import GROUPS, MemoryPane
from memtui.workspace import Workspace, analyse, open_store, signature

EditorRunner = Callable[[Path], None]


class StoreLoaded(Message):
    """The store was read (badges known, findings maybe not yet)."""

    def __init__(
        self, ws: Workspace, reason: str, shown: threading.Event | None = None, cards: list[Card] | None = None
    ) -> None:
        super().__init__()
        self.ws = ws
        self.reason = reason
        self.shown = shown
        """Set once the panes show this store (the loader waits for it before analysing)."""
        self.cards = cards
        """The review queue, once analysed."""


class StoreFailed(Message):
    """The store could not be read, or its analysis failed."""

    def __init__(self, error: str, *, analysing: bool = False) -> None:
        super().__init__()
        self.error = error
        self.analysing = analysing


class Decided(Message):
    """A decision ran; `ws`/`cards` are the store read again after it (None when nothing changed)."""

    def __init__(
        self, request: Decide, outcome: Outcome, ws: Workspace | None, cards: list[Card] | None, allow_secret: bool
    ) -> None:
        super().__init__()
        self.request = request
        self.outcome = outcome
        self.ws = ws
        self.cards = cards
        self.allow_secret = allow_secret


class MemtuiApp(App[None]):
    """The workstation."""

    CSS_PATH = "memtui.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("slash", "filter", "Filter", id="app.filter"),
        Binding("a", "archive", "Archive", id="memory.archive"),
        Binding("m", "merge", "Merge", id="memory.merge"),
        Binding("space", "mark", "Mark", id="memory.mark", show=False),
        Binding("e", "edit", "Edit", id="memory.edit"),
        Binding("E", "edit_external", "$EDITOR", id="memory.edit_external", show=False),
        Binding("v", "verify", "Verify", id="memory.verify"),
        Binding("f", "fix_date", "Fix date", id="memory.fix_date"),
        Binding("u", "undo", "Undo", id="store.undo"),
        Binding("r", "review", "Review", id="view.review"),
        Binding("H", "history", "History", id="view.history"),
        Binding("1", "focus_pane('user')", "User", show=False, id="focus.user"),
        Binding("2", "focus_pane('feedback')", "Feedback", show=False, id="focus.feedback"),
        Binding("3", "focus_pane('project')", "Project", show=False, id="focus.project"),
        Binding("4", "focus_pane('reference')", "Reference", show=False, id="focus.reference"),
        Binding("5", "focus_pane('other')", "Other", show=False, id="focus.other"),
        Binding("0", "focus_preview", "Preview", show=False, id="focus.preview"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="store.reload"),
        Binding("s", "cycle_sort", "Sort", show=False, id="view.sort"),
        Binding("n", "next_finding(1)", "Next finding", show=False, id="view.next_finding"),
        Binding("N", "next_finding(-1)", "Previous finding", show=False, id="view.previous_finding"),
    ]

    SORTS = ("name", "age", "freshness", "findings")
    """What `s` cycles through: name A–Z, oldest first, worst badge first, most findings first."""

    def __init__(
        self,
        store_path: Path,
        *,
        today: dt.date | None = None,
        editor_runner: EditorRunner | None = None,
        watch_interval: float = 2.0,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        self.store_path = Path(store_path)
        self.today = today
        self.ws: Workspace | None = None
        """What is on screen."""
        self.cards: list[Card] = []
        """The review queue of the store on screen (empty until analysed)."""
        self.load_error: str = ""
        """Why the store could not be read or analysed, while that is so."""
        self.marked: set[str] = set()
        """Memories marked with space for a merge."""
        self.filter_text = ""
        self.sort = "name"
        """How every pane is ordered (one of SORTS; shown in the header unless it is `name`)."""
        self._order: list[tuple[str, str]] = []
        """(group, path) of every shown memory, pane by pane, in the order shown (for n / N)."""
        self.last_outcome: Outcome | None = None
        """The last decision's outcome (for the status line and tests)."""
        self.editor_runner = editor_runner or self._run_editor_suspended
        self.watch_interval = watch_interval
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self._notes_said: set[str] = set()
        self._focused_group = "feedback"
        self._theme_errors: list[str] = []
        self._welcomed = False
        """The first-run screen was shown (once per run)."""
        self._quitting = False
        """Set when the app starts to quit; background threads stop early (the app waits for them)."""
        self._settings_error = ""
        """Why the settings file could not be used (shown once the app runs; the defaults apply)."""
        try:
            self.settings = load_settings(self.store_path)
        except SettingsError as exc:
            self.settings, self._settings_error = Settings(), str(exc)
        themes, self._theme_errors = load_themes([BUILTIN_DIR, _user_theme_dir()])
        for t in themes:
            self.register_theme(t)
        wanted = theme or self.settings.theme  # --theme wins over the saved choice
        if wanted and wanted not in self.available_themes:
            self._theme_errors.append(f"theme {wanted!r} is not installed; using {DEFAULT_THEME}")
        self.theme = wanted if wanted and wanted in self.available_themes else DEFAULT_THEME

    MAIN_SCREEN_ACTIONS = frozenset(
        {
            "filter",
            "archive",
            "merge",
            "mark",
            "edit",
            "edit_external",
            "verify",
            "fix_date",
            "undo",
            "review",
            "history",
            "focus_pane",
            "focus_preview",
            "reload",
            "cycle_sort",
            "next_finding",
        }
    )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Memory actions belong to the main screen; on the review and history screens their own keys rule."""
        if action in self.MAIN_SCREEN_ACTIONS and len(self.screen_stack) > 1:
            return False
        return True

    async def action_quit(self) -> None:
        """Quit, telling background threads to stop first."""
        self._quitting = True
        await super().action_quit()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Badge and flag colours under any theme, taken from the default theme file."""
        return default_variables()

    # ------------------------------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="body"):
            with Vertical(id="panes"):
                for group, label, digit in GROUPS:
                    yield MemoryPane(group, label, digit)
            with VerticalScroll(id="preview", can_focus=True):
                yield Static(id="preview-fields")
                yield Markdown(id="preview-body")
                yield Static(id="preview-findings")
                yield Static(id="preview-history")
        yield Input(placeholder="filter: name, description, file or text (enter keeps, escape clears)", id="filter")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#preview").border_title = "[0] Preview"
        self.query_one("#filter").display = False
        self._header(Content("memtui · reading " + str(self.store_path)))
        if self._theme_errors:
            self.notify("Theme files not loaded:\n" + "\n".join(self._theme_errors), severity="error", timeout=10)
        if self._settings_error:
            self.notify(
                f"{self._settings_error}\nUsing the default settings until it is fixed.",
                title="Settings not used",
                severity="error",
                timeout=15,
            )
        self.theme_changed_signal.subscribe(self, self._theme_chosen)
        self.reload("open")
        if self.watch_interval > 0:
            self.set_interval(self.watch_interval, self._check_disk)

    def _theme_chosen(self, theme: object) -> None:
        """Save the theme the person picked (the palette), so the next start uses it; never crash on it."""
        name = getattr(theme, "name", str(theme))
        if name == self.settings.theme:
            return
        try:
            save_theme(name)
        except (SettingsError, OSError) as exc:
            self.notify(
                f"{exc}\nThe theme applies to this session only.",
                title="Theme not saved",
                severity="warning",
                timeout=10,
            )
            return
        self.settings = Settings(theme=name, periods=self.settings.periods, source=self.settings.source)

    # ------------------------------------------------------------------------------------------ loading

    def reload(self, reason: str = "reload") -> None:
        """Read the store again in the background; findings follow when the analysis finishes."""
        self._load(reason)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False, description="Reading the store")
    def _load(self, reason: str) -> None:
        try:
            sig = signature(self.store_path)  # before reading: a write during the read is noticed next poll
            ws = open_store(self.store_path, self.today, self.settings.policy())
        except Exception as exc:  # any failure reaches the screen: never a silent, endless "reading…"
            self.post_message(StoreFailed(_describe(exc)))
            return
        self._signature = sig
        shown = threading.Event()
        self.post_message(StoreLoaded(ws, reason, shown))
        # let the panes paint before the analysis takes the interpreter: the first screen comes first
        for _ in range(40):
            if shown.wait(0.05) or self._quitting:
                break
        if self._quitting:
            return  # quitting: the app waits for this thread, so it must not start the analysis
        try:
            analysed, cards = _analyse(ws)
        except Exception as exc:  # the panes stay usable; the header says what failed and what to do
            self.post_message(StoreFailed(_describe(exc), analysing=True))
            return
        self.post_message(StoreLoaded(analysed, reason + "-analysed", cards=cards))

    @on(ThreadSaid)
    def _thread_said(self, message: ThreadSaid) -> None:
        message.callback()

    @on(StoreFailed)
    def _failed(self, message: StoreFailed) -> None:
        what = "the analysis failed" if message.analysing else "the store could not be read"
        hint = "press ctrl+p → store: Reload to try again, or run `memtui check` on the store for details"
        self.load_error = f"{what}: {message.error}"
        if self.ws is None and not message.analysing and not self._welcomed:
            self._welcomed = True
            self.push_screen(WelcomeScreen(str(self.store_path), error=message.error), self._welcome_answer)
        if self.ws is not None:
            self._update_header()
        else:
            self._header(render.plain(f"memtui · {self.load_error}"))
        self.notify(f"{message.error}\n{hint}", title=what.capitalize(), severity="error", timeout=15)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Any background failure not handled where it happened reaches the screen (never a silent worker)."""
        if event.state == WorkerState.ERROR and not self._quitting:
            error = event.worker.error
            self.notify(
                f"{_describe(error) if isinstance(error, BaseException) else error}\n"
                "Try again, or reload (ctrl+p → store: Reload); run `memtui check` for details.",
                title=f"{event.worker.description or 'Background work'} failed",
                severity="error",
                timeout=15,
            )

    @on(StoreLoaded)
    def _loaded(self, message: StoreLoaded) -> None:
        first = self.ws is None
        self.ws = message.ws
        if message.ws.analysed:
            self.load_error = ""
            self.cards = message.cards or []
            self._tell_screens()
        self.marked &= set(self.ws.store.by_path)
        self._fill_panes()
        self._update_header()
        if first:
            self._focus_first_pane()
            live = [m for m in self.ws.store.memories if not m.in_archive]
            if not live and not self._welcomed:
                self._welcomed = True
                self.push_screen(
                    WelcomeScreen(str(self.store_path), empty=True, in_git=self.ws.repo is not None),
                    self._welcome_answer,
                )
            elif self.ws.repo is None:
                self._offer_init()
        if message.reason.startswith("disk") and message.reason.endswith("analysed"):
            self.notify("The store changed on disk; reloaded", timeout=3)
        self._show_preview()
        if message.shown is not None:
            self.call_after_refresh(message.shown.set)

    def _welcome_answer(self, answer: str | None) -> None:
        if answer == "quit":
            self.exit()
        elif answer == "init":
            self.action_init_store()

    def _offer_init(self) -> None:
        """A store outside git cannot record decisions: ask once to put it under git."""
        parent = self.store_path.resolve().parent

        def done(yes: bool | None) -> None:
            if yes:
                self.action_init_store()
            else:
                self.notify(
                    "Not in git: you can look, but decisions need a repository (palette: store: Put under git)",
                    severity="warning",
                    timeout=8,
                )

        self.push_screen(
            ConfirmDialog(
                f"This store is not in git, so decisions cannot be recorded or undone.\n\n"
                f"Create a repository at {parent} that versions only the store and its archive "
                f"(everything else there stays out)?"
            ),
            done,
        )

    def _check_disk(self) -> None:
        self._poll_disk()

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False, description="Watching the store")
    def _poll_disk(self) -> None:
        if self._quitting:
            return
        try:
            sig = signature(self.store_path)
        except Exception:  # a folder that vanished is noticed by the next load, which says so
            return
        if self._signature and sig != self._signature:
            self._signature = sig
            self.post_message(ThreadSaid(lambda: self.reload("disk")))

    # ------------------------------------------------------------------------------------------ panes

    def _visible(self, memory: Memory) -> bool:
        if memory.in_archive:
            return False
        if not self.filter_text:
            return True
        needle = self.filter_text.casefold()
        hay = f"{memory.name}\n{memory.description}\n{memory.path}\n{memory.body}".casefold()
        return needle in hay

    def _fill_panes(self) -> None:
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
        key = _sorter(self.sort, ws)
        order: list[tuple[str, str]] = []
        for group, _, _ in GROUPS:
            pane = self.query_one(f"#pane-{group}", MemoryPane)
            keep = pane.selected_key()
            shown = sorted(groups[group], key=key)
            order += [(group, m.path) for m in shown]
            rows = [(m.path, render.row(m, ws, m.path in self.marked)) for m in shown]
            pane.fill(rows, totals[group], keep)
        self._order = order

    def _update_header(self) -> None:
        ws = self.ws
        if ws is None:
            return
        live = [m for m in ws.store.memories if not m.in_archive]
        archived = len(ws.store.memories) - len(live)
        if self.load_error:
            state = render.styled(self.load_error + " (ctrl+p → store: Reload)", "flag-contradiction")
        elif ws.report is None:
            state = Content("analysing…")
        else:
            state = Content(_count_text(self.cards))
        parts = [
            Content(f"memtui · {len(live)} memories"),
            Content(f" ({archived} archived)" if archived else ""),
            Content(" · "),
            state,
        ]
        if self.filter_text:
            parts.append(render.plain(f" · filter: {self.filter_text}"))
        if self.sort != "name":
            parts.append(Content(f" · sort: {self.sort}"))
        parts += [Content(" · "), render.plain(_short(ws.store.root)), Content("\n"), render.budget_line(ws)]
        self._header(Content("").join(parts))

    def _header(self, content: Content) -> None:
        self.query_one("#header", Static).update(content)

    def _focus_first_pane(self) -> None:
        for group, _, _ in GROUPS:
            pane = self.query_one(f"#pane-{group}", MemoryPane)
            if pane.row_count:
                pane.focus()
                self._focused_group = group
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
                self._focused_group = pane.group
                self._show_preview()

    def on_descendant_focus(self, event: object) -> None:
        try:
            focused = self.focused
        except ScreenStackError:  # the app is closing
            return
        if isinstance(focused, MemoryPane):
            self._focused_group = focused.group
            self._show_preview()

    # ------------------------------------------------------------------------------------------ preview

    def _show_preview(self) -> None:
        self._render_preview(self.selected())

    @work(exclusive=True, group="preview", exit_on_error=False, description="Preview")
    async def _render_preview(self, memory: Memory | None) -> None:
        await asyncio.sleep(0.05)  # a newer selection cancels this one: fast scrolling renders once
        ws = self.ws
        fields = self.query_one("#preview-fields", Static)
        body = self.query_one("#preview-body", Markdown)
        findings = self.query_one("#preview-findings", Static)
        history = self.query_one("#preview-history", Static)
        if memory is None or ws is None:
            fields.update(Content("No memory selected"))
            await body.update("")
            findings.update("")
            history.update("")
            return
        fields.update(_fields(memory, ws))
        await body.update(render.clean(memory.body if not memory.is_malformed else memory.text or ""))
        found = ws.findings_for(memory.path)
        if found:
            findings.update(Content("\n").join([Content.styled("Findings", "bold"), *map(render.finding_line, found)]))
        else:
            findings.update(Content.styled("No findings" if ws.analysed else "Analysing…", "dim"))
        self._load_history(memory)

    @work(thread=True, exclusive=True, group="memory-history", exit_on_error=False, description="Reading history")
    def _load_history(self, memory: Memory) -> None:
        ws = self.ws
        events, context = ws.history_in_context(memory) if ws else ([], [])
        undone = undone_commits(context)
        lines = [Content.styled("History", "bold")]
        if ws is None or ws.repo is None:
            lines.append(Content.styled("not in git", "dim"))
        elif not events:
            lines.append(Content.styled("no memtui events yet", "dim"))
        for e in events:
            text = f"{e.date[:10]}  {e.action:<11} {e.author}"
            if e.reason:
                text += f" — {e.reason}"
            if e.commit in undone:
                text += " (undone)"
            lines.append(render.plain(text))
        content = Content("\n").join(lines)
        self.post_message(ThreadSaid(lambda: self.query_one("#preview-history", Static).update(content)))

    # ------------------------------------------------------------------------------------------ navigation

    def action_focus_pane(self, group: str) -> None:
        """Focus a type pane by its digit."""
        pane = self.query_one(f"#pane-{group}", MemoryPane)
        pane.focus()
        self._focused_group = group
        self._show_preview()

    def action_focus_preview(self) -> None:
        """Focus the preview to scroll it."""
        self.query_one("#preview").focus()

    def action_cycle_sort(self) -> None:
        """Order every pane by the next of name, age, freshness and finding count."""
        self.sort = self.SORTS[(self.SORTS.index(self.sort) + 1) % len(self.SORTS)]
        self._fill_panes()
        self._update_header()
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
                pane.focus()
                self._focused_group = group
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
        self._fill_panes()
        self._update_header()

    @on(Input.Submitted, "#filter")
    def _filter_kept(self) -> None:
        self.query_one("#filter").display = False
        self.current_pane().focus()

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        box = self.query_one("#filter", Input)
        if key == "escape" and box.has_focus:
            box.value = ""
            self.filter_text = ""
            box.display = False
            self._fill_panes()
            self._update_header()
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
                f"{memory.path} could not be parsed ({memory.error}); it is read-only — archive it or fix it by hand",
                severity="warning",
            )
            return None
        return memory

    def decide(self, label: str, operation: Operation, on_outcome: Callable[[Outcome], None] | None = None) -> None:
        """Ask for a decision; `on_outcome` hears what came of it once the store shows it."""
        self.post_message(Decide(label, operation, on_outcome))

    @on(Decide)
    def _decide(self, message: Decide) -> None:
        message.stop()
        self._run_decision(message, False)

    @work(thread=True, exclusive=False, group="ops", exit_on_error=False, description="Writing")
    def _run_decision(self, request: Decide, allow_secret: bool) -> None:
        outcome = run(request.label, request.operation, allow_secret=allow_secret)
        ws, cards = None, None
        if request.on_outcome is not None and (outcome.ok or outcome.changed_path):
            try:  # read the store again before answering: the screen's next card must show it as it is now
                ws, cards = _analyse(open_store(self.store_path, self.today, self.settings.policy()))
            except Exception as exc:
                self.post_message(StoreFailed(_describe(exc), analysing=True))
        self.post_message(Decided(request, outcome, ws, cards, allow_secret))

    @on(Decided)
    def _decided(self, message: Decided) -> None:
        outcome, request = message.outcome, message.request
        if message.ws is not None:
            self.ws = message.ws
            self.cards = message.cards or []
            self.load_error = ""
            self.marked &= set(self.ws.store.by_path)
            with self.batch_update():
                self._fill_panes()
                self._update_header()
            self._show_preview()
            self._tell_screens()
        elif outcome.ok or outcome.changed_path:
            self.reload("op")  # nobody waits on this answer: report now, the panes follow in the background
        if outcome.secret and not message.allow_secret:
            self._offer_secret(request, outcome)
            return
        self._report(outcome)
        if request.on_outcome is not None:
            request.on_outcome(outcome)

    def _offer_secret(self, request: Decide, outcome: Outcome) -> None:
        """A change refused for a secret may still go ahead, but only after the person says so explicitly."""

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_decision(request, True)
                return
            self._report(outcome)
            if request.on_outcome is not None:
                request.on_outcome(outcome)

        self.push_screen(
            ConfirmRisky(
                f"{request.label} refused: {outcome.message}\n\nThe commit would keep this secret in git history. "
                "Commit it anyway? (y: yes, commit the secret · n: no)"
            ),
            answered,
        )

    def _report(self, outcome: Outcome) -> None:
        self.last_outcome = outcome
        if outcome.changed_path is not None:
            self.push_screen(ChangedDialog(outcome.changed_path, outcome.message, outcome.current_text))
        elif outcome.status == "refused":
            self.notify(outcome.message, title=f"{outcome.label} refused", severity="error", timeout=8)
        elif outcome.status == "failed":
            self.notify(outcome.message, title=f"{outcome.label} failed", severity="error", timeout=15)
        else:
            # A standing note (e.g. an agent file withheld for a secret) is said once per session, not after every
            # decision: repeated on each one, people stop reading it.
            notes = [n for n in (outcome.result.notes if outcome.result else ()) if n not in self._notes_said]
            self._notes_said.update(notes)
            self.notify(outcome.message + ("\n" + "\n".join(notes) if notes else ""), title=outcome.label, timeout=4)

    def _tell_screens(self) -> None:
        if self.ws is None:
            return
        for screen in self.screen_stack[1:]:
            screen.post_message(WorkspaceChanged(self.ws, self.cards))

    def action_archive(self) -> None:
        """Archive the selected memory (asks for the reason, pre-filled from its contradiction or duplicate)."""
        memory = self._require(writable=False)
        if memory is None or self.ws is None:
            return
        reason, successor = archive_reason(self.ws, memory)
        expected = memory.content_hash

        def done(text: str | None) -> None:
            if text:
                succ = successor if successor and text == reason else None
                self.decide(
                    "Archive",
                    lambda allow: ops.archive(
                        self.store_path,
                        memory.path,
                        reason=text,
                        superseded_by=succ,
                        expected_hash=expected,
                        allow_secret=allow,
                    ),
                )

        self.push_screen(ArchiveDialog(memory.title, reason), done)

    def action_mark(self) -> None:
        """Mark or unmark the selected memory for a merge."""
        memory = self.selected()
        if memory is None:
            self.notify("No memory selected", severity="warning")
            return
        self.marked ^= {memory.path}
        self._fill_panes()

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

        def done(request: MergeRequest | None) -> None:
            if request is None:
                return
            self.marked.clear()
            self.decide(
                "Merge",
                lambda allow: ops.merge(
                    self.store_path,
                    [m.path for m in memories],
                    into=request.into,
                    text=request.text,
                    reason=request.reason,
                    expected_hashes=hashes,
                    allow_secret=allow,
                ),
                on_outcome,
            )

        self.push_screen(MergeDialog(memories, base.path), done)
        return True

    def action_edit(self) -> None:
        """Edit the selected memory in the app."""
        memory = self._require()
        if memory is None:
            return
        expected = memory.content_hash

        def done(text: str | None) -> None:
            if text is not None and text != memory.text:
                new = keep_final_newline(memory.text, text)
                self.decide(
                    "Edit",
                    lambda allow: ops.edit(
                        self.store_path, memory.path, new, expected_hash=expected, allow_secret=allow
                    ),
                )

        self.push_screen(EditDialog(memory.title, memory.text), done)

    def action_edit_external(self) -> None:
        """Edit the selected memory in $EDITOR (the terminal is handed over until it exits)."""
        memory = self._require()
        if memory is None:
            return
        fd, name = tempfile.mkstemp(prefix="memtui-", suffix=".md")
        tmp = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(memory.text)
            try:
                self.editor_runner(tmp)
            except SuspendNotSupported:
                self.notify("This terminal cannot hand over to an editor; use e to edit here", severity="warning")
                return
            text = tmp.read_text(encoding="utf-8")
        finally:
            tmp.unlink(missing_ok=True)
        if text != memory.text:
            expected = memory.content_hash
            self.decide(
                "Edit",
                lambda allow: ops.edit(self.store_path, memory.path, text, expected_hash=expected, allow_secret=allow),
            )
        else:
            self.notify("No change")

    def _run_editor_suspended(self, path: Path) -> None:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        with self.suspend():
            subprocess.call([*shlex.split(editor), str(path)])

    def action_verify(self) -> None:
        """Mark the selected memory as still true."""
        memory = self._require()
        if memory is not None:
            expected = memory.content_hash
            self.decide(
                "Verify",
                lambda allow: ops.verify(self.store_path, memory.path, expected_hash=expected, allow_secret=allow),
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
        """The fix-date dialog: the phrase where it stands, the proposed date (editable), enter writes it."""
        details = finding.details or {}
        phrase = str(details.get("phrase") or "")
        suggestion = str(details.get("suggestion") or "")
        context = next((line.strip() for line in memory.text.splitlines() if phrase and phrase in line), "")
        expected = memory.content_hash

        def done(date: dt.date | None) -> None:
            if date is None:
                return
            self.decide(
                "Fix date",
                lambda allow: ops.fix_date(
                    self.store_path,
                    memory.path,
                    phrase=phrase or None,
                    date=date,
                    expected_hash=expected,
                    allow_secret=allow,
                ),
                on_outcome,
            )

        self.push_screen(FixDateDialog(memory.title, phrase, context, suggestion), done)

    def action_undo(self) -> None:
        """Undo the last memtui decision."""
        self.decide("Undo", lambda allow: ops.undo(self.store_path))

    def action_init_store(self) -> None:
        """Put a store that is not in git under git."""
        self.decide("Init", lambda allow: ops.init(self.store_path))

    def action_reload(self) -> None:
        """Read the store from disk again."""
        self.load_error = ""
        self.reload("manual")

    def action_review(self) -> None:
        """Open the review queue."""
        from memtui.tui.review import ReviewScreen

        if self.load_error:
            self.notify(
                f"{self.load_error}\nFix that and reload (ctrl+p → store: Reload) to review.",
                severity="error",
                timeout=10,
            )
            return
        if self.ws is None or not self.ws.analysed:
            self.notify("Still analysing the store; try again in a moment", severity="warning")
            return
        self.push_screen(ReviewScreen(self.ws, self.cards, self.store_path))

    def action_history(self) -> None:
        """Open the history of decisions."""
        from memtui.tui.history import HistoryScreen

        if self.ws is None or self.ws.repo is None:
            self.notify("This store is not in git: there is no history yet", severity="warning")
            return
        repo = self.ws.own_repo()  # the history screen's threads read through a handle of their own
        if repo is not None:
            self.push_screen(HistoryScreen(repo))

    def action_help(self) -> None:
        """Show the main screen's keys."""
        self.push_screen(HelpScreen("Keys · main screen", HELP))

    def palette_commands(self) -> list[tuple[str, Callable[[], None], str]]:
        """The main screen's actions, for the command palette (other screens offer their own)."""
        return [
            ("memory: Archive", self.action_archive, "Archive the selected memory with a reason"),
            ("memory: Merge", self.action_merge, "Merge marked memories (or the selected one with its duplicate)"),
            ("memory: Mark for merge", self.action_mark, "Mark or unmark the selected memory"),
            ("memory: Edit", self.action_edit, "Edit the selected memory here"),
            ("memory: Edit in $EDITOR", self.action_edit_external, "Edit the selected memory in your editor"),
            ("memory: Verify", self.action_verify, "Stamp last_verified: still true"),
            (
                "memory: Fix relative date",
                self.action_fix_date,
                "Replace 'tomorrow' with the date it meant (asks first)",
            ),
            ("store: Undo last decision", self.action_undo, "Revert the newest memtui commit"),
            ("store: Reload", self.action_reload, "Read the store from disk again"),
            ("store: Put under git", self.action_init_store, "memtui init: a repository for this store"),
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


def _analyse(ws: Workspace) -> tuple[Workspace, list[Card]]:
    """Every finding and the review queue (the one source of the finding count)."""
    analysed = analyse(ws)
    assert analysed.report is not None
    # its own repository handle: the preview's history worker reads through ws.repo at the same time
    return analysed, build_queue(analysed.report, analysed.own_repo())


def _count_text(cards: list[Card]) -> str:
    findings = finding_count(cards)
    new = len(cards) - findings
    text = f"{findings} finding{'s' if findings != 1 else ''} to review"
    return text + (f" · {new} new write{'s' if new != 1 else ''}" if new else "")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip() or "(no message)"
    return (
        text
        if isinstance(exc, (OSError, ValueError)) or type(exc).__module__.startswith("memtui")
        else f"{type(exc).__name__}: {text}"
    )


def _fields(memory: Memory, ws: Workspace) -> Content:
    fresh = ws.freshness.get(memory.path)
    lines = [render.plain(memory.path)]
    if memory.is_malformed:
        lines.append(render.styled(f"malformed: {memory.error} — read-only", "flag-contradiction"))
    head = [render.badge(fresh.badge if fresh else "unknown")]
    if fresh and fresh.since:
        extra = f"  {fresh.age_days} days since {fresh.since.isoformat()} ({fresh.source})"
        if fresh.period_days:
            extra += f", period {fresh.period_days} days"
        head.append(render.plain(extra))
    lines.append(Content("").join(head))
    if memory.has_frontmatter:
        # the front matter as written: keys, order, quoting and comments exactly as on disk
        block, _ = frontmatter.split_block(memory.text)
        for line in (block or "").splitlines():
            body = line.rstrip("\r")
            indent = len(body) - len(body.lstrip(" "))
            # wrapping drops leading blanks, so nesting is drawn with a visible mark per level
            lines.append(render.plain("· " * ((indent + 1) // 2) + body[indent:]))
    if not memory.has_frontmatter and not memory.is_malformed:
        lines.append(render.styled("no front matter", "badge-unknown"))
    return Content("\n").join(lines)


def _sort_key(memory: Memory) -> tuple[str, str]:
    return (memory.title.casefold(), memory.path)


_BADGE_RANK = {"expired": 0, "stale": 1, "aging": 2, "unknown": 3, "fresh": 4, "standing": 5}


def _sorter(sort: str, ws: Workspace) -> Callable[[Memory], tuple[object, ...]]:
    """The pane order for one of MemtuiApp.SORTS; ties fall back to the name."""

    def age(m: Memory) -> int:
        fresh = ws.freshness.get(m.path)
        return (fresh.age_days or 0) if fresh else 0

    def badge(m: Memory) -> int:
        fresh = ws.freshness.get(m.path)
        return _BADGE_RANK.get(fresh.badge if fresh else "unknown", 3)

    if sort == "age":
        return lambda m: (-age(m), *_sort_key(m))
    if sort == "freshness":
        return lambda m: (badge(m), -age(m), *_sort_key(m))
    if sort == "findings":
        return lambda m: (-len(ws.findings_for(m.path)), *_sort_key(m))
    return _sort_key


def _short(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text


def _user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memtui" / "themes"
