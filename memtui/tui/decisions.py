"""A decision and its outcome: what the screens ask the app to do, and what came of it.

A screen never assumes a decision happened. It asks the app (`Decide` message), the app runs the operation
in a worker, and the screen gets an `Outcome` back: committed (with the commit id), unchanged (nothing to
write), refused (with the reason the person can act on) or failed (an unexpected error, with what to do next).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memtui import ops
from memtui.audit.repo import open_repo
from memtui.core import frontmatter
from memtui.core.errors import MemtuiError
from memtui.core.model import Memory
from memtui.core.store import detect_layout
from memtui.review import undone_commits
from memtui.workspace import Workspace

Status = Literal["committed", "unchanged", "refused", "failed"]
Operation = Callable[[bool, dt.date | None], ops.OpResult]
"""An operation to run; its arguments are `allow_secret` (True only after the person confirmed) and the day a
stamp or commit says (None: the real today, read when the operation runs)."""


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
    title: str = ""
    """The refusal's title (`MemtuiError.title`: "Store busy", "Looks like a secret", ...)."""

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
            label, "refused", exc.message, changed_path=exc.path, current_text=exc.current_text, title=exc.title
        )
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


def follow_changed(hashes: dict[str, str], outcome: Outcome, ws: Workspace | None) -> None:
    """After a refusal because a file changed on disk (the person was shown what is there now, over the dialog
    they decide in), a new try from that dialog decides on the file as it is now: its expected hash moves on."""
    path = outcome.changed_path
    if path in hashes and ws is not None and (now := ws.store.get(path)) is not None:
        hashes[path] = now.content_hash


def keep_final_newline(original: str, new: str) -> str:
    """The new text ends with a newline when the original did (a text box easily drops it)."""
    if original.endswith(("\n", "\r")) and not new.endswith(("\n", "\r")):
        return new + frontmatter.newline_of(original)
    return new


def merge_text(memories: Sequence[Memory], into: str) -> str:
    """The merged text the merge dialog starts from: `ops.default_merge_text`, the one the CLI writes too."""
    return ops.default_merge_text(memories, into)
