"""Decisions about decisions: undo, redo, and the review's markers (keep both, a deletion accepted, review
finished).

Undo reverts the newest memtui decision not yet undone; redo re-applies what the newest undo reverted, only
while that undo is the newest decision. Both are one reversal (`_reverse`): put every store file a commit
changed back as it was before that commit, refusing when the commit's parent is missing (a shallow clone),
when it touched files outside the store, or when something else changed those files since. A redo is
recorded as the decision it re-applies (its action and trailers, plus `Memtui-Reapplies`), so history, the
revoked rules and the next undo read it as that decision.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memtui.audit.history import undone_commits
from memtui.audit.repo import Event, escape_path, message
from memtui.audit.trailers import PATH_TRAILERS, TRAILER_PREFIX, unescape_path
from memtui.core import index as idx
from memtui.core.model import Memory
from memtui.core.reading import DecodeError, decode, unstamped_hash
from memtui.ops.archiving import archived_copy
from memtui.ops.index_edit import encode_like
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import safe_path
from memtui.ops.transaction import Txn, decision

ACCEPT_DELETION = "accept-deletion"
"""The action of a deletion accepted (`accept_deletion`): a marker commit naming the deleted memory."""

UNDOABLE = (
    "archive",
    "restore",
    "merge",
    "edit",
    "verify",
    "accept",
    "fix-date",
    "keep-both",
    ACCEPT_DELETION,
    "index",
    "drop-link",
    "relink",
    "redo",
)
"""Decisions undo reverts. A redo is recorded as the decision it re-applies (undoing it takes that decision back
out again); `redo` is the action of redos recorded before that."""

_HISTORY_DEPTH = 2000


def decision_words(event: Event, *, full: bool = False) -> str:
    """A decision in words naming every memory it was about, as undo and redo say it: "archive of a.md",
    "archive of 2 memories: a.md, b.md", "merge of 2 memories: a.md, b.md into c.md". File names only, or with
    `full` the paths as the commit recorded them."""
    names = [m if full else Path(m).name for m in event.memories]
    if not names:
        return event.action
    what = names[0] if len(names) == 1 else f"{len(names)} memories: {', '.join(names)}"
    if event.action == "merge" and event.superseded_by:
        what += f" into {event.superseded_by if full else Path(event.superseded_by).name}"
    return f"{event.action} of {what}"


def _reverse(txn: Txn, target: Event, events: list[Event], verb: str) -> list[Path]:
    """Put back every file `target` changed as it was before it; the paths written. Refuses, writing nothing, when unsafe."""
    repo = txn.repo
    what = decision_words(target, full=True)
    parent = repo.resolve(target.commit + "^")
    if parent is None:
        raise OpError(
            f"cannot {verb} {what}: the commit before that decision "
            f"({target.commit[:8]}^) is not in this repository (a shallow clone?); nothing was changed"
        )
    changes = repo.commit_paths(target.commit, parent)
    foreign = [p for _, p in changes if not repo.owns(p)]
    if foreign:
        raise OpError(
            f"cannot {verb} {what}: commit {target.commit[:8]} also changed files outside "
            f"the store ({', '.join(escape_path(f) for f in foreign[:3])}); memtui only {verb}s its own store changes"
        )
    memtui_commits = {e.commit for e in events}
    touched = [p for _, p in changes]
    later = [c for c in repo.commits_touching(target.commit, touched) if c not in memtui_commits]
    if later:
        raise OpError(
            f"cannot {verb} {what}: later commits not made by memtui changed the same files "
            f"({', '.join(c[:8] for c in later)}); undo them first or edit by hand"
        )
    plan: list[tuple[Path, bytes | None, bytes | None]] = []
    for status, rel in changes:
        path = repo.work_tree / rel
        at_commit = repo.show(target.commit, rel)
        before = repo.show(parent, rel) if status != "A" else None
        now = path.read_bytes() if path.exists() else None
        if now != at_commit:
            raise OpError(f"cannot {verb} {what}: {escape_path(rel)} changed since that decision; nothing was changed")
        plan.append((path, now, before))
    _apply_in_safe_order(txn, plan)
    return [path for path, _, _ in plan]


def _apply_in_safe_order(txn: Txn, plan: list[tuple[Path, bytes | None, bytes | None]]) -> None:
    """Write a reversal so a kill at any point leaves no index line to a missing file and no memory twice.

    First the indexes lose their lines to files about to go, then files go, then files come back, and
    last the indexes get their final text (with lines to the files now back).
    """
    indexes = {txn.layout.index_path, txn.layout.archive_index_path}
    going = {path for path, _, before in plan if before is None and path not in indexes}
    finals: list[tuple[Path, bytes | None, bytes | None]] = []
    for path, now, before in plan:
        if path not in indexes or now is None or before is None:
            continue
        try:
            text = decode(now)
        except DecodeError:
            continue
        thinner = encode_like(idx.remove_entries(text, path.parent, going), now)
        if thinner not in (now, before):
            txn.write(path, thinner, expected=now)
            now = thinner
        finals.append((path, now, before))
    for path, now, before in plan:
        if before is None and now is not None:
            txn.delete(path, expected=now)
    for path, now, before in plan:
        if before is not None and path not in indexes:
            txn.write(path, before, expected=now)
    done = {path for path, _, _ in finals}
    for path, now, before in finals + [e for e in plan if e[0] in indexes and e[0] not in done]:
        if before is not None and now != before:
            txn.write(path, before, expected=now)


def undo(store: Path, *, today: dt.date | None = None) -> OpResult:
    """Revert the newest memtui decision not yet undone, with a commit marked so the next undo goes further back."""
    with decision(store, allow_secret=True, today=today) as txn:
        events = txn.repo.history(limit=_HISTORY_DEPTH)
        reverted = undone_commits(events)
        target = next((e for e in events if e.action in UNDOABLE and e.commit not in reverted), None)
        if target is None:
            raise OpError(f"{txn.layout.root}: nothing to undo: no memtui decision in this store's history")
        written = _reverse(txn, target, events, "undo")
        trailers = [("Memtui-Reverts", target.commit)] + [("Memtui-Memory", m) for m in target.memories]
        # the files a merge relinked are put back too: their history must show the undo beside the merge
        trailers += [("Memtui-Relinked", unescape_path(p)) for p in target.trailers.get("Memtui-Relinked", [])]
        msg = message("undo", decision_words(target), f"Undo {target.subject}", trailers)
        sha = txn.commit(msg) if written else txn.repo.marker_commit(msg)
        summary = f"undid {decision_words(target, full=True)} ({target.commit[:8]})"
        return txn.result("undo", sha, summary, [txn.layout.rel(p) for p in written])


def redo(store: Path, *, today: dt.date | None = None) -> OpResult:
    """Re-apply the decision the newest undo reverted; refused unless that undo is the newest memtui decision."""
    with decision(store, allow_secret=True, today=today) as txn:
        events = txn.repo.history(limit=_HISTORY_DEPTH)
        newest = next((e for e in events if e.action in (*UNDOABLE, "undo")), None)
        if newest is None or newest.action != "undo":
            what = f"the newest decision is {decision_words(newest, full=True)}" if newest else "nothing was undone"
            raise OpError(f"{txn.layout.root}: nothing to redo: {what}, not an undo (redo only follows an undo)")
        reapplied = newest.trailers.get("Memtui-Reverts", [])
        by_commit = {e.commit: e for e in events}
        original = by_commit.get(reapplied[0]) if reapplied else None
        while original is not None and original.action == "redo":  # a redo recorded before redos kept the action
            again = original.trailers.get("Memtui-Reapplies", [])
            original = by_commit.get(again[0]) if again else None
        what = decision_words(original) if original else "decision"
        written = _reverse(txn, newest, events, "redo")
        redone = [("Memtui-Reapplies", reapplied[0] if reapplied else ""), ("Memtui-Redoes", newest.commit)]
        if original is None:
            trailers = redone + [("Memtui-Memory", m) for m in newest.memories]
            msg = message("redo", what, f"Redo what {newest.commit[:8]} undid", trailers)
        else:
            # the same action and trailers as the decision it re-applies: history reads it as that decision again
            msg = message(
                original.action,
                what,
                f"Redo {original.subject}\n{original.reason}",
                _decision_trailers(original) + redone,
                verb="redo",
            )
        sha = txn.commit(msg) if written else txn.repo.marker_commit(msg)
        summary = f"redid {what} (undone in {newest.commit[:8]})"
        return txn.result("redo", sha, summary, [txn.layout.rel(p) for p in written])


def _decision_trailers(event: Event) -> list[tuple[str, str]]:
    """A decision's own `Memtui-*` trailers (paths unescaped, as `message` takes them), without its action and
    without what made it a redo."""
    return [
        (key, unescape_path(value) if key in PATH_TRAILERS else value)
        for key, values in event.trailers.items()
        if key.startswith(TRAILER_PREFIX) and key not in ("Memtui-Action", "Memtui-Reapplies", "Memtui-Redoes")
        for value in values
    ]


def keep_both(store: Path, a: Memory, b: Memory, *, kind: str, today: dt.date | None = None) -> OpResult:
    """Remember that a person kept both memories of a flagged pair, until either of them changes (memtui's own
    verification stamp is no change: `Memtui-Unstamped-Hashes` identify the two texts without it)."""
    # what the person did, not a verdict they never gave: they may keep a true conflict as history
    reason = f"kept both as they are (flagged as a {kind})"
    with decision(store, today=today) as txn:
        trailers = [
            ("Memtui-Memory", txn.repo.rel(txn.layout.resolve(a.path))),
            ("Memtui-Memory", txn.repo.rel(txn.layout.resolve(b.path))),
            ("Memtui-Reason", reason),
            ("Memtui-Pair-Kind", kind),
            ("Memtui-Hashes", f"{a.content_hash[:16]},{b.content_hash[:16]}"),
            ("Memtui-Unstamped-Hashes", f"{unstamped_hash(a)[:16]},{unstamped_hash(b)[:16]}"),
        ]
        msg = message(
            "keep-both", f"{Path(a.path).name} and {Path(b.path).name}", reason[0].upper() + reason[1:], trailers
        )
        sha = txn.repo.marker_commit(msg)
        return txn.result("keep-both", sha, f"kept both {a.path} and {b.path}")


def accept_deletion(store: Path, file: str, *, today: dt.date | None = None) -> OpResult:
    """Accept that a memory was deleted from the loaded folder (by the agent): it stays deleted, and the review's
    card for that deletion is settled, in one commit that writes no file (`accept-deletion`, naming it). The
    deletion itself is recorded first, as the agent's write, like every change found on disk; its last text stays
    in git. Refused when the file is there, or git never had it."""
    with decision(store, today=today) as txn:
        path = safe_path(txn.layout, file, must_exist=False)
        if path.exists() or path.is_symlink():
            raise OpError(f"{txn.rel(path)} is there: it is not deleted; nothing was changed")
        name = txn.repo.rel(path)
        if txn.repo.last_version(name) is None:
            raise OpError(f"{txn.rel(path)}: git never had such a memory; nothing was changed")
        archived = archived_copy(txn, path, name)
        if archived is not None:  # a person's archive or merge moved it: no deletion by the agent to accept
            raise OpError(
                f"{txn.rel(path)} was not deleted but archived, as {txn.rel(archived)}: there is no deletion to accept; "
                "nothing was changed",
                title="In the archive",
            )
        reason = "the agent deleted it; the deletion is accepted (its last text stays in git)"
        trailers = [("Memtui-Memory", name), ("Memtui-Reason", reason)]
        sha = txn.repo.marker_commit(message(ACCEPT_DELETION, path.name, reason[0].upper() + reason[1:], trailers))
        return txn.result(ACCEPT_DELETION, sha, f"accepted the deletion of {txn.rel(path)}")


def finish_review(store: Path, summary: str, *, today: dt.date | None = None) -> OpResult:
    """Mark a review finished in git, so next week's queue starts from here."""
    with decision(store, today=today) as txn:
        msg = message("review", "finished", summary, [("Memtui-Reviewed", (today or dt.date.today()).isoformat())])
        sha = txn.repo.marker_commit(msg)
        return txn.result("review", sha, "review finished")
