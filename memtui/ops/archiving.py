"""Archive and restore, one memory or several in one decision.

Archiving moves a memory out of the loaded folder into the archive (its front matter stamped with lines
added only), takes its line out of MEMORY.md and adds one to the archive's index. Restoring is the reverse,
and puts back the MEMORY.md line exactly as it was at archive time (git keeps it: the archive commit's
parent), at its old place when that place still exists; only when it is unknown is a line built from the
memory's description. A bulk decision is all-or-nothing: every file is read and checked before anything is
written, and any refusal (changed on disk, malformed, a secret) leaves the store as it was.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from memtui.audit.repo import message
from memtui.core import frontmatter
from memtui.core import index as idx
from memtui.core.model import Memory
from memtui.core.reading import decode, read_memory
from memtui.ops.index_edit import (
    archive_index_add,
    archive_index_remove,
    encode_like,
    index_add,
    index_remove,
    index_retarget,
)
from memtui.ops.linking import note_links_to, read_store
from memtui.ops.outcome import OpError, OpResult, refuse_secrets
from memtui.ops.paths import archived_path, distinct_names, safe_path
from memtui.ops.transaction import Txn, decision, load, scan_bytes

STAMP_KEYS = ("status", "archived_at", "archived_reason", "superseded_by", "merged_into")
RESTORED_FROM_GIT = "git"
"""`Memtui-Restored-From` of a memory `bring_back` wrote back from git after a deletion (not from the archive)."""


def _stamp(text: str, updates: dict[str, str]) -> str:
    def render(value: str) -> str:
        # an ISO date stays a YAML date, as Claude Code and people write them
        return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else frontmatter.yaml_scalar(value)

    return frontmatter.set_keys(text, {k: render(v) for k, v in updates.items() if v})


def archive_one(txn: Txn, path: Path, data: bytes, memory: Memory, reason: str, stamps: dict[str, str]) -> Path:
    """Move one memory into the archive: stamp its front matter (lines added only), move its index line.

    The memory moves with one rename after its index line is gone and before the archive's index names it,
    so a kill at any point leaves a store whose indexes point only at files that exist.
    """
    first = txn.layout.archived_path(path)
    dest = first
    n = 2
    while dest.exists() or dest.is_symlink() or dest in txn.touched:
        dest = first.with_name(_copy_name(path, n, txn.layout.archive_suffix))
        n += 1
    if memory.is_malformed or not memory.has_frontmatter:
        new_data = data  # never rewrite what could not be parsed, and never add front matter to a file without one
        if memory.is_malformed:
            txn.notes.append(f"{memory.path} could not be parsed; archived whole, unchanged")
    else:
        text = memory.text
        new_text = _stamp(
            text, {"status": "archived", "archived_at": txn.today.isoformat(), "archived_reason": reason, **stamps}
        )
        new_data = encode_like(new_text, data)
    # each step leaves a consistent store (no index line to a missing file, never the memory twice or nowhere)
    index_remove(txn, {path})
    txn.move(path, dest, expected=data)
    if new_data != data:
        txn.write(dest, new_data, expected=data)
    archive_index_add(txn, dest, memory.title, reason)
    return dest


def refuse_moved_secrets(txn: Txn, moved: Sequence[tuple[Path, bytes, Path]], how: str) -> None:
    """Refuse (unless allowed) to commit memories moved from one path to another (`how`: "archived as",
    "restored to") whose text looks like it holds a secret, naming each where the person knows it: its path
    before the move and the line there, as `check` names it.

    The commit's own check would name the file where it went, with its line shifted by the stamp lines memtui
    added or removed: a place the person never saw, which a refused decision does not even leave behind.
    """
    if txn.allow_secret:
        return
    leaks = [
        f"{txn.rel(source)}:{hit.line} ({hit.label}; {how} {txn.rel(dest)})"
        for source, data, dest in moved
        for hit in scan_bytes(data)
    ]
    refuse_secrets(
        leaks,
        what="the change would commit",
        advice="remove it first",
        cli_hint="or pass --allow-secret if it is not one",
    )


def _required_reason(reason: str, files: Sequence[str]) -> str:
    if not reason or not reason.strip():
        raise OpError(f"{', '.join(files)}: a reason is required to archive a memory (it is what history will say)")
    return reason.strip()


def archive(
    store: Path,
    file: str,
    *,
    reason: str,
    superseded_by: str | None = None,
    expected_hash: str | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Archive a memory: move it out of the loaded folder with its reason, one commit."""
    why = _required_reason(reason, [file])
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file, read_for="archive" if expected_hash else None)
        successor = None
        if superseded_by:
            successor = safe_path(txn.layout, superseded_by)
            if successor == path:
                raise OpError(f"{file} cannot be superseded by itself")
        memory, data = load(txn, path, expected_hash)
        note_links_to(txn, read_store(txn), [memory.path])  # the links stay: said, never refused
        stamps = {"superseded_by": txn.rel(successor)} if successor else {}
        if successor is not None:
            _successor_takes_the_line(txn, path, successor)
        dest = archive_one(txn, path, data, memory, why, stamps)
        refuse_moved_secrets(txn, [(path, data, dest)], "archived as")
        trailers = [
            ("Memtui-Memory", txn.repo.rel(path)),
            ("Memtui-Reason", reason),
            ("Memtui-Archived-To", txn.repo.rel(dest)),
        ]
        if successor:
            trailers.append(("Memtui-Superseded-By", txn.repo.rel(successor)))
        sha = txn.commit(message("archive", path.name, reason, trailers))
        return txn.result("archive", sha, f"archived {memory.path} → {txn.rel(dest)}", (memory.path, txn.rel(dest)))


def _successor_takes_the_line(txn: Txn, path: Path, successor: Path) -> None:
    """A successor MEMORY.md does not list takes the line of the memory it supersedes, where it stands: archiving
    only took that line out, and the agent then loaded neither (a trial's archive left both out of the index)."""
    index_path = txn.layout.index_path
    if not index_path.is_file() or not successor.is_file():
        return
    text = decode(index_path.read_bytes())
    if idx.has_entry(text, index_path.parent, successor) or not idx.has_entry(text, index_path.parent, path):
        return
    after = read_memory(successor, txn.rel(successor), in_archive=False)
    if after.is_malformed:
        return
    index_retarget(txn, {path}, successor, after.title, after.description)
    txn.notes.append(f"MEMORY.md lists {txn.rel(successor)} where it listed {txn.rel(path)} (it did not list it)")


def archive_many(
    store: Path,
    files: Sequence[str],
    *,
    reason: str,
    expected_hashes: Mapping[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Archive several memories as one decision (one commit naming each); any refusal archives none of them."""
    names = distinct_names(files, "archive")
    if len(names) == 1:
        one = (expected_hashes or {}).get(names[0])
        return archive(store, names[0], reason=reason, expected_hash=one, allow_secret=allow_secret, today=today)
    why = _required_reason(reason, names)
    expected = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        paths = [safe_path(txn.layout, f, read_for="archive" if f in expected else None) for f in names]
        loaded = [load(txn, p, expected.get(f)) for p, f in zip(paths, names, strict=True)]
        for memory, _ in loaded:
            if memory.is_malformed:
                raise OpError(
                    f"{memory.path} could not be parsed ({memory.error}); archive it on its own (it is moved whole) "
                    "— nothing was archived"
                )
        note_links_to(txn, read_store(txn), [memory.path for memory, _ in loaded])
        moved = [
            (path, archive_one(txn, path, data, memory, why, {}))
            for path, (memory, data) in zip(paths, loaded, strict=True)
        ]
        refuse_moved_secrets(
            txn, [(p, data, d) for (p, d), (_, data) in zip(moved, loaded, strict=True)], "archived as"
        )
        trailers = [("Memtui-Memory", txn.repo.rel(p)) for p, _ in moved]
        trailers.append(("Memtui-Reason", reason))
        trailers += [("Memtui-Archived-To", txn.repo.rel(d)) for _, d in moved]
        sha = txn.commit(message("archive", f"{len(moved)} memories", reason, trailers))
        written = [txn.rel(p) for p, _ in moved] + [txn.rel(d) for _, d in moved]
        return txn.result("archive", sha, f"archived {len(moved)} memories: {', '.join(names)}", written)


def _restore_one(txn: Txn, path: Path, data: bytes, memory: Memory, planned: set[Path]) -> Path:
    """Move one archived memory back (stamps removed) and put its MEMORY.md line back as it was."""
    layout = txn.layout
    dest = layout.live_path(path)
    if dest.exists() or dest.is_symlink() or dest in planned:
        raise OpError(f"{txn.rel(dest)} already exists; archive or rename it before restoring {memory.path}")
    planned.add(dest)
    if memory.has_frontmatter and not memory.is_malformed:
        new_data = encode_like(frontmatter.remove_keys(memory.text, list(STAMP_KEYS)), data)
    else:
        new_data = data
    archive_index_remove(txn, path)
    txn.move(path, dest, expected=data)
    if new_data != data:
        txn.write(dest, new_data, expected=data)
    if not _index_put_back(txn, path, dest):
        restored = read_memory(dest, txn.rel(dest), in_archive=False)
        index_add(txn, dest, restored.title, restored.description)
    return dest


def _index_line_when_archived(txn: Txn, archived: Path, live: Path) -> tuple[list[str], int] | None:
    """MEMORY.md's lines just before `live` was archived to `archived`, and the number of the line linking to it.

    Read from git: the newest commit that added the archived file, against its parent. None when unknown
    (no such commit, a shallow clone, no line then).
    """
    repo = txn.repo
    index_path = txn.layout.index_path
    if not repo.has_head() or not repo.owns(repo.rel(index_path)):
        return None
    added = repo.git("log", "-n1", "--diff-filter=A", "--format=%H", "--", repo.rel(archived), check=False)
    commit = added.stdout.decode("ascii", "replace").strip() if added.returncode == 0 else ""
    parent = repo.resolve(commit + "^") if commit else None
    if not commit or parent is None:
        return None
    old = repo.show(parent, repo.rel(index_path))
    if old is None:
        return None
    lines = [raw.rstrip("\r\n") for raw in decode(old).splitlines(keepends=True)]
    for number, raw in enumerate(lines):
        entry = idx.parse_entry(raw, number + 1)
        if entry is None or idx.is_url(entry.target):
            continue
        if Path(os.path.normpath(index_path.parent / entry.target)) == live:
            return lines, number
    return None


def _place(old: list[str], number: int, now: list[str]) -> int | None:
    """Where the line `old[number]` goes back into `now`: after the line it followed, else before the one it
    preceded, else after an earlier neighbour (blank lines do not place); None when no neighbour is left."""
    if number > 0 and old[number - 1].strip() and old[number - 1] in now:
        return now.index(old[number - 1]) + 1
    for later in old[number + 1 :]:
        if later.strip() and later in now:
            return now.index(later)
    for earlier in reversed(old[:number]):
        if earlier.strip() and earlier in now:
            return now.index(earlier) + 1
    return None


def _index_put_back(txn: Txn, archived: Path, live: Path) -> bool:
    """Re-insert the exact MEMORY.md line `live` had when it was archived; False when that line is unknown."""
    index_path = txn.layout.index_path
    if not index_path.is_file():
        return True  # no index to put it back into (today's rule: memtui does not create one)
    found = _index_line_when_archived(txn, archived, live)
    if found is None:
        return False
    old, number = found
    data = index_path.read_bytes()
    text = decode(data)
    if idx.has_entry(text, index_path.parent, live):
        return True
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    at = _place(old, number, [raw.rstrip("\r\n") for raw in lines])
    if at is None:
        new = idx.add_entry(text, old[number])
    else:
        if at > 0 and not lines[at - 1].endswith(("\n", "\r")):
            lines[at - 1] += nl
        lines.insert(at, old[number] + nl)
        new = "".join(lines)
    txn.write(index_path, encode_like(new, data), expected=data)
    return True


def restore(
    store: Path,
    file: str,
    *,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Bring an archived memory back into the loaded folder and the index: the reverse of archive."""
    return restore_many(
        store,
        [file],
        expected_hashes={file: expected_hash} if expected_hash else None,
        allow_secret=allow_secret,
        today=today,
    )


def bring_back(store: Path, file: str, *, allow_secret: bool = False, today: dt.date | None = None) -> OpResult:
    """Write back a memory deleted from the loaded folder (by the agent, or by hand), as it was last committed, in
    one commit (`restore`): nobody decided that deletion. The deletion itself is recorded first, as the agent's
    write, like every change found on disk. Refused when a file is there now, or git never had one there; its
    MEMORY.md line, if the agent took it out too, is for the person to add back (`index`).

    Refused too when the memory is not deleted but in the archive: the commit that took it out of the loaded
    folder moved it there (memtui's archive or merge, or an undone restore) and that copy is still there. A second,
    live copy would leave it both loaded and retired (the archive's index and `history --revoked` would still
    list it), and putting it back is undoing a person's decision, which goes through `restore` (it puts the index
    line back and takes the archive's out): the refusal names the archived file to restore."""
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file, must_exist=False)
        if path.exists() or path.is_symlink():
            raise OpError(f"{txn.rel(path)} is there: nothing to bring back; nothing was changed")
        name = txn.repo.rel(path)
        data = txn.repo.last_version(name)
        if data is None:
            raise OpError(f"{txn.rel(path)}: git never had such a memory; nothing to bring back; nothing was changed")
        archived = archived_copy(txn, path, name)
        if archived is not None:
            where = txn.rel(archived)
            raise OpError(
                f"{txn.rel(path)} was not deleted but archived, as {where}: restore it from the archive (the history's "
                "R), which takes it out of the archive and puts its index line back; nothing was changed",
                title="In the archive",
                cli_hint=f"memtui restore {shlex.quote(str(txn.layout.root))} {shlex.quote(where)}",
            )
        txn.write(path, data)
        trailers = [("Memtui-Memory", name), ("Memtui-Restored-From", RESTORED_FROM_GIT)]
        sha = txn.commit(message("restore", path.name, "brought back as it was last committed", trailers))
        return txn.result("restore", sha, f"brought back {txn.rel(path)}", [txn.rel(path)])


def archived_copy(txn: Txn, path: Path, name: str) -> Path | None:
    """The archived copy of a memory gone from the loaded folder, when the commit that took it away moved it into
    the archive (an archive, a merge, an undone restore: each adds it there under its name, or its name numbered
    `-2`…) and it is still there; None when nothing committed its deletion (the agent's, on disk only) or the
    deletion put it nowhere in the archive."""
    repo, layout = txn.repo, txn.layout
    if repo.show("HEAD", name) is not None:
        return None  # the deletion is not committed: memtui commits every move it makes
    commit = repo.deleted_in(name)
    if commit is None:
        return None
    first = layout.archived_path(path)
    for status, rel in repo.commit_paths(commit):
        added = repo.work_tree / rel
        if status != "A" or added.parent != first.parent or not added.is_file():
            continue
        if added.name == first.name or _is_copy_name(added.name, path, layout.archive_suffix):
            return added
    return None


def _copy_name(path: Path, n: int, suffix: str) -> str:
    """The archive's name for the `n`th memory archived under `path`'s name (`rule-2.md`): the first keeps it."""
    return f"{path.stem}-{n}.md{suffix}"


def _is_copy_name(name: str, path: Path, suffix: str) -> bool:
    """Whether `name` is one `_copy_name` gives for `path`, whatever its number."""
    head, tail = f"{path.stem}-", f".md{suffix}"
    number = name[len(head) : len(name) - len(tail)] if name.startswith(head) and name.endswith(tail) else ""
    return number.isdigit() and _copy_name(path, int(number), suffix) == name


def restore_many(
    store: Path,
    files: Sequence[str],
    *,
    expected_hashes: Mapping[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Restore several archived memories as one decision (one commit naming each); any refusal restores none."""
    names = distinct_names(files, "restore")
    expected = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        paths = [archived_path(txn.layout, f) for f in names]
        loaded = [load(txn, p, expected.get(f), archive=True) for p, f in zip(paths, names, strict=True)]
        planned: set[Path] = set()
        moved = [
            (path, _restore_one(txn, path, data, memory, planned))
            for path, (memory, data) in zip(paths, loaded, strict=True)
        ]
        refuse_moved_secrets(
            txn, [(p, data, d) for (p, d), (_, data) in zip(moved, loaded, strict=True)], "restored to"
        )
        trailers = [("Memtui-Memory", txn.repo.rel(d)) for _, d in moved]
        trailers += [("Memtui-Restored-From", txn.repo.rel(p)) for p, _ in moved]
        subject = moved[0][1].name if len(moved) == 1 else f"{len(moved)} memories"
        sha = txn.commit(message("restore", subject, "", trailers))
        restored = [txn.rel(d) for _, d in moved]
        return txn.result("restore", sha, f"restored {', '.join(restored)}", restored)
