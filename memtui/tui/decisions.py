"""A decision and its outcome: what the screens ask the app to do, and what came of it.

A screen never assumes a decision happened. It asks the app (`Decide` message), the app runs the operation
in a worker, and the screen gets an `Outcome` back: committed (with the commit id), unchanged (nothing to
write), refused (with the reason the person can act on) or failed (an unexpected error, with what to do next).
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memtui import ops
from memtui.audit.history import undone_commits
from memtui.audit.repo import open_repo
from memtui.core import frontmatter
from memtui.core.errors import MemtuiError
from memtui.core.model import Memory
from memtui.core.store import detect_layout

Status = Literal["committed", "unchanged", "refused", "failed"]
Operation = Callable[[bool, dt.date | None], ops.OpResult]
"""An operation to run; its arguments are `allow_secret` (True only after the person confirmed) and the day a
stamp or commit says (None: the real today, read when the operation runs)."""


class DiskChange:
    """A file that changed on disk under a decision, as its refusal found it, and whether the person saw it.

    `before_hash` is the version the decision expected (the one the person saw; whoever asked for the decision
    says which, `expected`), `now` the file as the store was read right after the refusal. The app shows the person
    what changed (`ChangedDialog`); only once they closed that view (`seen`) do the followers run (`when_seen`):
    a dialog's retry moves on to `now`, a review card draws it. A version never shown is never decided on: until
    then a retry still expects the old version, and ops refuses it again.
    """

    def __init__(self, path: str, current_text: str | None) -> None:
        self.path = path
        self.current_text = current_text
        """The text the refusal read (`now` is preferred: it comes with the hash a retry needs)."""
        self.now: Memory | None = None
        """The memory as the store was read after the refusal (None: gone, or not read)."""
        self.before_hash: str | None = None
        """The version the decision expected (the person saw), once its asker said it."""
        self.seen = False
        self._texts: dict[str, str] = {}
        self._followers: list[Callable[[DiskChange], None]] = []

    @property
    def now_text(self) -> str | None:
        """The text there now, as shown."""
        return self.now.text if self.now is not None else self.current_text

    @property
    def now_hash(self) -> str | None:
        """The version a retry may act on once this was seen (None: none, the file is gone or was not read)."""
        return self.now.content_hash if self.now is not None else None

    @property
    def before_text(self) -> str | None:
        """The text of the version the decision expected, when its asker knew it."""
        return self._texts.get(self.before_hash) if self.before_hash is not None else None

    def expected(self, content_hash: str, text: str | None = None) -> None:
        """Say which version the decision expected, with its text when known. The last to say it wins: a screen
        names the version it showed, then the dialog the decision was made in names the one it sent to ops."""
        self.before_hash = content_hash
        if text is not None:
            self._texts[content_hash] = text

    def when_seen(self, follower: Callable[[DiskChange], None]) -> None:
        """Run `follower` once the person has been shown this change (now, if they already have)."""
        if self.seen:
            follower(self)
        else:
            self._followers.append(follower)

    def mark_seen(self) -> None:
        """The person closed the view of this change: its followers run, once."""
        if self.seen:
            return
        self.seen = True
        followers, self._followers = self._followers, []
        for follower in followers:
            follower(self)


def diff_lines(before: str, after: str) -> list[str]:
    """What changed from `before` to `after`, as unified diff lines (`-` removed, `+` added, `@@` where)."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "shown", "now", n=2, lineterm="")
    return [line for line in lines if not line.startswith(("--- shown", "+++ now"))]


@dataclass(frozen=True)
class Outcome:
    """What came of one decision."""

    label: str
    status: Status
    message: str
    commit: str | None = None
    result: ops.OpResult | None = None
    secret: bool = False
    """Refused because the change would commit a secret (the person may confirm and proceed)."""
    changed_path: str | None = None
    """Refused because this file changed on disk since it was shown."""
    current_text: str | None = None
    change: DiskChange | None = field(default=None, compare=False)
    """With `changed_path`: the change, to be shown to the person before any retry may act on it."""
    title: str = ""
    """The refusal's title (`MemtuiError.title`: "Store busy", "Looks like a secret", ...)."""
    gone_path: str | None = None
    """Refused because this file was deleted on disk since it was shown: nothing is left to decide, no retry can
    act (the store is read again, so the screens follow)."""

    @property
    def committed(self) -> bool:
        """Whether a commit exists for this decision."""
        return self.status == "committed" and self.commit is not None

    @property
    def ok(self) -> bool:
        """Committed, or nothing needed writing."""
        return self.status in ("committed", "unchanged")


def run(label: str, operation: Operation, *, allow_secret: bool = False, today: dt.date | None = None) -> Outcome:
    """Run an operation and say what came of it; never raises."""
    try:
        result = operation(allow_secret, today)
    except ops.ChangedOnDisk as exc:
        return Outcome(
            label,
            "refused",
            exc.message,
            changed_path=exc.path,
            current_text=exc.current_text,
            title=exc.title,
            change=DiskChange(exc.path, exc.current_text),
        )
    except ops.DeletedOnDisk as exc:
        return Outcome(label, "refused", exc.message, title=exc.title, gone_path=exc.path)
    except ops.SecretRefused as exc:
        return Outcome(label, "refused", exc.message, secret=True, title=exc.title)
    except MemtuiError as exc:  # every refusal a person can act on: ops, the lock, git, the store
        return Outcome(label, "refused", exc.message, title=exc.title)
    except OSError as exc:
        return Outcome(label, "failed", f"{exc}; check the folder's permissions and free space, then try again")
    except Exception as exc:  # an unexpected bug must reach the screen, not die in a worker
        return Outcome(
            label,
            "failed",
            f"{type(exc).__name__}: {exc} — nothing was committed by this step; "
            "reload (ctrl+p, store: Reload) and try again, or run `memtui check` for details",
        )
    if result.commit is None:
        return Outcome(label, "unchanged", result.summary, result=result)
    return Outcome(label, "committed", result.summary, commit=result.commit, result=result)


def undo_own(store: Path, commit: str, *, today: dt.date | None = None) -> ops.OpResult:
    """Undo `commit` only if it is the newest memtui decision not yet undone; refuse otherwise."""
    layout = detect_layout(store)
    repo = open_repo(layout)
    events = repo.history(limit=2000)
    undone = undone_commits(events)
    newest = next((e for e in events if e.action in ops.UNDOABLE and e.commit not in undone), None)
    if newest is None or newest.commit != commit:
        what = f"{newest.action} of {newest.memory} ({newest.commit[:8]})" if newest else "nothing"
        raise ops.OpError(
            f"the newest decision in this store is not from this review ({what}); "
            "undo it from the main screen (u) first if you mean to"
        )
    return ops.undo(store, today=today)


def follow_changed(hashes: dict[str, str], outcome: Outcome) -> None:
    """After a refusal because a file changed on disk, a new try from the same dialog decides on the version the
    person was then shown, and only once it was shown: `hashes` (the versions the decision expects) move on when
    the person closes the view of the change, never before (a retry meanwhile is refused again).

    `hashes` also say which version the person saw, so the view can show what changed since."""
    change = outcome.change
    if change is None or change.path not in hashes:
        return
    change.expected(hashes[change.path])

    def follow(seen: DiskChange) -> None:
        if seen.now_hash is not None:
            hashes[seen.path] = seen.now_hash

    change.when_seen(follow)


def keep_final_newline(original: str, new: str) -> str:
    """The new text ends with a newline when the original did (a text box easily drops it)."""
    if original.endswith(("\n", "\r")) and not new.endswith(("\n", "\r")):
        return new + frontmatter.newline_of(original)
    return new


def edited_in_editor(runner: Callable[[Path], None], text: str) -> str:
    """`text` as the person left it in their editor: written to a temporary file that `runner` (the app's
    `editor_runner`: `$VISUAL` or `$EDITOR` with the app suspended) opens, then read back; the file is removed.

    Raises Textual's `SuspendNotSupported` when the terminal cannot hand over to an editor."""
    fd, name = tempfile.mkstemp(prefix="memtui-", suffix=".md")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        runner(tmp)
        return tmp.read_text(encoding="utf-8")
    finally:
        tmp.unlink(missing_ok=True)


def merge_text(memories: Sequence[Memory], into: str) -> str:
    """The merged text the merge dialog starts from: `ops.default_merge_text`, the one the CLI writes too."""
    return ops.default_merge_text(memories, into)
