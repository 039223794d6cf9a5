"""Messages that cross the app: what worker threads say to the UI thread, and what screens ask of the app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from textual.message import Message

from memtui.review import Card
from memtui.tui.decisions import Operation, Outcome
from memtui.tui.review_cursor import ReviewSession
from memtui.workspace import Workspace


class ThreadSaid(Message):
    """A worker thread asks the app to run something on the UI thread.

    Workers never block on the UI (`call_from_thread` waits for an answer and can hang forever when the app
    closes at that moment); they post this and move on.
    """

    def __init__(self, callback: Callable[[], object]) -> None:
        super().__init__()
        self.callback = callback


class Decide(Message):
    """A screen asks the app for a decision; `on_outcome` is called on the UI thread with what came of it.

    The app runs the operation in a worker, reloads the store when something was committed (so the screen's
    next card is drawn from the store as it is now), offers to proceed after an explicit confirmation when the
    change was refused for a secret, and only then answers.
    """

    def __init__(
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
        super().__init__()
        self.label = label
        self.operation = operation
        self.on_outcome = on_outcome
        self.typed = typed
        """The text the person typed, for an edit: kept and offered again when the save is refused."""
        self.path = path
        """The memory an edit writes (with `typed`)."""
        self.base = base
        """The text an edit started from: when the save is refused because the file changed meanwhile, the person's
        changes are joined with the change on disk where they do not touch (`core.three_way`)."""
        self.in_dialog = in_dialog
        """A dialog that stays open says a refusal itself (`on_outcome` tells it), so no notification covers it."""
        self.asked_on: Workspace | None = None
        """The store on screen when the app took the request (set by the app): what the person was looking at."""


class WorkspaceChanged(Message):
    """The app read the store again; screens showing it redraw from `ws` and its review queue."""

    def __init__(self, ws: Workspace, cards: list[Card]) -> None:
        super().__init__()
        self.ws = ws
        self.cards = cards


class Host(Protocol):
    """What a screen may read from the app that hosts it (screens never import the app module)."""

    ws: Workspace | None
    cards: list[Card]
    store_path: Path
    review_session: ReviewSession | None
    editor_runner: Callable[[Path], None]
    """Opens a file in the person's editor (`$VISUAL`, `$EDITOR`) with the app suspended."""
