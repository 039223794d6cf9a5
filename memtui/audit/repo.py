"""The git repository that holds a store: running git, the store's state in git, commits limited to the
store's paths, and reading history (parsed by `memtui.audit.history`; commit text in `memtui.audit.trailers`).

Every git call is a plain `git` subprocess (no shared long-lived `cat-file` pipe, so any thread may call any
method) with a timeout, hooks switched off (`core.hooksPath` pointing at an empty place, fsmonitor off),
literal pathspecs, NUL-separated output, and the caller's `GIT_DIR`/`GIT_WORK_TREE` removed from the
environment: the repository is always the one found from the store's own folder.

Commits are built in a private index (`GIT_INDEX_FILE`) from the exact bytes memtui validated, written with
`commit-tree` and `update-ref`; the user's own index is never used to stage memtui's changes, only brought in
line for the committed paths afterwards.

Over 400 lines for a reason: `StoreRepo` is one object for one repository. Its reads of history share a cache
keyed on HEAD that its own commits move, and its commits rely on its state checks and its private-index
housekeeping (`memtui-index-*`, `memtui-sync-*`); spreading its methods over mixins would hide those
invariants. The pure parts (history parsing, trailer text, escaping) already live in their own modules.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.analysis.check import FileDates
from memtui.analysis.written import LineWritten
from memtui.audit.history import (
    DATES_FORMAT,
    HISTORY_FORMAT,
    LINES_FORMAT,
    Event,
    LineCommit,
    agent_writes_named_in_part,
    dates_from_log,
    events_about,
    events_from_log,
    line_log,
    lines_written_from,
    patches_by_path,
    with_files,
)
from memtui.audit.trailers import (
    PATH_TRAILERS,
    TRAILER_PREFIX,
    escape_path,
    message,
    one_line,
    parse_trailers,
    unescape_path,
)
from memtui.core.errors import EXIT_REFUSED, EXIT_USAGE, MemtuiError
from memtui.core.store import StoreLayout

__all__ = [
    # re-exported so callers keep one import for "the repository": their homes are history.py and trailers.py
    "PATH_TRAILERS",
    "TRAILER_PREFIX",
    "Event",
    "FileState",
    "GitFailed",
    "NotInGit",
    "StoreRepo",
    "TakeBack",
    "escape_path",
    "explain_git_error",
    "git_env",
    "message",
    "one_line",
    "open_repo",
    "parse_trailers",
    "run_git",
    "try_open_repo",
    "unescape_path",
]

FALLBACK_NAME = "memtui"
FALLBACK_EMAIL = "memtui@localhost"
GIT_TIMEOUT = float(os.environ.get("MEMTUI_GIT_TIMEOUT", "60"))
_SCRUBBED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_PREFIX",
    "GIT_NAMESPACE",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_TRACE",
)
_NO_HOOKS_DIR = os.devnull
ZERO_OID = "0" * 40


class NotInGit(MemtuiError):
    """The store is not inside a usable git work tree (base of every repository refusal; exit 2)."""

    title = "Git"
    exit_code = EXIT_USAGE


class GitFailed(NotInGit):
    """A git command failed, timed out, or the repository is in a state memtui does not act in (exit 1)."""

    exit_code = EXIT_REFUSED


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every git call gets: the caller's, minus what would point git at another repository."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
    env.update(
        GIT_TERMINAL_PROMPT="0", GIT_LITERAL_PATHSPECS="1", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", GIT_EDITOR="true"
    )
    if extra:
        env.update(extra)
    return env


GIT_SETTINGS = (
    f"core.hooksPath={_NO_HOOKS_DIR}",
    "core.fsmonitor=false",
    "commit.gpgsign=false",
    "tag.gpgsign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "core.quotePath=false",
)
"""What every git memtui runs is told: no hooks, no fsmonitor, no signing prompt, no background gc, raw names."""


DIFF_PATHS_PER_CALL = 2000
_LINE_LOG_ARGS = ("-p", "-U0", "--first-parent", "-m", "--no-color", "--no-ext-diff", "--no-textconv")
"""How `StoreRepo.lines_written` reads a file's history: each commit's patch without context lines."""
PUT_BACK_WHOLE = "its line came back with a whole file memtui put back, whose history before git does not follow"
"""`LineWritten.unknown` of a line in a file a restore put back, when a log that follows renames does not say
where it was before."""
"""Paths one `git diff` names (`StoreRepo.diffs_since`): far below the system's limit on a command line."""

_RESET_PATHS = ("reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul")
"""Bring the index in line with HEAD for the NUL-separated paths on stdin."""

SYNC_RETRY_PAUSES = (0.05, 0.1, 0.2, 0.4)
"""Seconds waited before each new try to refresh git's index once HEAD has moved (another git, an editor's
`git status`, holds `index.lock` for a moment); after the last, the memtui-sync file is left for the next action."""

_SYNCS_IN_FLIGHT: set[Path] = set()
"""memtui-sync files this process is still working on: `finish_interrupted_syncs` leaves only these alone (one
left by an earlier decision of this process, a TUI's, is finished by its next one)."""


def _nul_separated(paths: Iterable[str]) -> bytes:
    """Paths as git's `--pathspec-file-nul` and memtui's sync file read them: each followed by a NUL."""
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _subject(message: str) -> str:
    """The reflog line of a commit: its subject, cut."""
    return (message.splitlines()[0] if message else "memtui")[:200]


def _git_argv(args: Sequence[str]) -> list[str]:
    return ["git", *(part for setting in GIT_SETTINGS for part in ("-c", setting)), *args]


def run_git(
    cwd: Path,
    args: Sequence[str],
    *,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run one git command with hooks off and a timeout; raises GitFailed (in words) when it fails."""
    return _run(cwd, _git_argv(args), args, input=input, env=env, check=check, timeout=timeout)


def move_head_and_sync_index(cwd: Path, subject: str, new: str, old: str, paths: Sequence[str]) -> None:
    """Move HEAD from `old` to `new` and bring the user's index in line with it for `paths`, in one child process
    of its own session: memtui killed with its process group after the child started (Ctrl-C, a closed terminal,
    an agent's harness) cannot leave HEAD moved and the index behind, which shows as memtui's change reversed and
    staged. Raises GitFailed saying which of the two steps failed."""
    move, sync = (" ".join(shlex.quote(a) for a in _git_argv(step)) for step in (["update-ref"], _RESET_PATHS))
    script = f'{move} -m "$1" HEAD "$2" "$3" || exit 3\nexec {sync}\n'
    spec = _nul_separated(paths)
    argv = ["sh", "-c", script, "memtui-commit", subject, new, old]
    proc = _run(cwd, argv, ["update-ref"], input=spec, env=None, check=False, timeout=None)
    if proc.returncode == 3:
        raise GitFailed(explain_git_error(["update-ref"], 1, proc.stderr.decode("utf-8", "replace"), cwd))
    if proc.returncode != 0:
        raise GitFailed(explain_git_error(["reset"], proc.returncode, proc.stderr.decode("utf-8", "replace"), cwd))


def _run(
    cwd: Path,
    cmd: list[str],
    args: Sequence[str],
    *,
    input: bytes | None,
    env: Mapping[str, str] | None,
    check: bool,
    timeout: float | None,
) -> subprocess.CompletedProcess[bytes]:
    limit = GIT_TIMEOUT if timeout is None else timeout
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=git_env(env),
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise GitFailed("git is not installed (or not on PATH); memtui needs it to record decisions") from None
    except NotADirectoryError:
        raise NotInGit(f"{cwd}: not a folder") from None
    try:
        out, err = proc.communicate(input=input, timeout=limit)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.communicate()
        raise GitFailed(
            f"`git {args[0]}` did not finish within {limit:.0f} s in {cwd}; nothing was committed"
        ) from None
    result = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check and proc.returncode != 0:
        raise GitFailed(explain_git_error(args, proc.returncode, err.decode("utf-8", "replace"), cwd))
    return result


def explain_git_error(args: Sequence[str], code: int, stderr: str, cwd: Path) -> str:
    """A git failure in words: what went wrong and what to do next."""
    text = " ".join(stderr.split())
    if "index.lock" in stderr and ("File exists" in stderr or "Unable to create" in stderr):
        lock = next((w.strip("'\":") for w in stderr.split() if w.strip("'\":").endswith("index.lock")), "index.lock")
        return (
            f"git's index is locked ({lock}): another git command is running, or one was killed. "
            f"If no git is running, remove that file and try again; nothing was committed"
        )
    if "dubious ownership" in stderr:
        return (
            f"git refuses to work in {cwd}: the repository belongs to another user. If you trust it, run "
            "`git config --global --add safe.directory <repo>`; nothing was changed"
        )
    if code < 0:
        return f"`git {args[0]}` was killed by signal {-code} in {cwd}; nothing was committed — try again"
    return f"`git {args[0]}` failed in {cwd}: {text[:400] or f'exit {code}'}"


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _text(data: bytes) -> str:
    return os.fsdecode(data) if data else ""


@dataclass(frozen=True)
class TakeBack:
    """What `StoreRepo.take_back` reached, so what is said about it is true."""

    taken_back: bool
    """The commit is no longer in HEAD's history (False: it stays, and is there to see)."""
    index_pending: str = ""
    """Why git's index does not yet follow HEAD for the commit's files ("" when it does): until memtui's next
    action refreshes it (from the memtui-sync file left in the git folder), they show as staged."""


@dataclass(frozen=True)
class FileState:
    """What one path should hold in a commit: its bytes and git mode (`100644`, `100755` or `120000`)."""

    data: bytes
    mode: str = "100644"


PENDING_READ = 50
"""How many files written since the last commit `StoreRepo.file_dates_now` reads as committed."""


def _front_block(data: bytes) -> bytes:
    """A memory's front matter as bytes (empty when it has none): what a write that updated its dates changed."""
    if not data.startswith(b"---"):
        return b""
    end = data.find(b"\n---", 3)
    return data[: end if end != -1 else len(data)]


@dataclass
class StoreRepo:
    """A store and the git work tree it lives in."""

    layout: StoreLayout
    work_tree: Path
    git_dir: Path
    identity_note: str = ""
    index_note: str = ""
    common_dir: Path | None = None
    _cache: dict[tuple[object, ...], object] = field(default_factory=dict, repr=False, compare=False)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def _ref_state(self) -> tuple[object, ...] | None:
        """A cheap fingerprint of HEAD (its file, the branch ref and packed-refs), or None when unsure.

        Every HEAD move rewrites one of these files (git writes refs through a lock file and a rename), so
        results read from history stay valid while the fingerprint is unchanged; no git process is started.
        """
        common = self.common_dir or self.git_dir
        try:
            head = (self.git_dir / "HEAD").read_bytes()
            parts: list[object] = [head]
            if head.startswith(b"ref: "):
                ref = head[5:].strip().decode("utf-8", "surrogateescape")
                target = common / ref
                parts.append(_stat_key(target))
                parts.append(_stat_key(common / "packed-refs"))
            if (common / "reftable").exists():
                return None
            parts.append(_stat_key(self.git_dir / "shallow"))
            return tuple(parts)
        except OSError:
            return None

    def _cache_get(self, key: tuple[object, ...]) -> object | None:
        if key[1] is None:
            return None
        with self._cache_lock:
            return self._cache.get(key)

    def _cache_put(self, key: tuple[object, ...], value: object) -> None:
        if key[1] is None:
            return
        with self._cache_lock:
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[key] = value

    # ------------------------------------------------------------------------------------ plumbing

    def git(
        self,
        *args: str,
        input: bytes | None = None,
        env: Mapping[str, str] | None = None,
        check: bool = True,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git in the work tree (hooks off, timeout, literal pathspecs)."""
        return run_git(self.work_tree, args, input=input, env=env, check=check, timeout=timeout)

    def out(self, *args: str) -> str:
        """A git command's stdout as text."""
        return _text(self.git(*args).stdout)

    def config_flag(self, name: str) -> bool:
        """Whether a boolean git setting (`memtui.recordAgentWrites`) is true here; unset or invalid is False."""
        proc = self.git("config", "--get", "--type=bool", name, check=False)
        return proc.returncode == 0 and _text(proc.stdout).strip() == "true"

    def rel(self, path: Path) -> str:
        """A path relative to the work tree, as git and the trailers write it."""
        return Path(os.path.relpath(path.resolve() if path.exists() else path, self.work_tree)).as_posix()

    def owned_paths(self) -> list[str]:
        """The pathspecs memtui may commit: the loaded folder (or index + memory folder) and the archive."""
        layout = self.layout
        if layout.kind == "typed":
            paths = [layout.index_path, layout.scan_root, layout.archive_dir]
        else:
            paths = [layout.root, layout.archive_dir]
        out = []
        for p in paths:
            rel = self.rel(p)
            if rel == "." or not rel.startswith("../"):
                out.append(rel)
        return list(dict.fromkeys(out))

    def owns(self, rel: str) -> bool:
        """Whether a work-tree-relative path lies inside the store or its archive."""
        for spec in self.owned_paths():
            if spec == "." or rel == spec or rel.startswith(spec.rstrip("/") + "/"):
                return True
        return False

    def git_path(self, name: str) -> Path:
        """A file inside the git folder (`MERGE_HEAD`, `index.lock`, ...), worktree-aware."""
        return (self.work_tree / self.out("rev-parse", "--git-path", name).strip()).resolve()

    # ------------------------------------------------------------------------------------ state

    def head(self) -> str | None:
        """HEAD's commit id, or None in a repository without commits."""
        proc = self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        return (_text(proc.stdout).strip() or None) if proc.returncode == 0 else None

    def has_head(self) -> bool:
        """Whether the repository has at least one commit."""
        return self.head() is not None

    def first_commit(self) -> str | None:
        """The repository's first commit (HEAD's oldest root), or None before any commit."""
        if not self.has_head():
            return None
        roots = self.out("rev-list", "--max-parents=0", "HEAD").split()
        return roots[-1] if roots else None

    def resolve(self, rev: str) -> str | None:
        """A revision's commit id, or None if it is not in this repository (e.g. beyond a shallow clone)."""
        proc = self.git("rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False)
        return (_text(proc.stdout).strip() or None) if proc.returncode == 0 else None

    def refuse_unsafe_state(self) -> None:
        """Refuse (GitFailed, in words) to act mid-merge/rebase, on conflicts or while git's index is locked."""
        busy = {
            "MERGE_HEAD": "a merge is in progress (finish it with `git commit` or `git merge --abort`)",
            "rebase-merge": "a rebase is in progress (finish it or run `git rebase --abort`)",
            "rebase-apply": "a rebase or `git am` is in progress (finish it or abort it)",
            "CHERRY_PICK_HEAD": "a cherry-pick is in progress (finish it or run `git cherry-pick --abort`)",
            "REVERT_HEAD": "a revert is in progress (finish it or run `git revert --abort`)",
        }
        names = [*busy, "index.lock"]
        args = [a for name in names for a in ("--git-path", name)]
        found = dict(
            zip(names, (self.work_tree / line for line in self.out("rev-parse", *args).splitlines()), strict=True)
        )
        for name, why in busy.items():
            if found[name].exists():
                raise GitFailed(f"{self.work_tree}: {why}; memtui records nothing until it is done")
        lock = found["index.lock"].resolve()
        if lock.exists():
            raise GitFailed(
                f"git's index is locked ({lock}): another git command is running, or one was killed. "
                "If no git is running, remove that file and try again; nothing was changed"
            )
        specs = self.owned_paths()
        if specs:
            unmerged = self.git("ls-files", "-u", "-z", "--", *specs).stdout
            if unmerged:
                names = sorted({_text(e.split(b"\t", 1)[1]) for e in unmerged.split(b"\0") if b"\t" in e})
                raise GitFailed(
                    "unresolved merge conflicts in "
                    + ", ".join(escape_path(n) for n in names[:5])
                    + "; resolve them (and remove the conflict markers) first; nothing was changed"
                )

    def detached(self) -> bool:
        """Whether HEAD points at a commit rather than a branch."""
        return self.git("symbolic-ref", "-q", "HEAD", check=False).returncode != 0 and self.has_head()

    def changed_paths(self) -> list[str]:
        """Store files that differ from HEAD (modified, added, deleted or untracked), relative to the work tree."""
        specs = self.owned_paths()
        if not specs:
            return []
        out = self.git(
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
            "--",
            *specs,
        ).stdout
        paths = []
        for item in out.split(b"\0"):
            if len(item) > 3:
                paths.append(_text(item[3:]))
        return paths

    def _identity_env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        name = _text(self.git("config", "user.name", check=False).stdout).strip()
        email = _text(self.git("config", "user.email", check=False).stdout).strip()
        note = "git has no user.name/user.email here; committed as memtui <memtui@localhost>"
        if not os.environ.get("GIT_AUTHOR_NAME") and not name:
            env.update(GIT_AUTHOR_NAME=FALLBACK_NAME, GIT_COMMITTER_NAME=FALLBACK_NAME)
            self.identity_note = note
        if not os.environ.get("GIT_AUTHOR_EMAIL") and not email:
            env.update(GIT_AUTHOR_EMAIL=FALLBACK_EMAIL, GIT_COMMITTER_EMAIL=FALLBACK_EMAIL)
            self.identity_note = note
        return env

    # ------------------------------------------------------------------------------------ commits

    def commit_files(self, message: str, files: Mapping[str, FileState | None]) -> str | None:
        """Commit exactly these bytes at these work-tree-relative paths (None: delete); None if nothing changed.

        Built in a private index from HEAD, so nothing the user staged is taken and nothing of memtui's is
        left staged; afterwards the user's index is brought in line with the new commit for these paths only.
        """
        if not files:
            return None
        head = self.head()
        private = self.git_dir / f"memtui-index-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        env = {"GIT_INDEX_FILE": str(private)}
        try:
            if head:
                self.git("read-tree", head, env=env)
            else:
                self.git("read-tree", "--empty", env=env)
            info = bytearray()
            for rel, state in files.items():
                raw = os.fsencode(rel)
                if state is None:
                    info += b"0 " + ZERO_OID.encode() + b"\t" + raw + b"\0"
                else:
                    sha = _text(
                        self.git("hash-object", "-w", "--no-filters", "--stdin", input=state.data).stdout
                    ).strip()
                    info += f"{state.mode} {sha}\t".encode() + raw + b"\0"
            self.git("update-index", "-z", "--index-info", input=bytes(info), env=env)
            tree = _text(self.git("write-tree", env=env).stdout).strip()
        finally:
            for leftover in (private, private.with_name(private.name + ".lock")):
                try:
                    leftover.unlink()
                except OSError:
                    pass
        if head and tree == _text(self.git("rev-parse", f"{head}^{{tree}}").stdout).strip():
            return None
        sha = self._commit_object(tree, head, message)
        with self._pending_sync(list(files)) as pending:
            lag = self._move_head(pending, _subject(message), sha, head or ZERO_OID, list(files))
        if lag:  # it landed; only git's index lags behind, and memtui's next action brings it in line
            self.index_note = (
                f"committed {sha[:8]}, but git's index could not be refreshed yet ({lag}); memtui's next action does it"
            )
        return sha

    def take_back(self, commit: str) -> TakeBack:
        """Move HEAD from `commit` (memtui's own, just made) back to its parent, the user's index following for the
        files it changed; their bytes on disk stay. Says what it reached, never raising once HEAD may have moved.

        Nothing is done when HEAD has moved on from `commit` or it has no parent. When HEAD went back but git's
        index cannot follow (another git holds `index.lock` past the retries), the index still holds the commit's
        files, which would show staged: HEAD is put forward on `commit` again, so index and HEAD agree and the
        commit stays. Only if that fails too is the index left pending (its memtui-sync file is finished by the
        next memtui action).
        """
        parent = self.resolve(commit + "^")
        if parent is None or self.head() != commit:
            return TakeBack(False)
        paths = [p for _, p in self.commit_paths(commit, parent)]
        with self._pending_sync(paths) as pending:
            try:
                lag = self._move_head(pending, f"memtui: take back {commit[:8]}", parent, commit, paths)
            except GitFailed:  # HEAD did not move (someone else moved it first, or git failed)
                return TakeBack(not self.reaches(commit))
            if not lag:
                return TakeBack(True)
            forward = self.git(
                "update-ref",
                "-m",
                f"memtui: keep {commit[:8]} (git's index is busy)",
                "HEAD",
                commit,
                parent,
                check=False,
            )
            in_line = forward.returncode == 0 and self.index_in_line(paths)
            if in_line:
                pending.unlink(missing_ok=True)
            return TakeBack(not self.reaches(commit), "" if in_line else lag)

    def reaches(self, commit: str) -> bool:
        """Whether `commit` is in HEAD's history (HEAD itself included)."""
        return self.git("merge-base", "--is-ancestor", commit, "HEAD", check=False).returncode == 0

    def index_in_line(self, paths: Sequence[str]) -> bool:
        """Whether git's index matches HEAD for these paths (read only: git's index lock is not needed)."""
        proc = self.git("diff-index", "--cached", "-z", "--name-only", "--no-renames", "HEAD", check=False)
        if proc.returncode != 0:
            return False
        differ = {_text(p) for p in proc.stdout.split(b"\0") if p}
        return not differ.intersection(paths)

    @contextmanager
    def _pending_sync(self, paths: Sequence[str]) -> Iterator[Path]:
        """A memtui-sync file naming `paths` while HEAD moves: if memtui dies, or git's index cannot follow, between
        moving HEAD and refreshing the index, the next memtui action (`finish_interrupted_syncs`) finishes it."""
        pending = self.git_dir / f"memtui-sync-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        pending.write_bytes(_nul_separated(paths))
        _SYNCS_IN_FLIGHT.add(pending)
        try:
            yield pending
        finally:
            _SYNCS_IN_FLIGHT.discard(pending)

    def _move_head(self, pending: Path, subject: str, new: str, old: str, paths: Sequence[str]) -> str:
        """Move HEAD from `old` to `new`, git's index following for `paths`: "" when both are done, or why the index
        still lags behind HEAD after the retries (`pending` then stays). Raises when HEAD is not at `new` afterwards,
        `pending` removed: this call moved nothing, so the index is not memtui's to refresh."""
        try:
            move_head_and_sync_index(self.work_tree, subject, new, old, paths)
        except BaseException as exc:
            if self.head() != new:
                pending.unlink(missing_ok=True)
                raise
            if not isinstance(exc, GitFailed):
                raise
            why = str(exc).split("; nothing was committed")[
                0
            ]  # HEAD did move: git's words on the commit are wrong here
            for pause in SYNC_RETRY_PAUSES:  # HEAD moved; try the index again before leaving it to the next action
                time.sleep(pause)
                try:
                    self.sync_index(paths)
                except GitFailed as again:
                    why = str(again).split("; nothing was committed")[0]
                    continue
                break
            else:
                return why
        pending.unlink(missing_ok=True)
        return ""

    def finish_interrupted_syncs(self) -> int:
        """Bring git's index in line with HEAD for the paths of every memtui-sync file left by a killed memtui or a
        sync that failed (this process's own in-flight ones aside); returns how many were finished."""
        done = 0
        for pending in self.git_dir.glob("memtui-sync-*"):
            if pending in _SYNCS_IN_FLIGHT:
                continue
            try:
                paths = [os.fsdecode(p) for p in pending.read_bytes().split(b"\0") if p]
                if not self.index_in_line(paths):
                    self.sync_index(paths)
                pending.unlink(missing_ok=True)
                done += 1
            except (OSError, GitFailed):
                continue
        return done

    def _commit_object(self, tree: str, parent: str | None, message: str) -> str:
        """Write the commit object (HEAD does not move yet)."""
        env = self._identity_env()
        args = ["commit-tree", tree] + (["-p", parent] if parent else [])
        return _text(self.git(*args, input=message.encode("utf-8", "surrogateescape"), env=env).stdout).strip()

    def _commit_tree(self, tree: str, parent: str | None, message: str) -> str:
        sha = self._commit_object(tree, parent, message)
        self.git("update-ref", "-m", _subject(message), "HEAD", sha, parent or ZERO_OID)
        return sha

    def sync_index(self, paths: Sequence[str]) -> None:
        """Make the user's index match HEAD for these paths (memtui's changes are never left staged)."""
        if not paths:
            return
        spec = _nul_separated(paths)
        self.git(*_RESET_PATHS, input=spec)

    def marker_commit(self, message: str) -> str:
        """An empty commit (same tree as HEAD) that records a decision without touching any file or the index."""
        head = self.head()
        if head is None:
            raise GitFailed("the repository has no commit yet; record something first")
        tree = _text(self.git("rev-parse", f"{head}^{{tree}}").stdout).strip()
        return self._commit_tree(tree, head, message)

    # ------------------------------------------------------------------------------------ reading history

    def _log(self, *args: str) -> bytes | None:
        """`git log ARGS` output; None in a repository without commits, GitFailed (in words) on any other failure."""
        proc = self.git("log", *args, check=False)
        if proc.returncode == 0:
            return proc.stdout
        if self.has_head():
            raise GitFailed(
                explain_git_error(["log"], proc.returncode, proc.stderr.decode("utf-8", "replace"), self.work_tree)
            )
        return None

    def file_dates(self) -> FileDates:
        """First and last commit date of every store file, from one `git log` pass."""
        specs = self.owned_paths()
        if not specs:
            return FileDates()
        key = ("file_dates", self._ref_state())
        cached = self._cache_get(key)
        if isinstance(cached, FileDates):
            return cached
        out = self._log("-z", DATES_FORMAT, "--name-only", "--no-renames", "--", *specs)
        if out is None:
            return FileDates()
        dates = dates_from_log(out, self.work_tree, self.layout.root)
        self._cache_put(key, dates)
        return dates

    def file_dates_now(self, today: dt.date) -> FileDates:
        """`file_dates`, with the memories written since the last commit under an unchanged front matter taken as
        written on `today` (`FileDates.pending`): the writer said nothing of when, and memtui would record the
        write today. A write that changed the front matter, or a new file, says its own dates. One `git status`
        and, for each such memory (the first `PENDING_READ`), two git calls to read it as committed."""
        root = self.layout.root
        pending: dict[str, dt.date] = {}
        for name in self.changed_paths()[:PENDING_READ]:
            path = self.work_tree / name
            if not name.endswith(".md") or not path.is_file():
                continue
            before = self.show("HEAD", name)
            try:
                now = path.read_bytes()
            except OSError:
                continue
            if before is not None and _front_block(before) == _front_block(now):
                pending[Path(os.path.relpath(path, root)).as_posix()] = today
        return replace(self.file_dates(), pending=pending)

    def lines_written(
        self, asks: Mapping[str, Sequence[tuple[int, str]]], pending: Mapping[str, dt.date] | None = None
    ) -> dict[str, dict[tuple[int, str], LineWritten]]:
        """When each relative date asked about was written on its line, from git's line history: `asks` maps a
        memory (its path in the store) to (line in the file, phrase in lower case) pairs (`dates.line_questions`),
        `pending` the memories written since the last commit to the day that is taken for it
        (`FileDates.pending`).

        One `git log -p` of all the files (kept while HEAD stays where it is) and one `git diff` of them for what
        is not committed yet; a file memtui put back whole (a restore) is read again following renames. Asked only
        about the few memories whose own dates leave a relative date's day open, so `check` stays quick."""
        if not asks or not self.has_head():
            return {}
        rels = {path: self.rel(self.layout.root / path) for path in asks}
        logs = self._line_logs(sorted(set(rels.values())))
        uncommitted = self._uncommitted(sorted(set(rels.values())))
        out: dict[str, dict[tuple[int, str], LineWritten]] = {}
        for path, questions in asks.items():
            rel = rels[path]
            since, day = uncommitted.get(rel, b""), (pending or {}).get(path)
            answers = lines_written_from(logs.get(rel, []), questions, uncommitted=since, pending=day)
            lost = [question for question, answer in answers.items() if answer is None]
            if lost:  # put back whole by memtui: where the file was before, a log that follows renames says
                following = self._line_log_following(rel)
                answers.update(lines_written_from(following, lost, uncommitted=since, pending=day))
            out[path] = {
                question: answer or LineWritten(unknown=PUT_BACK_WHOLE) for question, answer in answers.items()
            }
        return out

    def _line_logs(self, rels: Sequence[str]) -> dict[str, list[LineCommit]]:
        """Each file's commits, newest first, with its `-U0` patch (`line_log`), from one `git log` of the files not
        read yet since HEAD last moved; along the first parent of a merge, whose patch is then against that
        parent. Renames are not followed: a file archived and restored shows as written again by the restore."""
        key = ("line_logs", self._ref_state())
        cached = self._cache_get(key)
        logs: dict[str, list[LineCommit]] = cached if isinstance(cached, dict) else {}
        missing = [rel for rel in rels if rel not in logs]
        for start in range(0, len(missing), DIFF_PATHS_PER_CALL):
            chunk = missing[start : start + DIFF_PATHS_PER_CALL]
            out = self._log(LINES_FORMAT, *_LINE_LOG_ARGS, "--no-renames", "--patch-with-raw", "-z", "--", *chunk)
            read = line_log(out or b"", many=True)
            if read is None:  # not the output `patches_by_path` reads: file by file
                read = {rel: self._line_log_following(rel) for rel in chunk}
            logs.update({rel: read.get(rel, []) for rel in chunk})
        self._cache_put(key, logs)
        return logs

    def _line_log_following(self, rel: str) -> list[LineCommit]:
        """One file's commits as `_line_logs` reads them, following renames (an archive, then its restore)."""
        out = self._log(LINES_FORMAT, *_LINE_LOG_ARGS, "--follow", "--", rel)
        return (line_log(out or b"") or {}).get("", [])

    def _uncommitted(self, rels: Sequence[str]) -> dict[str, bytes]:
        """Each file's `-U0` patch from HEAD to the work tree (absent: unchanged), from one `git diff` (file by file
        when its output is not the one `patches_by_path` reads)."""
        raw = self.git(
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--patch-with-raw",
            "-z",
            "-U0",
            "HEAD",
            "--",
            *rels,
        ).stdout
        patches = patches_by_path(raw)
        if patches is None:
            patches = {}
            for rel in rels:
                one = self.git("diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "HEAD", "--", rel).stdout
                if one:
                    patches[rel] = one
        return patches

    def history(self, paths: Sequence[str] = (), limit: int | None = None) -> list[Event]:
        """memtui's events, newest first (commits without memtui trailers are left out).

        An agent-write event names every file its commit wrote, also those past the ones its trailers name
        (`AGENT_WRITE_NAMED`): read from git, for all such commits in one call.

        With `paths`, only events whose memories or `Memtui-*` path trailers name one of them, labelled by that path.
        """
        args = ["-z", HISTORY_FORMAT]
        if limit:
            args.append(f"-n{limit}")
        # marker commits touch no path, so they are only found without a pathspec
        key = ("history", self._ref_state(), limit)
        cached = self._cache_get(key)
        raw = cached if isinstance(cached, str) else None
        if raw is None:
            out = self._log(*args)
            if out is None:
                return []
            raw = _text(out)
            self._cache_put(key, raw)
        events = events_from_log(raw)
        in_part = agent_writes_named_in_part(events)
        if in_part:
            events = with_files(events, self.files_of(in_part))
        return events_about(events, paths) if paths else events

    def files_of(self, commits: Sequence[str]) -> dict[str, list[str]]:
        """Every file each of `commits` changed (against its first parent), from one git call; cached, as a
        commit's files never change."""
        wanted = list(dict.fromkeys(commits))
        key = ("files_of", tuple(wanted))
        cached = self._cache_get(key)
        if isinstance(cached, dict):
            return cached
        raw = self.git(
            "log", "--no-walk=unsorted", "-z", "--format=%x01%H", "--name-only", "--no-renames", *wanted, "--"
        ).stdout
        out: dict[str, list[str]] = {}
        for sha, path in _commits_and_paths(raw):
            out.setdefault(sha, []).append(path)
        self._cache_put(key, out)
        return out

    def last_version(self, path: str) -> bytes | None:
        """A file's bytes as last committed before it was deleted (path relative to the work tree): at HEAD when
        the deletion is not committed, else just before the commit that deleted it; None if git never had it."""
        at_head = self.show("HEAD", path)
        if at_head is not None:
            return at_head
        deleted_by = self.deleted_in(path)
        return self.show(f"{deleted_by}^", path) if deleted_by else None

    def deleted_in(self, path: str) -> str | None:
        """The newest commit that deleted a file (path relative to the work tree), or None if none did."""
        proc = self.git("log", "-1", "--format=%H", "--diff-filter=D", "HEAD", "--", path, check=False)
        return (proc.stdout.decode().strip() if proc.returncode == 0 else "") or None

    def show(self, commit: str, path: str) -> bytes | None:
        """A file's bytes at a commit (path relative to the work tree), or None if it did not exist."""
        proc = self.git("ls-tree", "-z", commit, "--", path, check=False)
        if proc.returncode != 0:
            return None
        for entry in proc.stdout.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            parts = meta.split()
            if name == os.fsencode(path) and len(parts) == 3 and parts[1] == b"blob":
                return self.git("cat-file", "blob", parts[2].decode()).stdout
        return None

    def commit_paths(self, commit: str, parent: str | None = None) -> list[tuple[str, str]]:
        """(status, path) of every file a commit changed against `parent` (default: its only parent)."""
        args = ["diff-tree", "-z", "--no-commit-id", "-r", "--name-status", "--no-renames"]
        args += [parent, commit] if parent else ["--root", commit]
        out = self.git(*args).stdout.split(b"\0")
        rows = []
        for i in range(0, len(out) - 1, 2):
            status = out[i].decode().strip()
            if status:
                rows.append((status, _text(out[i + 1])))
        return rows

    def first_commit_date(self, path: Path) -> dt.date | None:
        """The day a file was first committed (one `git log` on that file), or None."""
        if not self.has_head():
            return None
        days = self.out("log", "--format=%cs", "--follow", "--", self.rel(path)).split()
        return dt.date.fromisoformat(days[-1]) if days else None

    def ever_committed(self, paths: Sequence[str]) -> bool:
        """Whether any commit reachable from HEAD touched one of these paths (relative to the work tree)."""
        if not paths or not self.has_head():
            return False
        return bool(self.out("log", "-n1", "--format=%H", "--", *paths).strip())

    def commits_touching(self, since: str, paths: Sequence[str]) -> list[str]:
        """Commits after `since` (exclusive) that touched any of `paths`."""
        if not paths:
            return []
        return self.out("log", "--format=%H", f"{since}..HEAD", "--", *paths).split()

    def commits_by_path(self, since: str) -> dict[str, list[str]]:
        """Each path a commit after `since` (exclusive) changed, with those commits, newest first: what
        `commits_touching` says of one path, for every path in one git call."""
        raw = self.git("log", "-z", "--format=%x01%H", "--name-only", "--no-renames", f"{since}..HEAD").stdout
        out: dict[str, list[str]] = {}
        for sha, path in _commits_and_paths(raw):
            out.setdefault(path, []).append(sha)
        return out

    def diff_since(self, commit: str, path: str) -> str:
        """The change to one work-tree file from `commit` to what is on disk now ("" if none, or untracked)."""
        return self.out("diff", "--no-color", "--no-ext-diff", commit, "--", path).rstrip("\n")

    def diffs_since(self, commit: str, paths: Sequence[str]) -> dict[str, str]:
        """What `diff_since` says of each of `paths` (those without a change are left out), from one `git diff`
        of them all split by file, not one git call a file: the review's agent-write cards diff every file the
        agent wrote since the last review, and before the first that is every file it ever wrote."""
        wanted = list(dict.fromkeys(paths))
        out: dict[str, str] = {}
        for start in range(0, len(wanted), DIFF_PATHS_PER_CALL):
            chunk = wanted[start : start + DIFF_PATHS_PER_CALL]
            # renames off: a file's patch is then what `git diff` of that file alone prints, whoever moved what
            raw = self.git(
                "diff", "--no-color", "--no-ext-diff", "--no-renames", "--patch-with-raw", "-z", commit, "--", *chunk
            ).stdout
            patches = patches_by_path(raw)
            if patches is None or not set(patches) <= set(chunk):  # not the output it reads: ask file by file
                out.update((path, self.diff_since(commit, path)) for path in chunk)
                continue
            out.update((path, _text(patch).rstrip("\n")) for path, patch in patches.items())
        return {path: diff for path, diff in out.items() if diff}

    def diff(self, commit: str) -> str:
        """The patch a commit made."""
        return self.out("show", "--format=", "--patch", "--no-color", "--no-ext-diff", commit)


def _commits_and_paths(raw: bytes) -> Iterator[tuple[str, str]]:
    """(commit, path) of each file in `git log -z --format=%x01%H --name-only` output, in git's order."""
    sha = ""
    for item in raw.split(b"\0"):
        item = item.strip(b"\n")
        if item.startswith(b"\x01"):
            head, _, item = item.partition(b"\n")
            sha = _text(head[1:]).strip()
            item = item.strip(b"\n")
        if item and sha:
            yield sha, _text(item)


def open_repo(layout: StoreLayout) -> StoreRepo:
    """The repository holding the store; raises NotInGit (or GitFailed, in words) when there is none."""
    proc = run_git(
        layout.root,
        ["rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"],
        check=False,
    )
    err = proc.stderr.decode("utf-8", "replace")
    lines = _text(proc.stdout).splitlines()
    if "dubious ownership" in err:
        raise GitFailed(explain_git_error(["rev-parse"], proc.returncode, err, layout.root))
    if len(lines) < 3:
        raise NotInGit(f"{layout.root} is not in a git repository; run `memtui init {layout.root}` to put it under git")
    bare, git_dir, common = lines[0].strip(), lines[1].strip(), lines[2].strip()
    if bare == "true" or proc.returncode != 0 or len(lines) < 4 or not lines[3].strip():
        raise NotInGit(f"{layout.root}: the repository found is bare (no work tree)")
    git_path = Path(git_dir).resolve()
    common_path = (Path(layout.root) / common).resolve() if not os.path.isabs(common) else Path(common).resolve()
    return StoreRepo(
        layout=layout, work_tree=Path(lines[3].strip()).resolve(), git_dir=git_path, common_dir=common_path
    )


def try_open_repo(layout: StoreLayout) -> StoreRepo | None:
    """The repository holding the store, or None (also when git refuses to work there)."""
    try:
        return open_repo(layout)
    except NotInGit:
        return None
