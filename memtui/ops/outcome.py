"""What an action says back: its result (`OpResult`) or its refusal (`OpError` and its kinds).

Every refusal is a `MemtuiError` (title + message naming the file), so the CLI and the TUI show it in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memtui.core.errors import MemtuiError


class OpError(MemtuiError):
    """A refused or failed action; the message says what and why, naming the file."""

    title = "Refused"


class ChangedOnDisk(OpError):
    """The file changed since the caller read it; `current_text` is what is there now."""

    title = "Changed on disk"

    def __init__(self, message: str, path: str, current_text: str | None) -> None:
        super().__init__(message)
        self.path = path
        self.current_text = current_text


class DeletedOnDisk(OpError):
    """The file the caller read was deleted since: there is nothing left to decide on, and no retry can act.

    Not a `ChangedOnDisk`: there is no new text to show and decide on again."""

    title = "Deleted on disk"

    def __init__(self, path: str, verb: str) -> None:
        super().__init__(
            f"{path} was deleted on disk since it was read (the agent may have removed it): there is nothing to "
            f"{verb}; nothing was changed"
        )
        self.path = path


class SecretRefused(OpError):
    """The change would commit a secret."""

    title = "Looks like a secret"


class PathRefused(OpError):
    """A path that is not a memory file inside the store."""

    title = "Not a memory of this store"


def refuse_secrets(leaks: Sequence[str], *, what: str, advice: str, cli_hint: str = "") -> None:
    """Raise the one secret refusal: `what` would commit `leaks` (each naming a file and line, or the message).

    The title already says it was refused ("Looks like a secret"); the message says what and where, and
    `cli_hint` the CLI's way past it (the TUI asks instead)."""
    if leaks:
        raise SecretRefused(f"{what} what looks like a secret: " + ", ".join(leaks) + f" — {advice}", cli_hint=cli_hint)


@dataclass(frozen=True)
class OpResult:
    """What an action did."""

    action: str
    commit: str | None
    summary: str
    paths: tuple[str, ...] = ()
    """Store-relative paths written."""
    agent_commit: str | None = None
    """The commit that recorded the agent's writes first, if there were any."""
    notes: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    """Lines for the person to read under the summary (fix-date: each changed line before and after)."""
    warnings: tuple[str, ...] = ()
    """What the decision left undone that the person must not miss (an agent write withheld for a secret): the
    CLI prints them last, on stderr."""
