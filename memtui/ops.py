"""Every action a person takes on a store: the only code in memtui that writes.

Each public function is one decision and one git commit limited to the store's files. Every one of them:
re-reads the file and refuses when it changed since the caller read it (the agent writes while people
curate); commits what the agent wrote since the last commit on its own first (`Memtui-Actor: agent`); writes
atomically (temp file + rename); keeps MEMORY.md and ARCHIVE.md consistent; never rewrites a file it could
not parse except to archive it whole; refuses paths that leave the store; refuses to commit a secret unless
told to; and holds the store's lock while it works. The CLI and the TUI call these same functions.
"""

from __future__ import annotations

import base64
import datetime as dt
import errno
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memtui.analysis import dates as reldates
from memtui.analysis import secrets
from memtui.audit import repo as gitrepo
from memtui.audit.lock import lock_path, pid_alive, store_lock
from memtui.audit.repo import FileState, NotInGit, StoreRepo, escape_path, message, open_repo, run_git
from memtui.core import frontmatter
from memtui.core import index as idx
from memtui.core.model import MEMORY_TYPES, Memory
from memtui.core.reading import DecodeError, decode, read_memory, sha256
from memtui.core.store import ARCHIVE_INDEX, INDEX_NAME, StoreLayout, detect_layout

ARCHIVE_HEADER = (
    "# Archived memories\n\n"
    "Memories retired with memtui. Claude Code does not load this folder; `git log` says why each one left.\n\n"
)
STAMP_KEYS = ("status", "archived_at", "archived_reason", "superseded_by", "merged_into")


class OpError(Exception):
    """A refused or failed action; the message says what and why, naming the file."""

    exit_code = 2


class ChangedOnDisk(OpError):
    """The file changed since the caller read it; `current_text` is what is there now."""

    def __init__(self, message: str, path: str, current_text: str | None) -> None:
        super().__init__(message)
        self.path = path
        self.current_text = current_text


class SecretRefused(OpError):
    """The change would commit a secret."""


class PathRefused(OpError):
    """A path that is not a memory file inside the store."""


__all__ = [
    "ChangedOnDisk",
    "NotInGit",
    "OpError",
    "OpResult",
    "PathRefused",
    "SecretRefused",
    "archive",
    "edit",
    "finish_review",
    "fix_date",
    "init",
    "keep_both",
    "merge",
    "restore",
    "undo",
    "verify",
]


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


# --------------------------------------------------------------------------------------------- files


def atomic_write(path: Path, data: bytes, *, tmp_dir: Path | None = None) -> None:
    """Write a file through a temp file and a rename, keeping its permissions.

    With `tmp_dir` (the git folder) the temp file lives there, so a kill mid-write leaves no debris in the store;
    when that folder is on another file system the temp file goes beside the target instead.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if tmp_dir is not None and tmp_dir.is_dir():
        try:
            _write_via(tmp_dir / f"memtui-tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}", path, data)
            return
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
    _write_via(path.with_name(f".{path.name[:80]}.memtui-{os.getpid()}-{uuid.uuid4().hex[:6]}.tmp"), path, data)


def _write_via(tmp: Path, path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


TEMP_FILE = re.compile(r"^\..*\.memtui-\d+(-[0-9a-f]+)?\.tmp$")


def _remove_temp_files(layout: StoreLayout) -> list[Path]:
    """Delete temp files a killed memtui left in the store (only memtui's own names; the lock is held)."""
    removed = []
    for folder in {layout.root, layout.scan_root, layout.archive_dir}:
        if not folder.is_dir() or folder.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames:
                if TEMP_FILE.match(name):
                    path = Path(dirpath) / name
                    try:
                        path.unlink()
                        removed.append(path)
                    except OSError:
                        pass
    return removed


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def check_new_name(rel: str) -> None:
    """Refuse a name memtui would create but could not show or name safely: control characters, hidden, empty."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in rel):
        raise PathRefused(
            f"{escape_path(rel)}: a new file name with control characters (newline, tab, escape) is refused"
        )
    name = rel.rstrip("/").rsplit("/", 1)[-1]
    if not name or name.startswith(".") or name in (".md",):
        raise PathRefused(
            f"{escape_path(rel) or repr(rel)}: hidden or empty file names are not memories (memtui's scan skips them)"
        )


def safe_path(layout: StoreLayout, rel: str, *, archive: bool = False, must_exist: bool = True) -> Path:
    """The absolute path of a store-relative memory path, refusing anything that leaves the store.

    Refused: absolute paths, `..` that climbs out, symlinks that point outside, non-Markdown files, and
    (unless `archive`) files in the archive.
    """
    if not rel or "\0" in rel:
        raise PathRefused("no file named")
    if not must_exist:
        check_new_name(rel)
    if os.path.isabs(rel):
        raise PathRefused(f"{rel}: absolute paths are refused; name the file relative to the store")
    candidate = Path(os.path.normpath(layout.root / rel))
    allowed = [layout.scan_root] + ([layout.archive_dir] if archive else [])
    if not any(_inside(candidate, a) for a in allowed):
        raise PathRefused(f"{escape_path(rel)}: outside the store {layout.root}")
    in_archive = _inside(candidate, layout.archive_dir)
    if in_archive and not archive:
        raise PathRefused(f"{escape_path(rel)}: that memory is archived; restore it first")
    name = candidate.name
    if in_archive and layout.archive_suffix:
        if not name.endswith(layout.archive_suffix):
            raise PathRefused(
                f"{escape_path(rel)}: not an archived memory (archived files end in {layout.archive_suffix})"
            )
        name = name[: -len(layout.archive_suffix)]
    if name in (INDEX_NAME, ARCHIVE_INDEX):
        raise PathRefused(f"{escape_path(rel)}: that is an index, not a memory")
    if not name.endswith(".md"):
        raise PathRefused(f"{escape_path(rel)}: not a Markdown memory file")
    if candidate.exists() or candidate.is_symlink():
        real = candidate.resolve()
        if not any(_inside(real, a.resolve()) for a in allowed):
            raise PathRefused(f"{rel}: a symlink pointing outside the store ({real})")
    elif must_exist:
        raise PathRefused(f"{rel}: no such memory in {layout.root}")
    return candidate


# --------------------------------------------------------------------------------------------- transaction


@dataclass
class _Txn:
    """One decision in progress: the repo, what memtui wrote (for commit and rollback), and notes for the person.

    `before` holds each written file's bytes before memtui's first write (None: it did not exist) and `after`
    what memtui left there (None: deleted). Both are journaled in the git folder before each write, so a
    killed action is rolled back (or, if its commit landed, just tidied) by the next one.
    """

    layout: StoreLayout
    repo: StoreRepo
    today: dt.date
    allow_secret: bool
    before: dict[Path, bytes | None] = field(default_factory=dict)
    after: dict[Path, bytes | None] = field(default_factory=dict)
    versions: dict[Path, list[str]] = field(default_factory=dict)
    """Fingerprints of every state memtui left a file in during this decision (a kill may land between two)."""
    agent_commit: str | None = None
    notes: list[str] = field(default_factory=list)
    journal: Path | None = None

    @property
    def touched(self) -> set[Path]:
        """Every file memtui wrote or deleted in this decision."""
        return set(self.after)

    def rel(self, path: Path) -> str:
        return self.layout.rel(path)

    def read(self, path: Path, expected_hash: str | None) -> bytes:
        """Current bytes of a file, refusing if they no longer match what the caller saw."""
        data = path.read_bytes()
        if expected_hash is not None and sha256(data) != expected_hash:
            try:
                current = decode(data)
            except DecodeError:
                current = None
            raise ChangedOnDisk(
                f"{self.rel(path)} changed on disk since it was read (the agent may have rewritten it); "
                "nothing was changed — look at the new text and decide again",
                self.rel(path),
                current,
            )
        return data

    def _check(self, path: Path, expected: bytes | None) -> None:
        now = path.read_bytes() if path.exists() else None
        if now != expected:
            raise ChangedOnDisk(
                f"{self.rel(path)} changed on disk while memtui was writing; nothing was changed", self.rel(path), None
            )

    def _remember(self, path: Path, before: bytes | None, after: bytes | None) -> None:
        if path not in self.before:
            self.before[path] = before
        self.after[path] = after
        self.versions.setdefault(path, []).append(_fingerprint(after))
        self._write_journal()

    def write(self, path: Path, data: bytes, *, expected: bytes | None = None) -> None:
        """Write atomically, first checking the file still holds `expected` (None: it must not exist)."""
        if path.is_symlink() or path.parent.is_symlink():
            raise PathRefused(f"{self.rel(path)}: a symlink; memtui does not write through links")
        self._check(path, expected)
        self._remember(path, expected, data)
        atomic_write(path, data, tmp_dir=self.repo.git_dir)

    def delete(self, path: Path, *, expected: bytes) -> None:
        """Delete a file, first checking it still holds `expected`."""
        self._check(path, expected)
        self._remember(path, expected, None)
        path.unlink()

    def rollback(self) -> None:
        """Put back what memtui changed — only files that still hold exactly what memtui wrote."""
        kept = []
        for path in self.after:
            now = path.read_bytes() if path.exists() else None
            if _fingerprint(now) not in self.versions.get(path, []):
                if now != self.before.get(path):
                    kept.append(self.rel(path))
                continue
            old = self.before.get(path)
            if old is None:
                path.unlink()
            else:
                atomic_write(path, old, tmp_dir=self.repo.git_dir)
        if kept:
            self.notes.append("left as they are (changed by someone else meanwhile): " + ", ".join(kept))
        self.before.clear()
        self.after.clear()
        self.versions.clear()
        self._clear_journal()

    def check_secrets(self, msg: str = "") -> None:
        """Refuse (unless allowed) when any byte memtui is about to commit — files or message — looks like a secret."""
        if self.allow_secret:
            return
        leaks = []
        for path, data in self.after.items():
            if data is not None:
                leaks += [f"{self.rel(path)}:{h.line} ({h.label})" for h in scan_bytes(data)]
            leaks += [f"the file name {self.rel(path)} ({h.label})" for h in secrets.scan(path.name)]
        if msg:
            leaks += [f"the commit message, line {h.line} ({h.label})" for h in secrets.scan(msg)]
        if leaks:
            raise SecretRefused(
                "refused: the change would commit what looks like a secret: "
                + ", ".join(leaks)
                + " — remove it first, or pass --allow-secret if it is not one"
            )

    def commit(self, msg: str) -> str | None:
        """Commit exactly the bytes memtui wrote (scanned first), nothing else."""
        self.check_secrets(msg)
        files = {
            self.repo.rel(p): (None if data is None else FileState(data, _mode_of(p))) for p, data in self.after.items()
        }
        sha = self.repo.commit_files(msg, files)
        self.before.clear()
        self.after.clear()
        self.versions.clear()
        self._clear_journal()
        self._note_identity()
        return sha

    def _note_identity(self) -> None:
        for note in (self.repo.identity_note, self.repo.index_note):
            if note and note not in self.notes:
                self.notes.append(note)
        self.repo.index_note = ""

    def _write_journal(self) -> None:
        if self.journal is None:
            return
        entries = [
            {
                "path": os.fsencode(str(p)).decode("latin-1"),
                "before": None if self.before[p] is None else base64.b64encode(self.before[p] or b"").decode(),
                "after": _fingerprint(a),
                "versions": self.versions.get(p, []),
            }
            for p, a in self.after.items()
        ]
        atomic_write(
            self.journal, json.dumps({"pid": os.getpid(), "files": entries}).encode(), tmp_dir=self.repo.git_dir
        )

    def _clear_journal(self) -> None:
        if self.journal is not None:
            try:
                self.journal.unlink()
            except FileNotFoundError:
                pass


def _fingerprint(data: bytes | None) -> str:
    return "absent" if data is None else hashlib.sha256(data).hexdigest()


def _mode_of(path: Path) -> str:
    try:
        return "100755" if os.stat(path).st_mode & 0o111 else "100644"
    except OSError:
        return "100644"


def scan_bytes(data: bytes) -> list[secrets.SecretHit]:
    """Secret hits in any bytes: as UTF-8 (bad bytes replaced), and with NULs dropped (UTF-16 text)."""
    text = data.decode("utf-8", "replace")
    hits = secrets.scan(text)
    if b"\0" in data:
        hits += secrets.scan(data.replace(b"\0", b"").decode("utf-8", "replace"))
    return hits


def _recover(txn: _Txn) -> None:
    """Finish or undo an action a kill interrupted: roll back its files (if its commit never landed), tidy up."""
    txn.repo.finish_interrupted_syncs()
    removed = _remove_temp_files(txn.layout)
    for private in [*txn.repo.git_dir.glob("memtui-index-*"), *txn.repo.git_dir.glob("memtui-tmp-*")]:
        pid = private.name.split("-")[2] if private.name.count("-") >= 3 else ""
        if pid.isdigit() and not pid_alive(int(pid)):
            try:
                private.unlink()
            except OSError:
                pass
    if removed:
        txn.notes.append(f"removed {len(removed)} temp file(s) left by an interrupted memtui action")
    journal = txn.journal
    if journal is None or not journal.exists():
        return
    try:
        state = json.loads(journal.read_bytes())
        entries = state["files"]
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink()
        return
    head = txn.repo.head()
    rolled, rels = 0, []
    for entry in entries:
        path = Path(os.fsdecode(entry["path"].encode("latin-1")))
        rel = txn.repo.rel(path)
        rels.append(rel)
        now = path.read_bytes() if path.exists() else None
        if _fingerprint(now) not in entry.get("versions", [entry.get("after")]):
            continue  # not what memtui left there: someone else wrote it since, leave it
        committed = txn.repo.show(head, rel) if head else None
        if committed == now:
            continue  # the commit landed before the kill: nothing to undo
        before = entry["before"]
        if before is None:
            if path.exists():
                path.unlink()
        else:
            atomic_write(path, base64.b64decode(before), tmp_dir=txn.repo.git_dir)
        rolled += 1
    try:
        txn.repo.sync_index([r for r in rels if txn.repo.owns(r)])
    except NotInGit:
        pass
    journal.unlink()
    if rolled:
        txn.notes.append(f"an interrupted memtui action was rolled back ({rolled} file(s) put back as they were)")


def _record_agent_writes(txn: _Txn, *, session: str | None = None) -> None:
    """Commit what the agent wrote since the last commit, on its own, so history separates it from decisions.

    `session` (Claude Code's session id, from the hook) becomes a `Memtui-Session` trailer.

    Every byte is scanned (any file type, decodable or not, and the file's name); files that look like they
    hold a secret are left out and named in a note.
    """
    changed = txn.repo.changed_paths()
    if not changed:
        return
    withheld = []
    files: dict[str, FileState | None] = {}
    for rel in changed:
        path = txn.repo.work_tree / rel
        if path.is_symlink():
            data, mode = os.fsencode(os.readlink(path)), "120000"
        elif path.is_file():
            data, mode = path.read_bytes(), _mode_of(path)
        elif not path.exists():
            files[rel] = None
            continue
        else:
            continue  # a folder (nested repository): not memtui's to record
        if scan_bytes(data) or secrets.scan(rel):
            withheld.append(rel)
            continue
        files[rel] = FileState(data, mode)
    if withheld:
        shown = [escape_path(w) if not secrets.scan(w) else "(a file whose name looks like a secret)" for w in withheld]
        txn.notes.append("not recorded (holds a secret): " + ", ".join(shown))
    if not files:
        return
    names = list(files)
    body = "Files the agent wrote or changed since memtui last committed:\n" + "\n".join(
        f"- {escape_path(p)}" for p in names[:200]
    )
    msg = f"memtui: record agent writes ({len(names)} file{'s' if len(names) != 1 else ''})\n\n{body}\n\nMemtui-Actor: agent\n"
    for rel in names[:50]:
        msg += f"Memtui-Memory: {escape_path(rel)}\n"
    if session:
        msg += f"Memtui-Session: {gitrepo.one_line(session)}\n"
    txn.agent_commit = txn.repo.commit_files(msg, files)


def _refuse_links(layout: StoreLayout) -> None:
    """The symlink rule for the parts memtui writes besides memories: indexes and the archive folder."""
    parts = [layout.index_path, layout.archive_index_path, layout.archive_dir]
    if layout.kind == "typed":
        parts.append(layout.scan_root)
    for part in parts:
        if part.is_symlink():
            raise PathRefused(
                f"{part} is a symlink; memtui does not write through links (it could write outside "
                "the store) — replace it with the real file or folder"
            )


@contextmanager
def _decision(
    store: Path, *, allow_secret: bool = False, today: dt.date | None = None, session: str | None = None
) -> Iterator[_Txn]:
    layout = detect_layout(store)
    _refuse_links(layout)
    repo = open_repo(layout)
    if not repo.owns(repo.rel(layout.archive_dir)):
        raise OpError(
            f"the archive {layout.archive_dir} lies outside the repository at {repo.work_tree}; "
            "memtui cannot record decisions there"
        )
    lock = lock_path(repo.git_dir, layout.root)
    with store_lock(lock):
        repo.refuse_unsafe_state()
        txn = _Txn(
            layout=layout,
            repo=repo,
            today=today or dt.date.today(),
            allow_secret=allow_secret,
            journal=lock.with_name(lock.stem + ".journal"),
        )
        _recover(txn)
        if repo.detached():
            txn.notes.append("HEAD is detached: this decision is committed on no branch (create one to keep it)")
        _record_agent_writes(txn, session=session)
        try:
            yield txn
        except BaseException:
            txn.rollback()
            raise


def _load(txn: _Txn, path: Path, expected_hash: str | None, *, archive: bool = False) -> tuple[Memory, bytes]:
    data = txn.read(path, expected_hash)
    memory = read_memory(path, txn.rel(path), in_archive=archive)
    return memory, data


# --------------------------------------------------------------------------------------------- index edits


def _index_remove(txn: _Txn, targets: set[Path]) -> None:
    index_path = txn.layout.index_path
    if not index_path.is_file():
        return
    data = index_path.read_bytes()
    text = decode(data)
    new = idx.remove_entries(text, index_path.parent, targets)
    if new != text:
        txn.write(index_path, _encode_like(new, data), expected=data)


def _index_add(txn: _Txn, memory_path: Path, title: str, hook: str) -> None:
    index_path = txn.layout.index_path
    if not index_path.is_file():
        return
    data = index_path.read_bytes()
    text = decode(data)
    if idx.has_entry(text, index_path.parent, memory_path):
        return
    target = Path(os.path.relpath(memory_path, index_path.parent)).as_posix()
    txn.write(
        index_path, _encode_like(idx.add_entry(text, idx.entry_line(title, target, _hook(hook))), data), expected=data
    )


def _hook(text: str, limit: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _archive_index_add(txn: _Txn, archived: Path, title: str, reason: str) -> None:
    path = txn.layout.archive_index_path
    data = path.read_bytes() if path.exists() else None
    text = decode(data) if data is not None else ARCHIVE_HEADER
    target = Path(os.path.relpath(archived, path.parent)).as_posix()
    line = idx.entry_line(title, target, f"{txn.today.isoformat()} · {_hook(reason, 140)}")
    new = idx.add_entry(text, line)
    txn.write(path, _encode_like(new, data), expected=data if data is not None else None)


def _archive_index_remove(txn: _Txn, archived: Path) -> None:
    path = txn.layout.archive_index_path
    if not path.is_file():
        return
    data = path.read_bytes()
    text = decode(data)
    new = idx.remove_entries(text, path.parent, {archived})
    if new != text:
        txn.write(path, _encode_like(new, data), expected=data)


def _encode_like(text: str, original: bytes | None) -> bytes:
    bom = b"\xef\xbb\xbf" if original is not None and original.startswith(b"\xef\xbb\xbf") else b""
    return bom + text.encode("utf-8")


# --------------------------------------------------------------------------------------------- archive / restore


def _stamp(text: str, updates: dict[str, str]) -> str:
    def render(value: str) -> str:
        # an ISO date stays a YAML date, as Claude Code and people write them
        return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else frontmatter.yaml_scalar(value)

    return frontmatter.set_keys(text, {k: render(v) for k, v in updates.items() if v})


def _archive_one(txn: _Txn, path: Path, data: bytes, memory: Memory, reason: str, stamps: dict[str, str]) -> Path:
    """Move one memory into the archive: stamp its front matter (lines added only), move its index line."""
    first = txn.layout.archived_path(path)
    dest = first
    n = 2
    while dest.exists() or dest.is_symlink():
        dest = first.with_name(f"{path.stem}-{n}.md{txn.layout.archive_suffix}")
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
        new_data = _encode_like(new_text, data)
    txn.write(dest, new_data, expected=None)
    txn.delete(path, expected=data)
    _index_remove(txn, {path})
    _archive_index_add(txn, dest, memory.title, reason)
    return dest


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
    if not reason or not reason.strip():
        raise OpError("a reason is required to archive a memory (it is what history will say)")
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        successor = None
        if superseded_by:
            successor = safe_path(txn.layout, superseded_by)
            if successor == path:
                raise OpError(f"{file} cannot be superseded by itself")
        memory, data = _load(txn, path, expected_hash)
        stamps = {"superseded_by": txn.rel(successor)} if successor else {}
        dest = _archive_one(txn, path, data, memory, reason.strip(), stamps)
        trailers = [
            ("Memtui-Memory", txn.repo.rel(path)),
            ("Memtui-Reason", reason),
            ("Memtui-Archived-To", txn.repo.rel(dest)),
        ]
        if successor:
            trailers.append(("Memtui-Superseded-By", txn.repo.rel(successor)))
        sha = txn.commit(message("archive", path.name, reason, trailers))
        return OpResult(
            "archive",
            sha,
            f"archived {memory.path} → {txn.rel(dest)}",
            (memory.path, txn.rel(dest)),
            txn.agent_commit,
            tuple(txn.notes),
        )


def restore(
    store: Path,
    file: str,
    *,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Bring an archived memory back into the loaded folder and the index: the reverse of archive."""
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        layout = txn.layout
        path = _archived_path(layout, file)
        memory, data = _load(txn, path, expected_hash, archive=True)
        dest = layout.live_path(path)
        if dest.exists() or dest.is_symlink():
            raise OpError(f"{txn.rel(dest)} already exists; archive or rename it before restoring {file}")
        if memory.has_frontmatter and not memory.is_malformed:
            new_data = _encode_like(frontmatter.remove_keys(memory.text, list(STAMP_KEYS)), data)
        else:
            new_data = data
        txn.write(dest, new_data, expected=None)
        txn.delete(path, expected=data)
        _archive_index_remove(txn, path)
        restored = read_memory(dest, txn.rel(dest), in_archive=False)
        _index_add(txn, dest, restored.title, restored.description)
        trailers = [("Memtui-Memory", txn.repo.rel(dest)), ("Memtui-Restored-From", txn.repo.rel(path))]
        sha = txn.commit(message("restore", dest.name, "", trailers))
        return OpResult(
            "restore", sha, f"restored {txn.rel(dest)}", (txn.rel(dest),), txn.agent_commit, tuple(txn.notes)
        )


def _archived_path(layout: StoreLayout, file: str) -> Path:
    candidates = [file]
    archive_rel = Path(os.path.relpath(layout.archive_dir, layout.root)).as_posix()
    if not Path(os.path.normpath(layout.root / file)).is_relative_to(layout.archive_dir):
        candidates.append(f"{archive_rel}/{file}")
    if layout.archive_suffix:
        candidates += [c + layout.archive_suffix for c in list(candidates) if not c.endswith(layout.archive_suffix)]
    for cand in candidates:
        try:
            path = safe_path(layout, cand, archive=True)
        except PathRefused:
            continue
        if _inside(path, layout.archive_dir):
            return path
    raise PathRefused(f"{file}: no such memory in the archive {layout.archive_dir}")


# --------------------------------------------------------------------------------------------- merge


def default_merge_text(memories: Sequence[Memory], into: str | None = None) -> str:
    """The merged memory a person starts from: the target's own text first, then what the others add.

    The target (`into`, a store-relative path) keeps its front matter — its `name` and `description` — and
    its body leads; when `into` is a new file, the newest memory leads. Each other memory's body follows as
    its own paragraphs after a blank line, without the lines the text already holds, so a second **Why:**
    never runs into the first. The result ends with a newline.
    """
    from memtui.core.freshness import explicit_date

    def newness(m: Memory) -> tuple[dt.date, float]:
        return (explicit_date(m)[0] or dt.date.fromtimestamp(m.mtime), m.mtime)

    base = next((m for m in memories if into is not None and m.path == into), None) or max(memories, key=newness)
    nl = frontmatter.newline_of(base.text)
    seen = {line.strip() for line in base.body.splitlines() if line.strip()}
    blocks: list[str] = []
    for m in memories:
        if m is base:
            continue
        block = _new_paragraphs(m.body, seen)
        if block:
            blocks.append(nl.join(block))
    text = base.text
    if not blocks:
        return text if text.endswith(("\n", "\r")) or not text else text + nl
    return text.rstrip("\r\n") + nl + nl + (nl + nl).join(blocks) + nl


def _new_paragraphs(body: str, seen: set[str]) -> list[str]:
    """A body's lines minus those already `seen` (which it adds to), blank runs collapsed, edges trimmed."""
    kept: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if stripped and stripped in seen:
            continue
        if stripped:
            seen.add(stripped)
        elif not kept or not kept[-1].strip():
            continue  # no leading blank line, and never two in a row
        kept.append(line.rstrip("\r"))
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


CHANGE_DATE_KEYS = ("updated", "modified")
"""Front matter keys that say when a memory last changed: an edit or a merge moves them to today."""


def _bump_change_dates(text: str, before: Sequence[Memory], today: dt.date) -> str:
    """Set `updated`/`modified` (top level or under `metadata:`) to today where the text has them.

    Only keys the text already carries are touched (memtui adds no key a memory did not have: its last
    commit dates it then), and a value the person typed themselves — one no source memory had — is kept.
    """
    try:
        data = frontmatter.parse(text).data
    except frontmatter.FrontMatterError:
        return text
    stamp = today.isoformat()
    meta = data.get("metadata")
    for key in CHANGE_DATE_KEYS:
        for under, holder in ((None, data), ("metadata", meta if isinstance(meta, dict) else {})):
            if key not in holder:
                continue
            value = holder[key]
            old_values = [(m.frontmatter if under is None else m.frontmatter.get("metadata") or {}) for m in before]
            if str(value) == stamp or (
                before and not any(isinstance(o, dict) and o.get(key) == value for o in old_values)
            ):
                continue
            text = frontmatter.set_keys(text, {key: stamp}, under=under)
    return text


def _with_final_newline(text: str, like: str | None = None) -> str:
    """`text` ending with a newline (in the file's convention) when `like` did, or always when `like` is None."""
    if not text or text.endswith(("\n", "\r")):
        return text
    if like is not None and not like.endswith(("\n", "\r")):
        return text
    return text + frontmatter.newline_of(like if like else text)


def merge(
    store: Path,
    files: Sequence[str],
    *,
    into: str,
    text: str | None = None,
    reason: str = "",
    expected_hashes: dict[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Merge two or more memories into one: write the merged memory, archive the others, one commit."""
    if len(set(files)) < 2:
        raise OpError("name at least two different memories to merge")
    expected_hashes = expected_hashes or {}
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        layout = txn.layout
        paths = [safe_path(layout, f) for f in files]
        loaded = [_load(txn, p, expected_hashes.get(f)) for p, f in zip(paths, files, strict=True)]
        for memory, _ in loaded:
            if memory.is_malformed:
                raise OpError(f"{memory.path} could not be parsed ({memory.error}); fix or archive it before merging")
        into_rel = into if "/" in into else Path(files[0]).with_name(into).as_posix()
        if not into_rel.endswith(".md"):
            into_rel += ".md"
        target = safe_path(layout, into_rel, must_exist=False)
        if target.exists() and target not in paths:
            raise OpError(f"{into_rel} already exists and is not one of the merged memories; choose another name")
        memories = [m for m, _ in loaded]
        merged_text = text if text is not None else default_merge_text(memories, into=txn.rel(target))
        merged_text = _validate(merged_text, into_rel, require_type=any(m.type for m in memories))
        merged_text = _with_final_newline(merged_text)
        merged_text = _bump_change_dates(merged_text, memories, txn.today)
        others = [p for p in paths if p != target]
        sources = [txn.rel(p) for p in paths if p != target]
        if (
            frontmatter.split_block(merged_text)[0] is not None
            and "merged_from" not in frontmatter.parse(merged_text).data
        ):
            merged_text = frontmatter.set_keys(
                merged_text, {"merged_from": "[" + ", ".join(frontmatter.yaml_scalar(s) for s in sources) + "]"}
            )
        original_target = dict(zip(paths, (d for _, d in loaded), strict=True)).get(target)
        txn.write(target, merged_text.encode("utf-8"), expected=original_target)
        why = reason.strip() or f"merged into {into_rel}"
        for p, (memory, data) in zip(paths, loaded, strict=True):
            if p == target:
                continue
            _archive_one(txn, p, data, memory, why, {"merged_into": into_rel})
        result = read_memory(target, into_rel, in_archive=False)
        _index_add(txn, target, result.title, result.description)
        trailers = [("Memtui-Memory", txn.repo.rel(p)) for p in others]
        trailers += [("Memtui-Merged-Into", txn.repo.rel(target)), ("Memtui-Reason", why)]
        sha = txn.commit(message("merge", f"{len(paths)} memories into {target.name}", why, trailers))
        return OpResult(
            "merge",
            sha,
            f"merged {', '.join(files)} into {into_rel}",
            tuple([into_rel, *sources]),
            txn.agent_commit,
            tuple(txn.notes),
        )


def _validate(text: str, rel: str, *, require_type: bool) -> str:
    try:
        fm = frontmatter.parse(text)
    except frontmatter.FrontMatterError as exc:
        raise OpError(f"{rel}: the new text's {exc}; nothing was saved") from None
    if require_type:
        raw = fm.data.get("type")
        meta = fm.data.get("metadata")
        if raw is None and isinstance(meta, dict):
            raw = meta.get("type")
        if str(raw or "").strip().lower() not in MEMORY_TYPES:
            raise OpError(f"{rel}: the new text must keep a type ({', '.join(MEMORY_TYPES)}); nothing was saved")
    return text


# --------------------------------------------------------------------------------------------- edit / verify / fix-date


def edit(
    store: Path,
    file: str,
    new_text: str,
    *,
    expected_hash: str | None = None,
    reason: str = "",
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Replace a memory's text with the person's edit, validated first: front matter must parse and keep a type."""
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = _load(txn, path, expected_hash)
        if memory.is_malformed and memory.error and "UTF-8" in memory.error:
            raise OpError(f"{memory.path}: {memory.error}; memtui will not rewrite a file it cannot decode")
        _validate(new_text, memory.path, require_type=memory.type is not None)
        nl = frontmatter.newline_of(memory.text) if memory.text else "\n"
        if nl == "\r\n" and "\r\n" not in new_text:
            new_text = new_text.replace("\n", "\r\n")
        # an editor widget drops the final newline; the file keeps the one it had
        new_text = _with_final_newline(new_text, memory.text or None)
        if new_text != memory.text:
            new_text = _bump_change_dates(new_text, [memory], txn.today)
        new_data = _encode_like(new_text, data)
        if new_data == data:
            return OpResult("edit", None, f"{memory.path}: no change", (), txn.agent_commit, tuple(txn.notes))
        txn.write(path, new_data, expected=data)
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("edit", path.name, reason, trailers))
        return OpResult("edit", sha, f"edited {memory.path}", (memory.path,), txn.agent_commit, tuple(txn.notes))


def verify(
    store: Path,
    file: str,
    *,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Mark a memory as still true: stamp `last_verified` with today's date."""
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = _load(txn, path, expected_hash)
        if memory.is_malformed:
            raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
        if not memory.has_frontmatter:
            raise OpError(
                f"{memory.path} has no front matter; memtui does not add one (Claude Code's rule) — edit it instead"
            )
        stamp = txn.today.isoformat()
        under = "metadata" if memory.generation == "B" and "last_verified" not in memory.frontmatter else None
        base_text, dropped = _drop_shadowed_duplicates(memory.text, "last_verified")
        if dropped:
            txn.notes.append(
                f"{memory.path}: `last_verified` appeared {dropped + 1} times; YAML reads only the last, "
                "so the earlier lines were removed and the last one stamped"
            )
        new_text = frontmatter.set_keys(base_text, {"last_verified": stamp}, under=under)
        if new_text == memory.text:
            return OpResult(
                "verify", None, f"{memory.path}: already verified today", (), txn.agent_commit, tuple(txn.notes)
            )
        txn.write(path, _encode_like(new_text, data), expected=data)
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Verified", stamp)]
        sha = txn.commit(message("verify", path.name, "", trailers))
        return OpResult(
            "verify", sha, f"verified {memory.path} ({stamp})", (memory.path,), txn.agent_commit, tuple(txn.notes)
        )


def _drop_shadowed_duplicates(text: str, key: str) -> tuple[str, int]:
    """Remove top-level `key:` lines of the front matter that a later one shadows (YAML keeps the last)."""
    try:
        block, end = frontmatter.split_block(text)
    except frontmatter.FrontMatterError:
        return text, 0
    if block is None:
        return text, 0
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    head = text[: text.index(block)] if block else ""
    lines = block.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if pattern.match(line)]
    if len(hits) < 2:
        return text, 0
    keep = [line for i, line in enumerate(lines) if i not in hits[:-1]]
    return head + "".join(keep) + text[len(head) + len(block) :], len(hits) - 1


def fix_date(
    store: Path,
    file: str,
    *,
    phrase: str | None = None,
    date: dt.date | None = None,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Replace a relative date ("tomorrow", "下周四") with the absolute date it meant (or the one given)."""
    with _decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = _load(txn, path, expected_hash)
        if memory.is_malformed:
            raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
        anchor = txn.repo.first_commit_date(path) or dt.date.fromtimestamp(memory.mtime)
        found = reldates.find_relative_dates(memory.text, anchor)
        hits = [h for h in found if phrase is None or h.phrase == phrase]
        if not hits:
            raise OpError(f"{memory.path}: no relative date{f' {phrase!r}' if phrase else ''} to fix")
        hit = hits[0]
        replacement = date.isoformat() if date else hit.replacement
        if replacement is None:
            raise OpError(f"{memory.path}: cannot work out the date for {hit.phrase!r}; give one with --date")
        # every place the same phrase appears (a description and its body often repeat it) gets the same text
        lines = memory.text.split("\n")
        for h in hits:
            if h.phrase == hit.phrase:
                lines[h.line - 1] = lines[h.line - 1].replace(hit.phrase, replacement, 1)
        new_text = "\n".join(lines)
        txn.write(path, _encode_like(new_text, data), expected=data)
        reason = f'"{hit.phrase}" → {replacement} (written {anchor.isoformat()})'
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("fix-date", path.name, reason, trailers))
        return OpResult("fix-date", sha, f"{memory.path}: {reason}", (memory.path,), txn.agent_commit, tuple(txn.notes))


# --------------------------------------------------------------------------------------------- undo


UNDOABLE = ("archive", "restore", "merge", "edit", "verify", "fix-date", "keep-both")


def undo(store: Path, *, today: dt.date | None = None) -> OpResult:
    """Revert the newest memtui decision not yet undone, with a commit marked so the next undo goes further back."""
    with _decision(store, allow_secret=True, today=today) as txn:
        repo = txn.repo
        events = repo.history(limit=2000)
        reverted = {sha for e in events if e.action == "undo" for sha in e.trailers.get("Memtui-Reverts", [])}
        target = next((e for e in events if e.action in UNDOABLE and e.commit not in reverted), None)
        if target is None:
            raise OpError("nothing to undo: no memtui decision in this store's history")
        parent = repo.resolve(target.commit + "^")
        if parent is None:
            raise OpError(
                f"cannot undo {target.action} of {target.memory}: the commit before that decision "
                f"({target.commit[:8]}^) is not in this repository (a shallow clone?); nothing was changed"
            )
        changes = repo.commit_paths(target.commit, parent)
        foreign = [p for _, p in changes if not repo.owns(p)]
        if foreign:
            raise OpError(
                f"cannot undo {target.action} of {target.memory}: commit {target.commit[:8]} also changed files outside "
                f"the store ({', '.join(escape_path(f) for f in foreign[:3])}); memtui only undoes its own store changes"
            )
        memtui_commits = {e.commit for e in events}
        touched = [p for _, p in changes]
        later = [c for c in repo.commits_touching(target.commit, touched) if c not in memtui_commits]
        if later:
            raise OpError(
                f"cannot undo {target.action} of {target.memory}: later commits not made by memtui changed the same files "
                f"({', '.join(c[:8] for c in later)}); undo them first or edit by hand"
            )
        plan: list[tuple[Path, bytes | None, bytes | None]] = []
        for status, rel in changes:
            path = repo.work_tree / rel
            at_commit = repo.show(target.commit, rel)
            before = repo.show(parent, rel) if status != "A" else None
            now = path.read_bytes() if path.exists() else None
            if now != at_commit:
                raise OpError(f"cannot undo {target.action}: {rel} changed since that decision; nothing was changed")
            plan.append((path, now, before))
        for path, now, before in plan:
            if before is None:
                if now is not None:
                    txn.delete(path, expected=now)
            else:
                txn.write(path, before, expected=now)
        trailers = [("Memtui-Reverts", target.commit)] + [("Memtui-Memory", m) for m in target.memories]
        msg = message(
            "undo", f"{target.action} of {Path(target.memory).name or 'decision'}", f"Undo {target.subject}", trailers
        )
        sha = txn.commit(msg) if plan else repo.marker_commit(msg)
        return OpResult(
            "undo",
            sha,
            f"undid {target.action} of {target.memory} ({target.commit[:8]})",
            tuple(txn.layout.rel(p) for p, _, _ in plan),
            txn.agent_commit,
            tuple(txn.notes),
        )


# --------------------------------------------------------------------------------------------- review markers


def keep_both(store: Path, a: Memory, b: Memory, *, kind: str, today: dt.date | None = None) -> OpResult:
    """Remember that a person kept both memories of a flagged pair, until either of them changes."""
    with _decision(store, today=today) as txn:
        trailers = [
            ("Memtui-Memory", txn.repo.rel(txn.layout.resolve(a.path))),
            ("Memtui-Memory", txn.repo.rel(txn.layout.resolve(b.path))),
            ("Memtui-Pair-Kind", kind),
            ("Memtui-Hashes", f"{a.content_hash[:16]},{b.content_hash[:16]}"),
        ]
        msg = message(
            "keep-both", f"{Path(a.path).name} and {Path(b.path).name}", f"Both kept: not a {kind}.", trailers
        )
        sha = txn.repo.marker_commit(msg)
        return OpResult("keep-both", sha, f"kept both {a.path} and {b.path}", (), txn.agent_commit, tuple(txn.notes))


def finish_review(store: Path, summary: str, *, today: dt.date | None = None) -> OpResult:
    """Mark a review finished in git, so next week's queue starts from here."""
    with _decision(store, today=today) as txn:
        msg = message("review", "finished", summary, [("Memtui-Reviewed", (today or dt.date.today()).isoformat())])
        sha = txn.repo.marker_commit(msg)
        return OpResult("review", sha, "review finished", (), txn.agent_commit, tuple(txn.notes))


# --------------------------------------------------------------------------------------------- init


GITIGNORE = """# memtui: only the memory store and its archive are versioned here.
/*
!/.gitignore
!/{store}/
!/{archive}/
"""


def init(store: Path) -> OpResult:
    """Put a store that is not in git under git: a repository at the folder holding the store and its archive.

    Every file that would go into the first commit is scanned (any type, decodable or not, and its name).
    """
    layout = detect_layout(store)
    _refuse_links(layout)
    try:
        gitrepo.open_repo(layout)
    except gitrepo.GitFailed as exc:
        raise OpError(str(exc)) from None
    except NotInGit:
        pass
    else:
        raise OpError(f"{layout.root} is already in a git repository; nothing to do")
    top = layout.root.parent if layout.kind == "flat" else layout.root
    leaks = []
    candidates = [layout.index_path] if layout.index_path.is_file() else []
    for folder in (layout.scan_root, layout.archive_dir):
        if folder.is_dir():
            candidates += sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    for file in candidates:
        rel = Path(os.path.relpath(file, top)).as_posix()
        leaks += [f"{escape_path(rel)}:{h.line} ({h.label})" for h in scan_bytes(file.read_bytes())]
        leaks += [f"the file name {escape_path(rel)} ({h.label})" for h in secrets.scan(file.name)]
    if leaks:
        raise SecretRefused(
            "refused: these files look like they hold secrets; remove them before memtui puts the store under git: "
            + ", ".join(leaks)
        )
    run_git(top, ["init", "-q"])
    ignore = top / ".gitignore"
    if layout.kind == "flat":
        content = GITIGNORE.format(store=layout.root.name, archive=layout.archive_dir.name)
    else:
        content = "# memtui: only the memory store is versioned here.\n/*\n!/.gitignore\n!/MEMORY.md\n!/memory/\n!/memory.archive/\n"
    if not ignore.exists():
        atomic_write(ignore, content.encode())
    srepo = open_repo(layout)
    files: dict[str, FileState | None] = {}
    for rel in [".gitignore", *srepo.changed_paths()]:
        path = srepo.work_tree / rel
        if path.is_symlink():
            files[rel] = FileState(os.fsencode(os.readlink(path)), "120000")
        elif path.is_file():
            files[rel] = FileState(path.read_bytes(), _mode_of(path))
    msg = message(
        "init", layout.root.name, "Put the memory store under git.", [("Memtui-Memory", srepo.rel(layout.root))]
    )
    sha = srepo.commit_files(msg, files)
    notes = (srepo.identity_note,) if srepo.identity_note else ()
    return OpResult("init", sha, f"created a git repository at {top} for {layout.root}", (), None, notes)


# --------------------------------------------------------------------------------------------- hook (issue 12)
# Owned by the "hook" branch: the one public entry the PostToolUse hook uses. Keep it a thin wrapper.


def record_agent_write(store: Path, *, session: str | None = None) -> OpResult:
    """Commit what the agent wrote, on its own (`Memtui-Actor: agent`, plus `Memtui-Session` when known).

    The same recording every decision does first (secrets withheld, the same lock, recovery and git-state
    refusals), with nothing decided after it.
    """
    with _decision(store, session=session) as txn:
        pass
    summary = f"recorded the agent's writes: {txn.agent_commit[:8]}" if txn.agent_commit else "nothing to record"
    return OpResult("agent-write", txn.agent_commit, summary, (), txn.agent_commit, tuple(txn.notes))
