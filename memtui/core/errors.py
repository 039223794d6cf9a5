"""The one error type a person sees: a short title and a message naming the file and what is wrong.

Every refusal or failure memtui reports in words derives from `MemtuiError`: ops' refusals, a held store
lock, a store that is not in git, a store that cannot be opened, invalid settings, bad command-line usage.
The CLI prints them in one place (`memtui: TITLE — MESSAGE`, exit `exit_code`: 1 when an action was refused,
2 for usage); the TUI shows them in one
place. Anything else reaching the top is a bug and is reported as one.
"""

from __future__ import annotations

EXIT_REFUSED = 1
"""An action that was refused or failed, nothing written (for `check`, 1 is also "error findings")."""

EXIT_USAGE = 2
"""DESIGN §5: bad arguments, no store to work on, no usable repository, unusable settings."""


class MemtuiError(Exception):
    """A refusal or failure told to the person: `title` (a few words) and the message (what and why, naming the file).

    Subclasses set `title` and, for usage errors, `exit_code = EXIT_USAGE`; an instance may override the title.
    """

    title: str = "Error"
    exit_code: int = EXIT_REFUSED
    cli_hint: str = ""
    """What to do, in the CLI's own terms (an option to pass), printed after the message by the CLI only: the
    TUI offers the same way out as a key or a dialog, and an option name there would mean nothing."""

    def __init__(self, message: str = "", *, title: str | None = None, cli_hint: str = "") -> None:
        super().__init__(message)
        if title is not None:
            self.title = title
        if cli_hint:
            self.cli_hint = cli_hint

    @property
    def message(self) -> str:
        """The message without the title: what went wrong and, where it helps, what to do."""
        return str(self)

    def describe(self) -> str:
        """`TITLE — MESSAGE`, the one line (or block) both front ends show."""
        return f"{self.title} — {self.message}" if self.message else self.title
