"""Modal dialogs: archive reason, merge, in-app edit, changed-on-disk, and help."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from memtui.tui.render import plain


@dataclass(frozen=True)
class MergeRequest:
    """What the merge dialog returns: the merged text and the file it goes into."""

    text: str
    into: str


class ArchiveDialog(ModalScreen[str | None]):
    """Ask for the reason to archive a memory; `enter` confirms, `escape` cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, title: str, reason: str = "") -> None:
        super().__init__()
        self._title = title
        self._reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(f"Archive {self._title}"), classes="dialog-title")
            yield Label("Why is this memory retired? (history will say this)")
            yield Input(value=self._reason, placeholder="reason", id="reason")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel \\[esc]", id="cancel")
                yield Button("Archive \\[enter]", id="ok", variant="warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _confirm(self) -> None:
        reason = self.query_one(Input).value.strip()
        if not reason:
            self.notify("A reason is required", severity="warning")
            return
        self.dismiss(reason)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without archiving."""
        self.dismiss(None)


class EditDialog(ModalScreen[str | None]):
    """Edit a memory's whole text in place; `ctrl+s` saves, `escape` cancels."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="dialog.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", priority=True),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self._title = title
        self._text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(f"Edit {self._title}  (ctrl+s save · esc cancel)"), classes="dialog-title")
            yield TextArea(self._text, id="editor", soft_wrap=True, tab_behavior="indent", show_line_numbers=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        """Hand the new text back; validation happens in the op."""
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)


class MergeDialog(ModalScreen[MergeRequest | None]):
    """The memories side by side above an editable merged text; `ctrl+s` merges, `escape` cancels."""

    BINDINGS = [
        Binding("ctrl+s", "merge", "Merge", id="dialog.merge", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", priority=True),
    ]

    def __init__(self, sources: list[tuple[str, str]], merged: str, into: str) -> None:
        super().__init__()
        self._sources = sources
        self._merged = merged
        self._into = into

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(f"Merge {len(self._sources)} memories  (ctrl+s merge · esc cancel)"), classes="dialog-title")
            with Horizontal(id="merge-sources"):
                for path, text in self._sources:
                    with VerticalScroll(classes="merge-source"):
                        yield Label(plain(path), classes="merge-source-title")
                        yield Static(plain(text))
            with Horizontal(id="merge-into-row"):
                yield Label("into ")
                yield Input(self._into, id="into")
            yield TextArea(self._merged, id="merged", soft_wrap=True, tab_behavior="indent")

    def on_mount(self) -> None:
        self.query_one("#merged", TextArea).focus()

    def action_merge(self) -> None:
        """Hand back the merged text and target name."""
        into = self.query_one("#into", Input).value.strip()
        if not into:
            self.notify("Name the merged memory", severity="warning")
            return
        self.dismiss(MergeRequest(self.query_one("#merged", TextArea).text, into))

    def action_cancel(self) -> None:
        """Close without merging."""
        self.dismiss(None)


class ChangedDialog(ModalScreen[None]):
    """The file changed under the person's decision: show what is there now instead of overwriting it."""

    BINDINGS = [Binding("escape,enter", "close", "Close", id="dialog.close")]

    def __init__(self, path: str, message: str, current: str | None) -> None:
        super().__init__()
        self._path = path
        self._message = message
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(f"{self._path} changed on disk"), classes="dialog-title")
            yield Static(plain(self._message), classes="dialog-message")
            with VerticalScroll(id="changed-text"):
                yield Static(plain(self._current if self._current is not None else "(the file is gone or unreadable)"))
            yield Button("Close \\[esc]", id="close")

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        """Back to the store (already reloaded)."""
        self.dismiss(None)


HELP = """\
memtui — curate an agent's long-term memory. Every decision is a git commit.

 1-4        focus User / Feedback / Project / Reference     5  other (untyped, malformed)
 0          focus the preview          tab / shift+tab  cycle      ↑↓ j k  move
 /          filter every pane (enter keeps it, escape clears it)
 a          archive the selected memory (asks for the reason)
 space      mark          m  merge the marked memories (or the selected one with its duplicate)
 e          edit here     E  edit in $EDITOR
 v          verify (still true)        f  fix a relative date        u  undo the last decision
 r          review queue               H  history of decisions (revoked rules)
 ctrl+p     command palette            ?  this help                  q  quit

Badges: fresh · aging (past half its period) · stale · expired · standing (feedback never decays)
Flags:  C contradiction · D duplicate · $ secret · ! malformed (read-only) · L lint
"""


class HelpScreen(ModalScreen[None]):
    """The keys."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label("Keys", classes="dialog-title")
            yield Static(plain(HELP))

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question; `y`/`enter` yes, `n`/`escape` no."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self._question), classes="dialog-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("No \\[n]", id="no")
                yield Button("Yes \\[y]", id="yes", variant="primary")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        """Close with the answer."""
        self.dismiss(value)
