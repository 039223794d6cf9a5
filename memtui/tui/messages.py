"""Messages that cross the app: what worker threads say to the UI thread."""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message


class ThreadSaid(Message):
    """A worker thread asks the app to run something on the UI thread.

    Workers never block on the UI (`call_from_thread` waits for an answer and can hang forever when the app
    closes at that moment); they post this and move on.
    """

    def __init__(self, callback: Callable[[], object]) -> None:
        super().__init__()
        self.callback = callback
