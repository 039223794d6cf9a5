"""One decision as a transaction: the store's lock, a journal, the agent's writes first, one commit or a rollback.

`decision()` opens the store, takes its lock, refuses unsafe git states, finishes or rolls back an action a
kill interrupted (`recover`, from the journal in the git folder), records what the agent wrote since the last
commit on its own, and yields a `Txn`. Every write goes through the `Txn` (journaled before it happens); the
commit holds exactly the bytes memtui wrote, scanned for secrets first; any exception rolls back only the
files that still hold what memtui wrote, and takes back the agent's commit made for it: a refused decision
leaves no commit at all.

Every write, delete, rename and put-back checks the file once more as its last step before the rename or unlink
(`Txn._last_check`): its bytes, then its inode, size and times again, so a file someone else wrote meanwhile is
refused (or, in a rollback, left as they wrote it), not overwritten. What remains is honest and small: the time of
one `stat` call and the rename (microseconds), a rewrite to the same size within one tick of the file system's
clock after the bytes were read (the stat cannot see it), and a writer that opened the file before the rename
and writes after it (its bytes go to the replaced file, as with any editor's save-by-rename). Nothing short of a
lock the agent also takes can close these; Claude Code takes none.
"""

from __future__ import annotations

import base64
import datetime as dt
import difflib
import errno
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memtui.analysis import secrets
from memtui.audit import repo as gitrepo
from memtui.audit.lock import LockHeld, lock_path, pid_alive, store_lock
from memtui.audit.repo import FileState, NotInGit, StoreRepo, TakeBack, escape_path, open_repo
from memtui.audit.trailers import AGENT_WRITE_NAMED
from memtui.core.errors import MemtuiError
from memtui.core.model import Memory
from memtui.core.reading import DecodeError, decode, read_memory, sha256
from memtui.core.store import StoreLayout, detect_layout
from memtui.ops.outcome import ChangedOnDisk, DeletedOnDisk, OpError, OpResult, PathRefused, refuse_secrets
from memtui.ops.paths import SYMLINK_TITLE, atomic_write, refuse_links, remove_temp_files, temp_files


@dataclass
class Txn:
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
    typed: dict[Path, str] = field(default_factory=dict)
    """The text the person wrote for a file (an edit's, a merge's), where what memtui writes is not the file as it
    was: a secret the commit would hold is named at its line there (`secret_place`)."""
    agent_commit: str | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What the person must not miss because memtui left it undone (an agent write withheld for a secret)."""
    journal: Path | None = None

    @property
    def touched(self) -> set[Path]:
        """Every file memtui wrote or deleted in this decision."""
        return set(self.after)

    def rel(self, path: Path) -> str:
        return self.layout.rel(path)

    def read(self, path: Path, expected_hash: str | None) -> bytes:
        """Current bytes of a file, refusing if they no longer match what the caller saw (or it is gone since)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            if expected_hash is None:
                raise
            raise DeletedOnDisk(escape_path(self.rel(path)), "change") from None
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

    def _last_check(self, path: Path, expected: bytes | None) -> None:
        """`_check` as the very last step before a rename or unlink: the bytes, then the file's inode, size and
        times once more, so what separates the last look from the rename is one `stat`, not a whole read."""
        seen = _stat_key(path)
        self._check(path, expected)
        if _stat_key(path) != seen:
            raise ChangedOnDisk(
                f"{self.rel(path)} changed on disk while memtui was writing; nothing was changed", self.rel(path), None
            )

    def _remember(self, path: Path, before: bytes | None, after: bytes | None) -> None:
        if path not in self.before:
            self.before[path] = before
        self.after[path] = after
        self.versions.setdefault(path, []).append(_fingerprint(after))
        self._write_journal()

    def write(self, path: Path, data: bytes, *, expected: bytes | None = None, typed: str | None = None) -> None:
        """Write atomically, first checking the file still holds `expected` (None: it must not exist).

        `typed`: the text the person wrote for it (an edit, a merged text), which `data` is with memtui's stamps;
        a secret in it is named at its line there, not in the file as it was."""
        if typed is not None:
            self.typed[path] = typed
        if path.is_symlink() or path.parent.is_symlink():
            raise PathRefused(f"{self.rel(path)}: a symlink; memtui does not write through links", title=SYMLINK_TITLE)
        self._check(path, expected)
        with self._announced((path, expected, data)):
            # checked again after the journal and the temp file, right before the rename: an agent writing the
            # file meanwhile is refused, not overwritten
            atomic_write(path, data, tmp_dir=self.repo.git_dir, before_rename=lambda: self._last_check(path, expected))

    def delete(self, path: Path, *, expected: bytes) -> None:
        """Delete a file, first checking it still holds `expected`."""
        self._check(path, expected)
        with self._announced((path, expected, None)):
            self._last_check(path, expected)  # again after the journal write, right before the unlink
        path.unlink()

    def move(self, src: Path, dest: Path, *, expected: bytes) -> None:
        """Move a file with one rename, so it exists under exactly one name at every moment (a kill never leaves
        it twice or nowhere), first checking `src` still holds `expected` and `dest` does not exist."""
        if src.is_symlink() or dest.is_symlink() or dest.parent.is_symlink():
            raise PathRefused(f"{self.rel(src)}: a symlink; memtui does not write through links", title=SYMLINK_TITLE)
        self._check(src, expected)
        self._check(dest, None)
        dest.parent.mkdir(parents=True, exist_ok=True)
        with self._announced((src, expected, None), (dest, None, expected)):
            self._check(dest, None)
            self._last_check(src, expected)  # again after the journal write, right before the rename
        try:
            os.rename(src, dest)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            atomic_write(dest, expected, tmp_dir=self.repo.git_dir)  # another file system: copy, then remove
            src.unlink()

    def rollback(self) -> list[str]:
        """Put back what memtui changed — only files that still hold exactly what memtui wrote; the files left as
        someone else wrote them meanwhile (also when that write lands while memtui puts the file back).

        Newest change first, so each step undoes one the store was consistent after (an index line is put
        back only once its memory is back)."""
        kept = []
        for path in reversed(list(self.after)):
            now = path.read_bytes() if path.exists() else None
            if _fingerprint(now) not in self.versions.get(path, []):
                if now != self.before.get(path):
                    kept.append(self.rel(path))
                continue
            if not self._put_back(path, now, self.before.get(path)):
                kept.append(self.rel(path))
        if kept:
            self.notes.append("left as they are (changed by someone else meanwhile): " + ", ".join(kept))
        self.before.clear()
        self.after.clear()
        self.versions.clear()
        self._clear_journal()
        return kept

    def _put_back(self, path: Path, now: bytes | None, old: bytes | None) -> bool:
        """Put `old` back at `path` (None: remove it), provided the file still holds `now` right up to the rename or
        unlink; False, leaving the file as it is, when someone else wrote it meanwhile."""
        try:
            if now == old:
                return True
            if old is None:
                self._last_check(path, now)
                path.unlink()
            else:
                atomic_write(path, old, tmp_dir=self.repo.git_dir, before_rename=lambda: self._last_check(path, now))
        except ChangedOnDisk:
            return False
        return True

    def check_secrets(self, msg: str = "") -> None:
        """Refuse (unless allowed) when any byte memtui is about to commit — files or message — looks like a secret."""
        if self.allow_secret:
            return
        leaks = []
        for path, data in self.after.items():
            if data is not None:
                before = self.before.get(path)
                leaks += [
                    secret_place(self.rel(path), hit, data, before, self.typed.get(path)) for hit in scan_bytes(data)
                ]
            leaks += [f"the file name {self.rel(path)} ({h.label})" for h in secrets.scan(path.name)]
        if msg:
            leaks += [f"the commit message, line {h.line} ({h.label})" for h in secrets.scan(msg)]
        refuse_secrets(
            leaks,
            what="the change would commit",
            advice="remove it first",
            cli_hint="or pass --allow-secret if it is not one",
        )

    def commit(self, msg: str) -> str | None:
        """Commit exactly the bytes memtui wrote (scanned first), nothing else."""
        self.check_secrets(msg)
        files = {
            self.repo.rel(p): (None if data is None else FileState(data, mode_of(p))) for p, data in self.after.items()
        }
        sha = self.repo.commit_files(msg, files)
        self.before.clear()
        self.after.clear()
        self.versions.clear()
        self._clear_journal()
        self._note_identity()
        return sha

    def result(self, action: str, commit: str | None, summary: str, paths: Sequence[str] = ()) -> OpResult:
        """The decision's `OpResult`: what it committed and wrote, with the agent's commit and the notes so far."""
        return OpResult(
            action, commit, summary, tuple(paths), self.agent_commit, tuple(self.notes), warnings=tuple(self.warnings)
        )

    def _note_identity(self) -> None:
        for note in (self.repo.identity_note, self.repo.index_note):
            if note and note not in self.notes:
                self.notes.append(note)
        self.repo.index_note = ""

    @contextmanager
    def _announced(self, *changes: tuple[Path, bytes | None, bytes | None]) -> Iterator[None]:
        """Journal each (path, before, after) change, then run the block (its last check and, for a write, the
        temp file); if the last check refuses, take the announcements back: those changes never happened."""
        was = [(path, path not in self.before, self.after.get(path)) for path, _, _ in changes]
        for path, before, after in changes:
            self._remember(path, before, after)
        try:
            yield
        except ChangedOnDisk:
            for path, first, previous in reversed(was):
                self.versions[path].pop()
                if first:
                    del self.before[path], self.after[path], self.versions[path]
                else:
                    self.after[path] = previous
            self._write_journal()
            raise

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


def _stat_key(path: Path) -> tuple[int, ...] | None:
    """What changes when a file is written, renamed over or removed: device, inode, size, mtime, ctime."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def mode_of(path: Path) -> str:
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


def secret_place(rel: str, hit: secrets.SecretHit, data: bytes, before: bytes | None, typed: str | None) -> str:
    """Where a secret in `data` (the bytes a decision would commit to `rel`) is, as the person knows the file:
    `rel:LINE (label)` with `memtui check`'s line in the file as it was (`before`), not in what memtui wrote —
    a verify stamp or an index line added above it moves it down a line the person never saw. In a text the
    person wrote (`typed`: an edit, a merge) it is the line there, with the line in the file as it was beside it
    when that differs; a line only the decision writes (a new index line) is said to be one."""
    now = data.decode("utf-8", "replace")
    was = before.decode("utf-8", "replace") if before is not None else None
    on_disk = same_line(was, now, hit.line) if was is not None else None
    if typed is None:
        if on_disk is not None:
            return f"{rel}:{on_disk} ({hit.label})"
        if was is None:
            return f"{rel}:{hit.line} ({hit.label})"
        return f"{rel}:{hit.line} ({hit.label}; a line this decision writes)"
    line = same_line(typed, now, hit.line) or hit.line
    if on_disk == line:
        return f"{rel}:{line} ({hit.label})"
    beside = f"; line {on_disk} in the file now" if on_disk is not None else ""
    return f"{rel}:{line} of the new text ({hit.label}{beside})"


def same_line(old: str, new: str, number: int) -> int | None:
    """The line of `old` (1-based, lines as `secrets.scan` counts them) that line `number` of `new` is: the same
    line, or one rewritten in place (a date stamped, a phrase fixed); None for a line `new` adds."""
    a, b = old.splitlines(), new.splitlines()
    at = number - 1
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if j1 <= at < j2:
            in_place = tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1)
            return i1 + at - j1 + 1 if in_place else None
    return None


def recover(txn: Txn) -> None:
    """Finish or undo an action a kill interrupted: roll back its files (if its commit never landed), tidy up."""
    txn.repo.finish_interrupted_syncs()
    removed = remove_temp_files(txn.layout)
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
    rolled, rels, kept = 0, [], []
    for entry in reversed(entries):  # newest change first, as rollback does
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
        if txn._put_back(path, now, None if before is None else base64.b64decode(before)):
            rolled += 1
        else:
            kept.append(rel)  # written by someone else while memtui put it back: theirs stays
    try:
        txn.repo.sync_index([r for r in rels if txn.repo.owns(r)])
    except NotInGit:
        pass
    journal.unlink()
    if rolled:
        txn.notes.append(f"an interrupted memtui action was rolled back ({rolled} file(s) put back as they were)")
    if kept:
        txn.notes.append("left as they are (changed by someone else meanwhile): " + ", ".join(kept))


def record_agent_writes(txn: Txn, *, session: str | None = None) -> None:
    """Commit what the agent wrote since the last commit, on its own, so history separates it from decisions.

    `session` (Claude Code's session id, from the hook) becomes a `Memtui-Session` trailer.

    Every byte is scanned (any file type, decodable or not, and the file's name); files that look like they
    hold a secret are left out and named, with each secret's line as `check` names it, in a warning: the decision
    is made, but the agent's write stays uncommitted.
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
            data, mode = path.read_bytes(), mode_of(path)
        elif not path.exists():
            files[rel] = None
            continue
        else:
            continue  # a folder (nested repository): not memtui's to record
        hits = scan_bytes(data)
        if hits or secrets.scan(rel):
            withheld.append(_withheld(txn.rel(path), hits))
            continue
        files[rel] = FileState(data, mode)
    if withheld:
        txn.warnings.append(
            "not recorded (holds a secret): "
            + ", ".join(withheld)
            + " — the agent's write stays uncommitted until the secret is removed from it"
        )
    if not files:
        return
    names = list(files)
    body = "Files the agent wrote or changed since memtui last committed:\n" + "\n".join(
        f"- {escape_path(p)}" for p in names[:200]
    )
    msg = f"memtui: record agent writes ({len(names)} file{'s' if len(names) != 1 else ''})\n\n{body}\n\nMemtui-Actor: agent\n"
    for rel in names[:AGENT_WRITE_NAMED]:
        msg += f"Memtui-Memory: {escape_path(rel)}\n"
    if session:
        msg += f"Memtui-Session: {gitrepo.one_line(session)}\n"
    txn.agent_commit = txn.repo.commit_files(msg, files)


def _withheld(rel: str, hits: Sequence[secrets.SecretHit]) -> str:
    """An agent write left out for a secret, as `check` names it: `file:LINE (label)` for each (the file's name
    alone when that is where the secret looks to be, never the name itself)."""
    if secrets.scan(rel):
        return "(a file whose name looks like a secret)"
    name = escape_path(rel)
    return ", ".join(dict.fromkeys(f"{name}:{hit.line} ({hit.label})" for hit in hits))  # once each (UTF-16 twice)


@contextmanager
def decision(
    store: Path, *, allow_secret: bool = False, today: dt.date | None = None, session: str | None = None
) -> Iterator[Txn]:
    layout = detect_layout(store)
    refuse_links(layout)
    repo = open_repo(layout)
    if not repo.owns(repo.rel(layout.archive_dir)):
        raise OpError(
            f"the archive {layout.archive_dir} lies outside the repository at {repo.work_tree}; "
            "memtui cannot record decisions there"
        )
    lock = lock_path(repo.git_dir, layout.root)
    with ExitStack() as held:
        try:
            held.enter_context(store_lock(lock))
        except LockHeld as exc:
            raise LockHeld(f"{layout.root}: {exc}") from None  # name the store that is busy
        repo.refuse_unsafe_state()
        txn = Txn(
            layout=layout,
            repo=repo,
            today=today or dt.date.today(),
            allow_secret=allow_secret,
            journal=lock.with_name(lock.stem + ".journal"),
        )
        recover(txn)
        if repo.detached():
            txn.notes.append("HEAD is detached: this decision is committed on no branch (create one to keep it)")
        record_agent_writes(txn, session=session)
        try:
            yield txn
        except BaseException as exc:
            kept = txn.rollback()
            if kept:  # they may keep part of memtui's change: "nothing was changed" would not be true
                files = ", ".join(kept)
                _say(
                    exc,
                    f"left as they are, rewritten by someone else after memtui wrote them: {files} (look at them)",
                    instead_of="nothing was changed",
                )
            _unrecord_agent_writes(txn, exc)
            raise


def _say(exc: BaseException, sentence: str, *, instead_of: str = "") -> None:
    """Add a sentence to a refusal's message (in place of `instead_of` when the message says that)."""
    if not isinstance(exc, MemtuiError) or not exc.args:
        return
    text = str(exc.args[0])
    exc.args = (text.replace(instead_of, sentence) if instead_of and instead_of in text else f"{text}; {sentence}",)


def _unrecord_agent_writes(txn: Txn, exc: BaseException) -> None:
    """A refused or failed decision leaves no commit: the agent's writes recorded first for it go back to being
    uncommitted (recorded by the next decision, or the hook). The refusal says what `take_back` reached: that
    they were recorded, when the commit stays in HEAD's history, and that git's index shows them staged, when it
    could not follow yet; so its "nothing was changed" is never false."""
    sha = txn.agent_commit
    if sha is None:
        return
    try:
        back = txn.repo.take_back(sha)
    except (MemtuiError, OSError):
        back = TakeBack(not txn.repo.reaches(sha))  # take_back raises before moving HEAD; say where HEAD is anyway
    if back.taken_back:
        txn.agent_commit = None
    else:
        said = f"your decision was not made (the agent's new writes were recorded as their own commit, {sha[:8]})"
        _say(exc, said, instead_of="nothing was changed")
    if back.index_pending:
        _say(
            exc,
            "git's index could not be refreshed for the agent's files, so they show as staged until memtui's next "
            "action refreshes it (do not `git commit` before)",
        )


def heal(store: Path) -> tuple[str, ...]:
    """Finish or roll back a decision a kill interrupted, before the store is shown; notes for the person.

    Opening a store (the TUI's start, `check`, `history`) calls this. It writes only when memtui left
    something behind: a journal, an unsynced commit, temp files. A store it cannot heal now (not in git,
    busy with another memtui, mid-merge) is left to the next action, which heals before it decides.
    """
    try:
        layout = detect_layout(store)
        refuse_links(layout)
        repo = open_repo(layout)
    except MemtuiError:
        return ()
    lock = lock_path(repo.git_dir, layout.root)
    journal = lock.with_name(lock.stem + ".journal")
    if not (journal.exists() or any(repo.git_dir.glob("memtui-sync-*")) or temp_files(layout)):
        return ()
    try:
        with store_lock(lock):
            repo.refuse_unsafe_state()
            txn = Txn(layout=layout, repo=repo, today=dt.date.today(), allow_secret=False, journal=journal)
            recover(txn)
            return tuple(txn.notes)
    except MemtuiError:
        return ()


def load(txn: Txn, path: Path, expected_hash: str | None, *, archive: bool = False) -> tuple[Memory, bytes]:
    data = txn.read(path, expected_hash)
    memory = read_memory(path, txn.rel(path), in_archive=archive)
    return memory, data
