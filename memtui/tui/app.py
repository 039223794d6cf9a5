"""The memtui app: it owns the store on screen, the settings, the theme and running decisions.

What is shown belongs to screens: `MainScreen` (the panes and the preview), `ReviewScreen` and `HistoryScreen`.
The app reads the store in the background (and again when it changes on disk), tells the screens, and runs every
decision one way: a screen posts `Decide`, the app runs the operation in a worker (`tui/decisions.run`, which
never raises), reads the store again when something was committed, offers to proceed after an explicit yes when
a secret was refused, and answers with an `Outcome`. Screens never import this module.

A little over 400 lines: the loader, the watcher and the decision runner share the one copy of the store the
screens read, and each is short.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import subprocess
import threading
import weakref
from pathlib import Path

from textual import events, on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.worker import Worker, WorkerState

from memtui import ops
from memtui.core.errors import MemtuiError
from memtui.core.reading import sha256
from memtui.core.settings import Settings, SettingsError, load_settings, save_theme
from memtui.core.three_way import merge_edits
from memtui.review import Card, build_queue
from memtui.tui.commands import MemtuiCommands
from memtui.tui.decisions import DiskChange, Outcome, run
from memtui.tui.dialogs import ChangedDialog, ConfirmDialog, ConfirmRisky, KeptEditDialog, WelcomeScreen
from memtui.tui.main_screen import EditorRunner, MainScreen
from memtui.tui.messages import Decide, ThreadSaid, WorkspaceChanged
from memtui.tui.review_cursor import ReviewSession
from memtui.tui.themes import BUILTIN_DIR, DEFAULT_THEME, default_variables, load_themes
from memtui.workspace import Workspace, analyse, open_store, signature


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
    BINDINGS = [Binding("q", "quit", "Quit", id="app.quit")]
    """Every other key belongs to the screen that acts on it (`MainScreen`, `ReviewScreen`, `HistoryScreen`)."""

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
        self.last_outcome: Outcome | None = None
        """The last decision's outcome (for the status line and tests)."""
        self.last_result: ops.OpResult | None = None
        """What the last decision that went through did (scripts driving the app read and clear it)."""
        self.last_error: str = ""
        """The last refusal or failure shown, title and message (scripts driving the app read it)."""
        self.review_session: ReviewSession | None = None
        """The review under way (until it is marked finished): leaving it and pressing `r` again continues it."""
        self._texts: dict[str, str] = {}
        """Every memory text this run put on screen, by content hash: what a person saw, for the diff a
        changed-on-disk refusal shows (the screens name the version they decided on by its hash)."""
        self.editor_runner = editor_runner or self._run_editor_suspended
        self.watch_interval = watch_interval
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self._deciding = 0  # decisions being written by a worker now
        self._deciding_lock = threading.Lock()
        self._notes_said: set[str] = set()
        self._theme_errors: list[str] = []
        self._welcomed = False
        """The first-run screen was shown (once per run)."""
        self._quitting = False
        """Set when the app starts to quit; background threads stop early (the app waits for them)."""
        self._reading = False
        """A read of the store is running; a reload asked for meanwhile waits in `_read_next`."""
        self._read_next: str | None = None
        """The reason of the one read that follows the running one (many asks make one read, never a pile)."""
        self.reads_started = 0
        """How many reads of the store this run started (drivers and tests count them)."""
        self._settings_error = ""
        """Why the settings file could not be used (shown once the app runs; the defaults apply)."""
        self._typed_on: weakref.WeakKeyDictionary[events.Key, object] = weakref.WeakKeyDictionary()
        """The screen on top when each key in flight was typed (`on_event`)."""
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

    async def on_event(self, event: events.Event) -> None:
        """Keys go to the screen they were typed on. A key goes down to the focused widget and bubbles back up here,
        where the screen's bindings run: a key typed in the same instant as one that opens a screen (`f`, `a`,
        `r` ...) was already on its way through the screen below, and would reach the bindings after the new
        screen opened, to be lost there. It goes to the new screen instead (`take_typed_ahead`: a dialog's
        input, the review's cards), in the order typed, and never acts on the screen below. (A key typed on a
        screen that closed meanwhile acts on the one now on top, as it always did.)"""
        if isinstance(event, events.Key):
            if not event.is_forwarded:
                self._typed_on[event] = self.screen
            elif (typed_on := self._typed_on.pop(event, None)) is not None and typed_on in self.screen_stack[:-1]:
                take = getattr(self.screen, "take_typed_ahead", None)
                if callable(take):
                    take(event)
                return
        await super().on_event(event)

    async def action_quit(self) -> None:
        """Quit, telling background threads to stop first."""
        self._quitting = True
        await super().action_quit()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Badge and flag colours under any theme, taken from the default theme file."""
        return default_variables()

    # ------------------------------------------------------------------------------------------ layout

    def get_default_screen(self) -> MainScreen:
        """The panes and the preview."""
        self.main_screen = MainScreen()
        return self.main_screen

    def on_mount(self) -> None:
        if self._theme_errors:
            self.show_error("Theme files not loaded", "\n".join(self._theme_errors))
        if self._settings_error:
            self.show_error(
                "Settings not used",
                self._settings_error,
                hint="Using the default settings until it is fixed.",
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

    @property
    def reading(self) -> bool:
        """Whether a read of the store is running or asked for (drivers wait for it with the workers)."""
        return self._reading or self._read_next is not None

    def reload(self, reason: str = "reload") -> None:
        """Read the store again in the background; findings follow when the analysis finishes.

        One read runs at a time. Asks that arrive meanwhile (an agent writing in a loop, a person pressing
        reload) become one more read after it, so the screen ends on the store as it is now without a
        thread per ask competing for the interpreter."""
        if self._reading:
            self._read_next = reason
            return
        self._reading = True
        self.reads_started += 1
        self._load(reason)

    def _read_done(self) -> None:
        self._reading = False
        reason, self._read_next = self._read_next, None
        if reason is not None and not self._quitting:
            self.reload(reason)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False, description="Reading the store")
    def _load(self, reason: str) -> None:
        try:
            self._read_store(reason)
        finally:
            self.post_message(ThreadSaid(self._read_done))

    def _read_store(self, reason: str) -> None:
        try:
            sig = signature(self.store_path)  # before reading: a write during the read is noticed next poll
            ws = open_store(self.store_path, self.today, self.settings.policy(), heal_first=self.ws is None)
        except Exception as exc:  # any failure reaches the screen: never a silent, endless "reading…"
            self.post_message(StoreFailed(_describe(exc)))
            return
        self._signature = sig
        # A re-read keeps the findings on screen until the new ones are ready: painting the store without them
        # first would blank every flag and draw it again on each agent write.
        findings_shown = self.ws is not None and self.ws.analysed
        if not findings_shown:
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
            if findings_shown:
                self.post_message(StoreLoaded(ws, reason))
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
        self.main_screen.update_header()
        self.show_error(what.capitalize(), message.error, hint=hint, timeout=15)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Any background failure not handled where it happened reaches the screen (never a silent worker)."""
        if event.state == WorkerState.ERROR and not self._quitting:
            error = event.worker.error
            self.show_error(
                f"{event.worker.description or 'Background work'} failed",
                _describe(error) if isinstance(error, BaseException) else str(error),
                hint="Try again, or reload (ctrl+p → store: Reload); run `memtui check` for details.",
                timeout=15,
            )

    TEXTS_KEPT = 20_000
    """How many memory texts `_texts` keeps (the oldest go first)."""

    def _remember_texts(self, ws: Workspace) -> None:
        """Keep the text of every memory version now on screen, by hash (what a person may have seen)."""
        for m in ws.store.memories:
            self._texts.setdefault(m.content_hash, m.text)
        while len(self._texts) > self.TEXTS_KEPT:
            del self._texts[next(iter(self._texts))]

    @on(StoreLoaded)
    def _loaded(self, message: StoreLoaded) -> None:
        first = self.ws is None
        self.ws = message.ws
        self._remember_texts(message.ws)
        if message.ws.analysed:
            self.load_error = ""
            self.cards = message.cards or []
            self._tell_screens()
        self.main_screen.store_changed(first=first)
        if first:
            for note in self.ws.healed:  # an interrupted decision was finished or rolled back: say what happened
                self.notify(note, title="Store healed", timeout=15)
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
        sig = _signature_or(self.store_path, self._signature)
        if self._signature and sig != self._signature and not self._deciding:
            self._signature = sig
            self.post_message(ThreadSaid(lambda: self.reload("disk")))

    # ------------------------------------------------------------------------------------------ decisions

    @on(Decide)
    def _decide(self, message: Decide) -> None:
        message.stop()
        message.asked_on = self.ws
        self._run_decision(message, False)

    @work(thread=True, exclusive=False, group="ops", exit_on_error=False, description="Writing")
    def _run_decision(self, request: Decide, allow_secret: bool) -> None:
        with self._deciding_lock:
            self._deciding += 1  # the watcher keeps still: memtui's own write is not the disk changing
        try:
            outcome = run(request.label, request.operation, allow_secret=allow_secret, today=self.today)
            # every file as it is now is read again below or by the reload that follows (agent writes included)
            self._signature = _signature_or(self.store_path, self._signature)
        finally:
            with self._deciding_lock:
                self._deciding -= 1
        ws, cards = None, None
        if request.on_outcome is not None and (outcome.ok or outcome.changed_path or outcome.gone_path):
            try:  # read the store again before answering: the screen's next card must show it as it is now
                ws, cards = _analyse(open_store(self.store_path, self.today, self.settings.policy(), heal_first=False))
            except Exception as exc:
                self.post_message(StoreFailed(_describe(exc), analysing=True))
        if outcome.change is not None and ws is not None:
            # the version shown to the person is the one a retry may then act on: the text and its hash, as read
            outcome.change.now = ws.store.get(outcome.change.path)
        self.post_message(Decided(request, outcome, ws, cards, allow_secret))

    @on(Decided)
    def _decided(self, message: Decided) -> None:
        outcome, request = message.outcome, message.request
        if message.ws is not None:
            self.ws = message.ws
            self._remember_texts(message.ws)
            self.cards = message.cards or []
            self.load_error = ""
            self.main_screen.store_changed()
            self._tell_screens()
        elif outcome.ok or outcome.changed_path or outcome.gone_path:
            self.reload("op")  # nobody waits on this answer: report now, the panes follow in the background
        if outcome.secret and not message.allow_secret:
            self._offer_secret(request, outcome)
            return
        if request.typed is not None and request.path is not None and outcome.status == "refused":
            self._offer_typed_again(request, outcome)
            return
        if outcome.change is not None:
            # who asked hears first (and says which version it decided on), then the person is shown what changed
            if request.on_outcome is not None:
                request.on_outcome(outcome)
            self._report(outcome, in_dialog=request.in_dialog, asked_on=request.asked_on)
            return
        self._report(outcome, in_dialog=request.in_dialog)
        if request.on_outcome is not None:
            request.on_outcome(outcome)

    def _offer_typed_again(self, request: Decide, outcome: Outcome, why: str = "") -> None:
        """An edit that was not saved keeps the person's text: shown beside the file as it is now, to save again
        (`why`: a sentence said after the refusal's own message)."""
        assert request.typed is not None and request.path is not None
        self.last_outcome = outcome
        path = request.path
        root = self.ws.store.root if self.ws is not None else self.store_path
        try:
            data: bytes | None = (root / path).read_bytes()
        except OSError:
            data = None
        current = data.decode("utf-8-sig", errors="replace") if data is not None else outcome.current_text
        expected = sha256(data) if data is not None else None
        store = self.store_path
        typed, message, base = request.typed, outcome.message + (f"\n{why}" if why else ""), request.base
        if base is not None and current is not None and current != base:
            # the file changed while the person edited it: their changes go onto the text there now, so saving
            # again keeps what the agent wrote, unless both changed the same lines
            merged = merge_edits(base, request.typed, current)
            if merged is not None:
                typed = merged
                message += (
                    "\nYour changes are applied to the text on disk now, which keeps what changed there "
                    "(shown on the left): look, then ctrl+s saves"
                )
            else:
                message += (
                    "\nYour changes and the change on disk touch the same lines: bring over what changed there "
                    "(shown on the left), or ctrl+s saves your text over it"
                )

        def answered(text: str | None) -> None:
            if text is None:
                self.notify("Your text was dropped; the file is as it is on disk", title=outcome.label, timeout=4)
                if request.on_outcome is not None:
                    request.on_outcome(outcome)
                return
            self.post_message(
                Decide(
                    request.label,
                    lambda allow, today: ops.edit(
                        store, path, text, expected_hash=expected, allow_secret=allow, today=today
                    ),
                    request.on_outcome,
                    typed=text,
                    path=path,
                    base=current,
                )
            )

        self.push_screen(KeptEditDialog(path, message, current, typed, before=base), answered)

    def _offer_secret(self, request: Decide, outcome: Outcome) -> None:
        """A change refused for a secret may still go ahead, but only after the person says so explicitly. An edit
        the person does not commit keeps their text, offered again to take the secret out (as any refused edit)."""

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_decision(request, True)
                return
            if request.typed is not None and request.path is not None:
                self._offer_typed_again(
                    request,
                    outcome,
                    "Not saved: you chose not to commit it. Your text is kept on the right: take the secret out "
                    "and ctrl+s saves it, or esc drops your text.",
                )
                return
            self._report(outcome, in_dialog=request.in_dialog)
            if request.on_outcome is not None:
                request.on_outcome(outcome)

        self.push_screen(
            ConfirmRisky(
                f"{request.label} refused: {outcome.message}\n\nThe commit would keep this secret in git history. "
                "Commit it anyway? (y: yes, commit the secret · n: no)"
            ),
            answered,
        )

    def _report(self, outcome: Outcome, *, in_dialog: bool = False, asked_on: Workspace | None = None) -> None:
        """Say what came of a decision; a refusal a dialog says itself (`in_dialog`) is only recorded.

        A file changed on disk is shown as what changed since the person saw it, then its whole text: the version
        they saw is the one the decision named (`DiskChange.expected`), else the one on screen when it was asked
        (`asked_on`)."""
        self.last_outcome = outcome
        if outcome.result is not None:
            self.last_result = outcome.result
        if outcome.changed_path is not None:
            change = outcome.change
            before = self._text_seen(change, asked_on) if change is not None else None
            current = change.now_text if change is not None else outcome.current_text
            self.push_screen(
                ChangedDialog(outcome.changed_path, outcome.message, current, before=before, change=change)
            )
        elif outcome.status == "refused":
            why = f" · {outcome.title}" if outcome.title and outcome.title != "Refused" else ""
            self.show_error(f"{outcome.label} refused{why}", outcome.message, timeout=8, quiet=in_dialog)
        elif outcome.status == "failed":
            self.show_error(f"{outcome.label} failed", outcome.message, timeout=15, quiet=in_dialog)
        else:
            # A standing note (e.g. an agent file withheld for a secret) is said once per session, not after every
            # decision: repeated on each one, people stop reading it.
            result = outcome.result
            notes = [n for n in ((*result.warnings, *result.notes) if result else ()) if n not in self._notes_said]
            self._notes_said.update(notes)
            self.notify(outcome.message + ("\n" + "\n".join(notes) if notes else ""), title=outcome.label, timeout=4)

    def _text_seen(self, change: DiskChange, asked_on: Workspace | None) -> str | None:
        """The text of the version the person saw before `change` (None when it cannot be known)."""
        if change.before_hash is not None:
            return change.before_text if change.before_text is not None else self._texts.get(change.before_hash)
        # nobody named the version: the one on screen when the decision was asked, unless that is the new one
        shown = asked_on.store.get(change.path) if asked_on is not None else None
        return shown.text if shown is not None and shown.content_hash != change.now_hash else None

    def show_error(self, title: str, message: str, *, hint: str = "", timeout: float = 10, quiet: bool = False) -> None:
        """The one place the TUI shows a refusal or a failure: its title, its message and what to do next
        (`quiet`: recorded only, when the dialog the person decides in says it)."""
        self.last_error = f"{title}: {message}"
        if not quiet:
            self.notify(message + (f"\n{hint}" if hint else ""), title=title, severity="error", timeout=timeout)

    def _tell_screens(self) -> None:
        if self.ws is None:
            return
        for screen in self.screen_stack:
            if screen is self.main_screen:
                continue  # told directly (store_changed), before the first paint
            screen.post_message(WorkspaceChanged(self.ws, self.cards))

    def _run_editor_suspended(self, path: Path) -> None:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        with self.suspend():
            subprocess.call([*shlex.split(editor), str(path)])

    def action_init_store(self) -> None:
        """Put a store that is not in git under git."""
        store = self.store_path
        self.post_message(Decide("Init", lambda allow, today: ops.init(store, allow_secret=allow)))


def _analyse(ws: Workspace) -> tuple[Workspace, list[Card]]:
    """Every finding and the review queue (the one source of the finding count)."""
    analysed = analyse(ws)
    assert analysed.report is not None
    # its own repository handle: the preview's history worker reads through ws.repo at the same time
    return analysed, build_queue(analysed.report, analysed.own_repo())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, MemtuiError):
        return exc.describe()
    text = str(exc).strip() or "(no message)"
    return (
        text
        if isinstance(exc, (OSError, ValueError)) or type(exc).__module__.startswith("memtui")
        else f"{type(exc).__name__}: {text}"
    )


def _user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memtui" / "themes"


def _signature_or(store: Path, known: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, int, int], ...]:
    """The store's signature now, or the one known if the folder cannot be read (a folder that vanished is
    noticed by the next load, which says so)."""
    try:
        return signature(store)
    except Exception:
        return known
