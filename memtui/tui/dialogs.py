"""Modal dialogs: archive reason, merge, in-app edit, changed-on-disk, a kept edit, fix date, confirm, welcome, help.

Over 400 lines because it holds every dialog: each is small, self-contained, and shared by the screens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea
from textual.widgets.input import Selection

from memtui import ops
from memtui.analysis.dates import names_range, what_it_names, written_as
from memtui.core.errors import MemtuiError
from memtui.core.model import Memory
from memtui.ops import DateFix
from memtui.tui.decisions import DiskChange, Operation, Outcome, diff_lines, keep_final_newline, merge_text
from memtui.tui.messages import ThreadSaid
from memtui.tui.render import LEGEND, plain, styled


@dataclass(frozen=True)
class MergeRequest:
    """What the merge dialog returns: the merged text, the file it goes into and the reason history keeps."""

    text: str
    into: str
    reason: str = ""
    edited: bool = True
    """Whether the person changed the suggested text (a text left as suggested may not merge a plain contradiction)."""

    def operation(self, store: Path, paths: Sequence[str], hashes: Mapping[str, str]) -> Operation:
        """The merge this asks for, as a decision runs it (the main screen and the review share it)."""
        return lambda allow, today: ops.merge(
            store,
            list(paths),
            into=self.into,
            text=self.text,
            text_edited=self.edited,
            reason=self.reason,
            expected_hashes=dict(hashes),
            allow_secret=allow,
            today=today,
        )


_KEY_NAMES = {"question_mark": "?", "slash": "/", "escape": "esc", "space": "space", "enter": "enter"}
_HELP_ROW = re.compile(r"^ (\S.*?) {2,}(\S.*)$")
KEY_COLUMN = 14
"""Columns of a help row's keys (`esc q`, `1 2 3 4 5`); what they do follows, wrapped under itself."""


def help_line(keys: str, does: str) -> str:
    """One row of a help text: a space, the keys, two spaces at least, then what they do (`HelpScreen` shows it as
    a row whose second column wraps to the terminal's width)."""
    return f" {keys:<{KEY_COLUMN}}  {does}"


def help_text(bindings: Iterable[BindingType], notes: Sequence[str] = ()) -> str:
    """A screen's help, made from its bindings (so it cannot drift from the keys), then free notes (a paragraph
    each). Each key says its footer label and, from the binding's tooltip, what it does in a sentence."""
    lines = []
    for b in bindings:
        if not isinstance(b, Binding):
            continue
        keys = b.key_display or " ".join(_KEY_NAMES.get(k, k) for k in b.key.split(","))
        lines.append(help_line(keys, f"{b.description} — {b.tooltip}" if b.tooltip else b.description))
    return "\n".join([*lines, "", "\n\n".join(notes)]).rstrip() + "\n"


def help_blocks(text: str) -> list[tuple[str, str] | str]:
    """A help text as HelpScreen lays it out: `(keys, does)` for each key row, the other lines as paragraphs (an
    empty string for a blank line)."""
    blocks: list[tuple[str, str] | str] = []
    for line in text.rstrip("\n").split("\n"):
        row = _HELP_ROW.match(line)
        blocks.append((row.group(1).strip(), row.group(2).strip()) if row else line.strip())
    return blocks


SHORT_HEIGHT = 32
"""Terminal rows under which a dialog is laid out compact (`-short` in memtui.tcss), as the main screen is."""
SHORT_BREAKPOINTS = [(0, "-short"), (SHORT_HEIGHT, "-tall")]
"""The `VERTICAL_BREAKPOINTS` of a dialog with texts to read or edit: on a short terminal (80×24) it takes the whole
height and drops its spacing, so its texts keep usable heights."""

AnswerT = TypeVar("AnswerT")

Submit = Callable[[AnswerT, Callable[[Outcome], None]], None]
"""How a deciding dialog hands its answer over: `submit(answer, reply)` asks the app for the decision, and
`reply(outcome)` is called with what came of it."""


def type_into(box: Input, event: events.Key, submit: Callable[[], None]) -> bool:
    """Apply a key to `box` as if it had been typed there (a character replaces the selection, backspace, ctrl+u,
    enter submits); returns False for a key an input does not take."""
    if event.is_printable and event.character is not None:
        if box.selection.is_empty:
            box.insert_text_at_cursor(event.character)
        else:
            box.replace(event.character, *box.selection)
    elif event.key == "backspace":
        box.action_delete_left()
    elif event.key == "ctrl+u":
        box.action_delete_left_all()
    elif event.key == "enter":
        submit()
    else:
        return False
    return True


class TypedAhead:
    """For a dialog with one input and a `_confirm`: keys typed before the input has the focus go into it —
    those that reached the screen below in the instant after the key that opened the dialog
    (`take_typed_ahead`, called by the app) and those that reach the dialog itself before its focus lands."""

    def _confirm(self) -> None:
        raise NotImplementedError

    def take_typed_ahead(self, event: events.Key) -> None:
        """A key typed in the instant after the one that opened the dialog goes into its input."""
        assert isinstance(self, ModalScreen)
        type_into(self.query_one(Input), event, self._confirm)

    def on_key(self, event: events.Key) -> None:
        """Keys reaching the dialog before its input has the focus go into it."""
        assert isinstance(self, ModalScreen)
        if self.focused is None and type_into(self.query_one(Input), event, self._confirm):
            event.stop()
            event.prevent_default()


class DecidingDialog(ModalScreen[AnswerT | None]):
    """A dialog whose answer is a decision: it stays open until the decision is made.

    Any refusal — a missing reason, a text that does not validate, a plain contradiction, a file changed on
    disk, a secret the person would not commit — is shown inside the dialog, with what the person typed kept,
    to correct and try again or cancel. It closes (with the answer) only once the decision committed or had
    nothing to write; `escape` cancels, except while the decision is being written.
    """

    VERTICAL_BREAKPOINTS = SHORT_BREAKPOINTS

    RETRY = "try again"
    """What the person presses to try again, as the refusal line says it."""

    def __init__(self, submit: Submit[AnswerT]) -> None:
        super().__init__()
        self._submit = submit
        self.waiting = ""
        """The decision being written, while it is (the dialog neither sends again nor cancels meanwhile)."""
        self.refusal = ""
        """Why the last try was refused, as shown in the dialog ("" before any refusal)."""

    def refusal_line(self) -> Static:
        """The line that says what is being written, or why it was refused (hidden until then)."""
        line = Static(id="dialog-refusal", classes="dialog-message")
        line.display = False
        return line

    def send(self, label: str, answer: AnswerT) -> None:
        """Ask for the decision; the dialog stays open until the outcome says it was made."""
        if self.waiting:
            return
        self.waiting = label
        self._show(styled(f"{label}…", "badge-unknown"))
        self._submit(answer, lambda outcome: self._answered(answer, outcome))

    def _answered(self, answer: AnswerT, outcome: Outcome) -> None:
        self.waiting = ""
        if outcome.ok:
            if self.is_active:
                self.dismiss(answer)
            elif self.is_attached:  # something opened over the dialog meanwhile (the palette): it goes first
                self.pop_until_active()
                self.app.call_later(self.dismiss, answer)
            return
        title = f" · {outcome.title}" if outcome.title and outcome.title != "Refused" else ""
        if outcome.gone_path is not None:  # nothing left to decide on: no retry can act, so none is offered
            self.refusal = f"{outcome.label} {outcome.status}{title}: {outcome.message}"
            self._show(styled(f"{self.refusal}\nesc closes this dialog.", "flag-contradiction"))
            return
        self.refuse(f"{outcome.label} {outcome.status}{title}: {outcome.message}")
        if outcome.change is not None:  # the app shows what changed over this dialog; then a new try may act on it
            outcome.change.when_seen(self.saw_change)

    def saw_change(self, change: DiskChange) -> None:
        """The person was shown what changed on disk (over this dialog): say that a new try decides on it as it is
        now (the decision's expected version has moved to it, `follow_changed`)."""
        if not self.is_attached:
            return
        self.refusal = (
            f"{change.path} changed on disk and you were shown what changed: to decide on it as it is now, "
            f"{self.RETRY}; or esc to cancel."
        )
        self._show(styled(self.refusal, "flag-contradiction"))

    def refuse(self, why: str) -> None:
        """Say why the answer was not taken, keep what the person typed, and put them back at it."""
        self.refusal = why
        self._show(
            styled(f"{why}\nNothing here is lost: fix it and {self.RETRY}, or esc to cancel.", "flag-contradiction")
        )
        self.back_to_answer()

    def back_to_answer(self) -> None:
        """Put the focus where the person corrects their answer."""

    def _show(self, content: Content) -> None:
        line = self.query_one("#dialog-refusal", Static)
        line.update(content)
        line.display = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No cancel while the decision is being written: its outcome must reach this dialog."""
        return not (action == "cancel" and self.waiting)


class ArchiveDialog(TypedAhead, DecidingDialog[str]):
    """Ask for the reason to archive a memory; `enter` archives, `escape` cancels. A refusal (no reason, the
    file changed on disk, ...) is said here and the reason typed is kept."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]
    RETRY = "press enter again"

    def __init__(
        self, title: str, reason: str, submit: Submit[str], count: int = 1, linked: Sequence[str] = ()
    ) -> None:
        super().__init__(submit)
        self._title = title
        self._reason = reason
        self._count = count
        """How many memories the one reason retires (a batch of marked ones)."""
        self._linked = tuple(linked)
        """What still links to the memories archived (`wikilinks.links_left`): said before, never refused."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(f"Archive {self._title}"), classes="dialog-title")
            if self._linked:
                yield Static(
                    styled("\n".join(f"Linked: {said}" for said in self._linked), "flag-lint"),
                    id="archive-linked",
                    classes="dialog-message",
                )
            question = "Why is this memory retired?" if self._count == 1 else f"Why are these {self._count} retired?"
            yield Label(f"{question} (history will say this)")
            # focus (again after a refusal) does not select the reason: the next key would replace all of it;
            # memtui's suggested reason is selected from the start instead, so a reason typed replaces it
            box = Input(value=self._reason, placeholder="reason", id="reason", select_on_focus=False)
            box.select_all()
            yield box
            yield self.refusal_line()
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel \\[esc]", id="cancel")
                yield Button("Archive \\[enter]", id="ok", variant="warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _confirm(self) -> None:
        # whether a reason is needed is ops' rule (the CLI's too): an empty one comes back refused, said here
        self.send("Archiving", self.query_one(Input).value.strip())

    def back_to_answer(self) -> None:
        """Back to the reason."""
        self.query_one(Input).focus()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without archiving."""
        if not self.waiting:
            self.dismiss(None)


class EditDialog(ModalScreen[str | None]):
    """Edit a memory's whole text in place; `ctrl+s` saves, `escape` cancels."""

    VERTICAL_BREAKPOINTS = SHORT_BREAKPOINTS

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


def conflict_reason(older: str, newer: str) -> str:
    """The reason a merge of two conflicting memories starts with: they are merged to settle which one holds, not
    because they are duplicates."""
    return f"settles the conflict of {older} and {newer}"


class MergeDialog(DecidingDialog[MergeRequest]):
    """The memories side by side above an editable merged text; `ctrl+s` merges, `escape` cancels.

    The merged text starts as the target's own memory (its name, description and text lead) with the others'
    paragraphs after a blank line each. Changing "into" to another of the memories starts over from that one,
    unless the person already edited the text. The reason starts as "duplicates of <into>", or as `reason` when the
    caller knows better (two memories that conflict are not duplicates). `tab` moves between the fields (a text
    that must open with `---` has no use for a tab). A refusal (a plain contradiction in a text left as it was
    suggested, a text that does not validate, a file changed on disk) is said here and the text is kept.
    """

    BINDINGS = [
        Binding("ctrl+s", "merge", "Merge", id="dialog.merge", priority=True),
        Binding("ctrl+r", "rebuild", "Rebuild from the files now", id="dialog.rebuild", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", priority=True),
    ]
    RETRY = "press ctrl+s again"

    def __init__(self, memories: Sequence[Memory], into: str, reason: str | None, submit: Submit[MergeRequest]) -> None:
        super().__init__(submit)
        self._memories = list(memories)
        self._into = into
        self._reason = reason
        self._generated = merge_text(self._memories, into)
        self.stale: dict[str, Memory | None] = {}
        """Sources that changed on disk (as shown to the person) since the proposed text was built from them."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(
                plain(f"Merge {len(self._memories)} memories  (ctrl+s merge · esc cancel)"), classes="dialog-title"
            )
            with Horizontal(id="merge-sources"):
                for i, m in enumerate(self._memories):
                    with VerticalScroll(classes="merge-source", id=f"merge-source-{i}"):
                        yield Label(plain(m.path), classes="merge-source-title")
                        yield Static(plain(m.text), classes="merge-source-text")
            with Horizontal(id="merge-into-row"):
                yield Label("into ")
                yield Input(self._into, id="into")
                yield Label(" why ")
                others = [m.path for m in self._memories if m.path != self._into]
                yield Input(
                    self._reason if self._reason is not None else f"duplicates of {self._into}" if others else "",
                    id="merge-reason",
                    placeholder="reason (history will say this)",
                )
            yield TextArea(self._generated, id="merged", soft_wrap=True, tab_behavior="focus")
            yield self.refusal_line()
            yield VerticalScroll(id="merge-changes")

    def on_mount(self) -> None:
        self.query_one("#merged", TextArea).focus()

    def back_to_answer(self) -> None:
        """Back to the merged text, where a refusal is usually settled."""
        self.query_one("#merged", TextArea).focus()

    @on(Input.Changed, "#into")
    def _into_changed(self, event: Input.Changed) -> None:
        into = event.value.strip()
        paths = [m.path for m in self._memories]
        area = self.query_one("#merged", TextArea)
        if into in paths and area.text == self._generated:
            self._generated = merge_text(self._memories, into)
            area.load_text(self._generated)
            reason = self.query_one("#merge-reason", Input)
            if reason.value.startswith("duplicates of "):
                reason.value = f"duplicates of {into}"

    def action_merge(self) -> None:
        """Hand back the merged text, target name and reason."""
        into = self.query_one("#into", Input).value.strip()
        if not into:
            self.refuse("Name the merged memory")
            self.query_one("#into", Input).focus()
            return
        reason = self.query_one("#merge-reason", Input).value.strip()
        if not reason:
            self.refuse("Say why these are merged (history will say this)")
            self.query_one("#merge-reason", Input).focus()
            return
        text = keep_final_newline(self._generated, self.query_one("#merged", TextArea).text)
        if self.stale and text == self._generated:
            # built from text that is no longer there: merged as it is, it would drop what the agent changed
            self.refuse(self._stale_note())
            return
        self.send("Merging", MergeRequest(text, into, reason, edited=text != self._generated))

    def saw_change(self, change: DiskChange) -> None:
        """A source changed on disk and the person was shown it: its pane shows the text now, what changed is
        listed under the text, and the proposed text (built from the old source) waits for `ctrl+r` or an edit."""
        if not self.is_attached:
            return
        at = next((i for i, m in enumerate(self._memories) if m.path == change.path), None)
        if at is None:
            super().saw_change(change)
            return
        before = self._memories[at].text
        self.stale[change.path] = change.now
        pane = self.query_one(f"#merge-source-{at}", VerticalScroll)
        pane.query_one(".merge-source-title", Label).update(
            styled(f"{change.path} · changed, now:", "flag-contradiction")
        )
        pane.query_one(".merge-source-text", Static).update(plain(change.now_text or "(the file is gone)"))
        changes = self.query_one("#merge-changes", VerticalScroll)
        changes.mount(Label(plain(f"{change.path}: - as the proposal has it, + as it is now"), classes="changed-label"))
        changes.mount(DiffView(before, change.now_text))
        changes.display = True
        self.refusal = self._stale_note()
        self._show(styled(self.refusal, "flag-contradiction"))

    def _stale_note(self) -> str:
        names = ", ".join(self.stale)
        return (
            f"{names} changed on disk (what changed is below); the proposed text was built from the old text. "
            "ctrl+r rebuilds it from the files as they are now, or edit it yourself; then ctrl+s."
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`ctrl+r` only when a source changed since the proposed text was built (and not while writing)."""
        if action == "rebuild":
            return bool(self.stale) and not self.waiting
        return super().check_action(action, parameters)

    def action_rebuild(self) -> None:
        """Build the proposed text again from the sources as they are now. An edited text is replaced as an edit of
        the text box, so ctrl+z there brings the person's own text back; the dialog says so."""
        gone = [path for path, now in self.stale.items() if now is None]
        if gone:
            self.refuse(f"{', '.join(gone)} is gone from the store: it cannot be merged (esc to cancel)")
            return
        self._memories = [self.stale.get(m.path) or m for m in self._memories]
        self.stale.clear()
        into = self.query_one("#into", Input).value.strip()
        area = self.query_one("#merged", TextArea)
        edited = keep_final_newline(self._generated, area.text) != self._generated
        self._generated = merge_text(self._memories, into if into in {m.path for m in self._memories} else self._into)
        area.replace(self._generated, (0, 0), area.document.end)
        area.focus()
        changes = self.query_one("#merge-changes", VerticalScroll)
        changes.remove_children()  # what changed is in the proposed text now; the panes show the sources as they are
        changes.display = False
        self.refusal = "Rebuilt from the files as they are now." + (
            " Your edited text was replaced: ctrl+z in the text brings it back." if edited else ""
        )
        self._show(styled(self.refusal, "badge-fresh"))
        self.refresh_bindings()

    def action_cancel(self) -> None:
        """Close without merging."""
        self.dismiss(None)


class DiffView(Vertical):
    """What changed from one text to another: a unified diff, a line each, styled by the `.tcss` classes
    `diff-line -added`, `-removed`, `-hunk` (and `-context`); the `+`/`-` stay, so colour is never all it says."""

    def __init__(self, before: str | None, after: str | None, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="diff-view")
        self._before = before
        self._after = after

    def compose(self) -> ComposeResult:
        if self._before is None:
            yield Static("(the text shown before is not known here: the whole text now is below)", classes="diff-line")
            return
        if self._after is None:
            yield Static("(the file is gone or unreadable)", classes="diff-line -removed")
            return
        lines = diff_lines(self._before, self._after)
        if not lines:
            yield Static("(the text reads the same: only its bytes changed, e.g. line endings)", classes="diff-line")
        for line in lines:
            kind = {"+": "-added", "-": "-removed", "@": "-hunk"}.get(line[:1], "-context")
            yield Static(plain(line), classes=f"diff-line {kind}")


class ChangedDialog(ModalScreen[None]):
    """The file changed under the person's decision: what changed since they saw it first (a diff), then the whole
    text now. Closing it is the person having seen it (`DiskChange.mark_seen`): only then may a retried decision
    act on the new text."""

    VERTICAL_BREAKPOINTS = SHORT_BREAKPOINTS

    BINDINGS = [
        Binding("escape,enter", "close", "Close", id="dialog.close"),
        *(
            Binding(key, f"scroll_body('{key}')", show=False)
            for key in ("up", "down", "pageup", "pagedown", "home", "end")
        ),
    ]

    def __init__(
        self,
        path: str,
        message: str,
        current: str | None,
        *,
        before: str | None = None,
        change: DiskChange | None = None,
    ) -> None:
        super().__init__()
        self._path = path
        self._message = message
        self._current = current
        self._before = before
        self.change = change

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(f"{self._path} changed on disk"), classes="dialog-title")
            yield Static(plain(self._message), classes="dialog-message")
            with VerticalScroll(id="changed-body"):
                yield Label(
                    "What changed since it was shown (- as you saw it, + as it is now):", classes="changed-label"
                )
                yield DiffView(self._before, self._current, id="changed-diff")
                yield Label("The whole text now:", classes="changed-label")
                with Vertical(id="changed-text"):
                    yield Static(
                        plain(self._current if self._current is not None else "(the file is gone or unreadable)")
                    )
            yield Button("Close \\[esc]", id="close")

    def on_mount(self) -> None:
        # focused, the body scrolls with the arrows and page keys (escape or enter closes)
        self.query_one("#changed-body", VerticalScroll).focus()

    def action_scroll_body(self, key: str) -> None:
        """The arrows, page keys, home and end scroll the body whatever has the focus (the Close button too)."""
        body = self.query_one("#changed-body", VerticalScroll)
        scroll = {
            "up": body.action_scroll_up,
            "down": body.action_scroll_down,
            "pageup": body.action_page_up,
            "pagedown": body.action_page_down,
            "home": body.action_scroll_home,
            "end": body.action_scroll_end,
        }
        scroll[key]()

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        """Back to the store (already reloaded): the change counts as seen."""
        if self.change is not None:
            self.change.mark_seen()
        self.dismiss(None)


class KeptEditDialog(ModalScreen[str | None]):
    """An edit that was not saved (the file changed underneath, the text was refused, or it holds what looks like a
    secret the person would not commit): the person's typed text is kept, editable and with line numbers (a refusal
    names a line), beside what is on disk now (with what changed there since `before`, the text the edit started
    from). `ctrl+s` tries to save it again; `escape` drops it."""

    VERTICAL_BREAKPOINTS = SHORT_BREAKPOINTS

    BINDINGS = [
        Binding("ctrl+s", "save", "Save my text", id="dialog.save", priority=True),
        Binding("escape", "cancel", "Drop my text", id="dialog.cancel", priority=True),
    ]

    def __init__(self, path: str, message: str, current: str | None, typed: str, before: str | None = None) -> None:
        super().__init__()
        self._path = path
        self._message = message
        self._current = current
        self.typed = typed
        self._before = before

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(f"{self._path}: not saved, your text is kept"), classes="dialog-title")
            yield Static(plain(self._message), classes="dialog-message")
            with Horizontal(id="kept-sides"):
                with Vertical(classes="kept-side"):
                    yield Label("On disk now", classes="merge-source-title")
                    with VerticalScroll(id="kept-current"):
                        if self._before is not None and self._current is not None and self._before != self._current:
                            yield Label(
                                "What changed since you opened it (- as you opened it, + as it is now):",
                                classes="changed-label",
                            )
                            yield DiffView(self._before, self._current, id="kept-diff")
                            yield Label("The whole text now:", classes="changed-label")
                        yield Static(
                            plain(self._current if self._current is not None else "(the file is gone or unreadable)")
                        )
                with Vertical(classes="kept-side"):
                    yield Label("Your text (ctrl+s saves · esc drops)", classes="merge-source-title")
                    yield TextArea(
                        self.typed, id="kept-typed", soft_wrap=True, tab_behavior="indent", show_line_numbers=True
                    )

    def on_mount(self) -> None:
        self.query_one("#kept-typed", TextArea).focus()

    def action_save(self) -> None:
        """Try to save the typed text (as edited here) over what is on disk now."""
        self.dismiss(self.query_one("#kept-typed", TextArea).text)

    def action_cancel(self) -> None:
        """Drop the typed text; the file stays as it is on disk."""
        self.dismiss(None)


class FixDateDialog(TypedAhead, ModalScreen[str | None]):
    """A relative date and what it meant: the line before and after the fix, and the day it was counted from.
    Nothing is written until the person confirms; the answer is the text written in place of the phrase, as the
    line after showed it. memtui's proposal is offered as the finding says it (a range as a range: "October 2026");
    the person may type a day instead, or for a range a month (2026-10) or a year (`dates.written_as`). When the day
    it was written is not known, nothing is offered and the person types the date it meant.

    Every line the fix writes (`plan`) is read from the store's history, which on a long one takes a while: given
    `preview` instead of a plan, the dialog opens at once on the finding's own line and reads the plan in a worker.
    Once read, the plan's proposal and base replace the finding's, unless the person typed over the offer. What is
    typed meanwhile stays; enter (or the button) pressed meanwhile writes once the plan is read and shown, with the
    lines it names, and typing after it takes that enter back (so does a proposal the plan changed)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(
        self,
        title: str,
        phrase: str,
        context: str,
        proposal: str,
        base: str = "",
        plan: DateFix | None = None,
        *,
        preview: Callable[[], DateFix] | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self.phrase = phrase
        self.context_line = context
        self.offered = (plan.proposal or "") if plan is not None else proposal
        """What memtui offers in place of the phrase: the finding's until the plan is read, then the plan's."""
        self.base = counted_line(plan) if plan is not None else base
        self.ranged = names_range(phrase)
        self.plan = plan
        """Every line the fix writes (`ops.fix_date_preview`): shown before and after, and nothing else written."""
        self._preview = preview if plan is None else None
        self.confirmed_early = False
        """Enter was pressed while the plan was being read: the date is written once it is shown."""
        self._confirmed_value = ""
        """The date as it was when enter was pressed early."""

    @property
    def reading(self) -> bool:
        """Whether the plan is still being read (nothing can be written until it is)."""
        return self.plan is None and self._preview is not None

    def before_lines(self) -> str:
        """The lines the fix changes, as they are now."""
        if self.plan is None or len(self.plan.lines) < 2:
            return f"before  {self.context_line}"
        return "\n".join(f"before  line {fix.number}: {fix.text.strip()}" for fix in self.plan.lines)

    def compose(self) -> ComposeResult:
        forms = "a day YYYY-MM-DD, a month YYYY-MM or a year YYYY" if self.ranged else "YYYY-MM-DD"
        with Vertical(classes="dialog"):
            yield Label(plain(f"Fix a relative date in {self._title}"), classes="dialog-title")
            with VerticalScroll(id="fix-lines"):  # a daily log may say the phrase many times: every line is shown
                yield Static(plain(self.before_lines()), id="fix-phrase", classes="dialog-message")
                yield Static(plain(self.after_line(self.offered)), id="fix-after", classes="dialog-message")
            yield Static(plain(self.others()), id="fix-others", classes="dialog-message")
            yield Static(plain(self.base), id="fix-base", classes="dialog-message")
            yield Static(plain(self.status()), id="fix-status", classes="dialog-message")
            # (a Static wraps where a Label was cut at the dialog's edge: "… a month YYYY-MM" and no more)
            yield Static(
                plain(f"Replace “{self.phrase}” with this {'' if self.ranged else 'date '}({forms}):"),
                id="fix-ask",
                classes="dialog-message",
            )
            # the proposal is selected once, at mount, so the first key typed replaces it; a focus landing after keys
            # typed ahead must not select (and so throw away) what they wrote
            placeholder = "YYYY-MM-DD, YYYY-MM or YYYY" if self.ranged else "YYYY-MM-DD"
            yield Input(self.offered, placeholder=placeholder, id="fix-date", select_on_focus=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel \\[esc]", id="cancel")
                yield Button(self.button_label(self.offered), id="ok", variant="warning")

    def others(self) -> str:
        """The phrase's occurrences this fix leaves, each counted from another day: their own decision, after it
        ("" when there are none, or the plan is still being read)."""
        left = self.plan.others if self.plan is not None else ()
        if not left:
            return ""
        where = ", ".join(str(n) for n in left)
        more = "1 more" if len(left) == 1 else f"{len(left)} more"
        return (
            f"{more} “{self.phrase}” (line{'s' if len(left) > 1 else ''} {where}) counted from another day: "
            "not written now, its own fix after this one"
        )

    def button_label(self, value: str) -> str:
        """The write button, saying what it writes: "Write the date", "Write the month" ("October 2026")…"""
        try:
            names = what_it_names(self.written(value)) if value.strip() else "date"
        except ValueError:
            names = "date"
        return f"Write the {names} \\[enter]"

    def status(self) -> str:
        """What the dialog is waiting for ("" once every line the fix writes is shown)."""
        if not self.reading:
            return ""
        if self.confirmed_early:
            return "reading history… the date is written once every line it changes is shown"
        return "reading history for every line the fix changes…"

    def written(self, value: str) -> str:
        """The text written in place of the phrase for `value` (`dates.written_as`); ValueError says what fits."""
        return written_as(value, self.phrase, self.offered)

    def after_line(self, value: str) -> str:
        """The line as the fix would leave it with `value` in place of the phrase (as it would be written)."""
        if not value.strip():
            return "after   (type the date it meant)"
        try:
            shown = self.written(value)
        except ValueError:
            shown = value.strip()  # enter refuses it; meanwhile the line shows what is typed
        if self.plan is not None and len(self.plan.lines) > 1:
            return "\n".join(f"after   line {fix.number}: {fix.after(shown).strip()}" for fix in self.plan.lines)
        if self.plan is not None and self.plan.lines:
            return "after   " + self.plan.lines[0].after(shown).strip()
        return "after   " + self.context_line.replace(self.phrase, shown, 1)

    def on_mount(self) -> None:
        box = self.query_one(Input)
        box.selection = Selection(0, len(box.value))
        box.focus()
        self.query_one("#fix-base", Static).display = bool(self.base)
        self.query_one("#fix-others", Static).display = bool(self.others())
        self._show_status()
        if self._preview is not None and self.reading:
            self._read_plan(self._preview)

    @work(thread=True, exclusive=True, group="fix-date-preview", exit_on_error=False, description="Reading history")
    def _read_plan(self, preview: Callable[[], DateFix]) -> None:
        try:
            plan = preview()
        except Exception as exc:  # any failure is said and closes the dialog: never a silent, endless "reading…"
            said = exc.describe() if isinstance(exc, MemtuiError) else f"{type(exc).__name__}: {exc}"
            self.post_message(ThreadSaid(lambda: self._plan_failed(said)))
            return
        self.post_message(ThreadSaid(lambda: self._plan_read(plan)))

    @on(ThreadSaid)
    def _thread_said(self, message: ThreadSaid) -> None:
        message.stop()
        message.callback()

    def _plan_read(self, plan: DateFix) -> None:
        if self.plan is not None or not self.is_attached:
            return  # closed meanwhile (its worker's answer comes late): nothing to show, nothing to write
        self.plan = plan
        if plan.lines:
            self.context_line = plan.lines[0].text.strip()
        box, offer = self.query_one(Input), plan.proposal or ""
        if offer != self.offered and box.value.strip() == self.offered:
            # the finding's offer, not typed over, is not what the plan proposes (the file changed since, or the
            # finding is older): the plan's takes its place, and an enter pressed on the old one is taken back
            if self.confirmed_early:
                self.confirmed_early = False
                self.notify("memtui worked the date out again from the file as it is now: look, then enter")
            box.value = offer
            box.selection = Selection(0, len(offer))
        self.offered = offer
        self.base = counted_line(plan)
        base = self.query_one("#fix-base", Static)
        base.update(plain(self.base))
        base.display = bool(self.base)
        self.query_one("#fix-phrase", Static).update(plain(self.before_lines()))
        self.query_one("#fix-after", Static).update(plain(self.after_line(box.value)))
        others = self.query_one("#fix-others", Static)
        others.update(plain(self.others()))
        others.display = bool(self.others())
        self.query_one("#ok", Button).label = self.button_label(box.value)
        self._show_status()
        if self.confirmed_early:
            self.confirmed_early = False
            self._confirm()

    def _plan_failed(self, said: str) -> None:
        if not self.is_attached:
            return
        self.app.notify(said, title="Fix date", severity="error")
        self.dismiss(None)

    def _show_status(self) -> None:
        status = self.query_one("#fix-status", Static)
        status.update(plain(self.status()))
        status.display = self.reading

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.query_one("#fix-after", Static).update(plain(self.after_line(event.value)))
        self.query_one("#ok", Button).label = self.button_label(event.value)
        # typing after enter: the person is not done with the date (the change messages of keys typed before enter
        # can arrive after it, each with the value of its time: only another value now takes the enter back)
        if self.confirmed_early and event.input.value.strip() != self._confirmed_value:
            self.confirmed_early = False
            self._show_status()

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _confirm(self) -> None:
        raw = self.query_one(Input).value.strip()
        if not raw:
            self.notify("Type the date it meant, like 2026-12-03 (or esc to leave it)", severity="warning")
            return
        try:
            written = self.written(raw)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        if self.reading:
            self.confirmed_early = True
            self._confirmed_value = raw
            self._show_status()
            return
        self.dismiss(written)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without writing."""
        self.dismiss(None)


def counted_line(plan: DateFix) -> str:
    """The fix-date dialog's line on the day `plan`'s date was counted from, or why no date is offered."""
    base = plan.base
    if base is None:
        return ""
    return _counted(base.date.isoformat() if base.date else None, base.source, base.certain, plan.withheld)


def _counted(base: str | None, source: str, certain: bool, after_today: str | None) -> str:
    if after_today:
        return (
            f"counted from {base} ({source}, perhaps the day it was copied) it is {after_today}, after "
            "today: type the date it meant"
        )
    if base and certain:
        return f"counted from {base}, {source}"
    return f"when this was written is not known ({source}): type the date it meant" if source else ""


def fix_date_dialog(
    memory: Memory,
    details: Mapping[str, object],
    line: int | None,
    plan: DateFix | None = None,
    *,
    preview: Callable[[], DateFix] | None = None,
) -> FixDateDialog:
    """The fix-date dialog for a relative-date finding: the line it is on (the finding's, else the first holding the
    phrase), what it offers (`replacement`, a day or a range as the finding says it; none when the day it was
    written is not known, or is only the first commit and the date is in the future) and the day it was counted
    from. Every line the fix writes is `plan`, or read by `preview` (`ops.fix_date_preview`, reading git history) in
    the dialog's worker, off the UI thread; its proposal and base then replace the finding's."""
    phrase = str(details.get("phrase") or "")
    proposal = str(details.get("replacement") or details.get("suggestion") or "")
    lines = memory.text.splitlines()
    context = lines[line - 1].strip() if line and 0 < line <= len(lines) and phrase in lines[line - 1] else ""
    context = context or next((text.strip() for text in lines if phrase and phrase in text), "")
    base = details.get("base")
    after_today = details.get("after_today")
    said = _counted(
        str(base) if base else None,
        str(details.get("base_source") or ""),
        bool(details.get("base_certain")),
        str(after_today) if after_today else None,
    )
    if plan is not None and plan.lines:
        context = plan.lines[0].text.strip()
    return FixDateDialog(memory.title, phrase, context, proposal, said, plan, preview=preview)


HELP = "\n".join(
    [
        "memtui — curate an agent's long-term memory. Every decision is a git commit you can undo.",
        "",
        help_line(
            "1 2 3 4 5",
            "Focus the User, Feedback, Project, Reference or Other pane (Other: untyped and malformed memories)",
        ),
        help_line("0", "Focus the preview, to scroll it"),
        help_line("tab shift+tab", "Move the focus to the next or previous pane"),
        help_line("↑ ↓ j k", "Move in a pane"),
        help_line("g G", "Go to the first or last memory of the pane"),
        help_line(
            "/", "Filter every pane by name, description, file name and text (enter keeps the filter, escape clears it)"
        ),
        help_line(
            "a",
            "Archive: move the selected memory, or every marked one, out of what the agent loads; asks for the reason history will show",
        ),
        help_line(
            "space", "Mark the selected memory; a, v and m then act on every marked memory (the header counts them)"
        ),
        help_line(
            "m",
            "Merge the marked memories, or the selected one with its duplicate, into one memory (a dialog shows them side by side)",
        ),
        help_line("e", "Edit the memory here (ctrl+s saves, escape cancels)"),
        help_line("E", "Edit the memory in $EDITOR (malformed files too)"),
        help_line("v", "Verify: the memory is still true; stamps last_verified, so it counts as fresh again"),
        help_line("f", 'Fix a relative date such as "next Thursday": shows the line before and after, and asks first'),
        help_line("u", "Undo the last decision (press again to undo the one before)"),
        help_line("U", "Redo what the last undo reverted"),
        help_line("r", "Open the review: everything that needs a decision, one card at a time (its own keys: ? there)"),
        help_line("H", "Open the history of decisions, with the rules that were revoked"),
        help_line("s", "Sort every pane: by name, then age, freshness, number of findings"),
        help_line("n N", "Go to the next or previous memory with a finding, across panes"),
        help_line("ctrl+r", "Read the store from disk again"),
        help_line("ctrl+p", "Open the command palette: every action of this screen, and the theme switcher"),
        help_line("?", "Show this help"),
        help_line("q", "Quit"),
        "",
        "A short terminal shows one pane at a time under a line of tabs (the digits switch); a narrow one shows "
        "every key on one line. Wider than 120 columns, each pane shows the age in days and the description.",
        "",
        "Badges: fresh · aging (past half its period) · stale · expired · standing (feedback never decays)",
        "Flags: " + LEGEND,
    ]
)


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it was opened from: a row per key whose sentence wraps to the terminal's width (under
    itself, never under the keys), then the notes, each a paragraph that reflows."""

    VERTICAL_BREAKPOINTS = SHORT_BREAKPOINTS

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, title: str = "Keys", text: str = "") -> None:
        super().__init__()
        self._title = title
        self.text = text or HELP

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(self._title), classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                for block in help_blocks(self.text):
                    if isinstance(block, tuple):
                        with Horizontal(classes="help-row"):
                            yield Static(plain(block[0]), classes="help-keys")
                            yield Static(plain(block[1]), classes="help-does")
                    else:
                        yield Static(plain(block), classes="help-note")

    def on_mount(self) -> None:
        # focused, the list scrolls with the arrows, page keys, home and end on a terminal too short for it
        self.query_one("#help-scroll", VerticalScroll).focus()

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


class ConfirmRisky(ConfirmDialog):
    """A yes/no question where only an explicit `y` (or the Yes button) means yes; `enter` means no."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape,enter", "answer(False)", "No", id="confirm.no"),
    ]


class WelcomeScreen(ModalScreen[str | None]):
    """The first run: what memtui is, why this folder shows nothing, and what to do next.

    Shown when the folder cannot be read, holds no memory files yet, or is outside git. Answers `continue`,
    `init` (put the store under git) or `quit`.
    """

    BINDINGS = [
        Binding("enter,escape", "answer('continue')", "Continue", id="welcome.continue"),
        Binding("i", "answer('init')", "Put under git", id="welcome.init"),
        Binding("q", "answer('quit')", "Quit", id="welcome.quit"),
    ]

    def __init__(self, path: str, *, error: str = "", empty: bool = False, in_git: bool = True) -> None:
        super().__init__()
        self.path = path
        self.error = error
        self.empty = empty
        self.in_git = in_git
        self.text = self._explain()

    def _explain(self) -> str:
        parts = [
            "memtui curates the memory folder Claude Code writes as it works (auto-memory): one Markdown file per "
            "memory with YAML front matter, and a MEMORY.md index the agent loads. Every decision you make here "
            "is a git commit you can undo.",
        ]
        if self.error:
            parts.append(
                f"memtui could not open {self.path}:\n  {self.error}\n\nStart it with a project's memory "
                "folder, for example:\n  memtui ~/.claude/projects/-home-me-myapp/memory"
            )
        elif self.empty:
            parts.append(
                f"{self.path} holds no memory files yet. Claude Code writes them there as it learns about "
                "you and the project; memtui watches the folder and shows them as they arrive."
            )
        if not self.error and not self.in_git:
            parts.append(
                "This folder is not in git yet, so decisions cannot be recorded or undone. Press i to "
                "create a repository that versions only the store and its archive."
            )
        parts.append("To look around first: memtui --demo opens a demo store with real-looking findings.")
        return "\n\n".join(parts)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label("Welcome to memtui", classes="dialog-title")
            yield Static(plain(self.text), id="welcome-text", classes="dialog-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Quit \\[q]", id="quit")
                if not self.error and not self.in_git:
                    yield Button("Put under git \\[i]", id="init", variant="primary")
                yield Button("Continue \\[enter]", id="continue", variant="primary")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`i` only when there is a folder to put under git."""
        if action == "answer" and parameters == ("init",):
            return not self.error and not self.in_git
        return True

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)

    def action_answer(self, value: str) -> None:
        """Close with the choice."""
        self.dismiss(value)
