"""The git repository that holds a store: commits limited to the store's paths, trailers, file dates, history."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import git

from memtui.analysis.check import FileDates
from memtui.core.store import StoreLayout

FALLBACK_NAME = "memtui"
FALLBACK_EMAIL = "memtui@localhost"
TRAILER_PREFIX = "Memtui-"


class NotInGit(Exception):
    """The store is not inside a git work tree."""


@dataclass(frozen=True)
class Event:
    """One memtui commit read back from history."""

    commit: str
    date: str
    author: str
    action: str
    memories: tuple[str, ...]
    reason: str
    superseded_by: str
    subject: str
    trailers: dict[str, list[str]] = field(hash=False, compare=False)

    @property
    def memory(self) -> str:
        """The first memory the event is about."""
        return self.memories[0] if self.memories else ""

    def to_json(self) -> dict[str, str | list[str]]:
        """The shape of `memtui history --json`."""
        return {
            "commit": self.commit,
            "date": self.date,
            "author": self.author,
            "action": self.action,
            "memory": self.memory,
            "memories": list(self.memories),
            "reason": self.reason,
            "superseded_by": self.superseded_by,
        }


@dataclass
class StoreRepo:
    """A store and the git work tree it lives in."""

    layout: StoreLayout
    repo: git.Repo
    identity_note: str = ""

    @property
    def work_tree(self) -> Path:
        """The repository's top folder."""
        return Path(self.repo.working_tree_dir or ".").resolve()

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
        return [self.rel(p) for p in paths]

    def _existing_pathspecs(self) -> list[str]:
        specs = []
        for spec in self.owned_paths():
            if (self.work_tree / spec).exists() or self._known(spec):
                specs.append(spec)
        return specs

    def changed_paths(self) -> list[str]:
        """Store files that differ from HEAD (modified, added, deleted or untracked), relative to the work tree."""
        specs = self._existing_pathspecs()
        if not specs:
            return []
        out = self.repo.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *specs)
        paths = []
        for item in out.split("\0"):
            if len(item) > 3:
                paths.append(item[3:])
        return paths

    def _env(self) -> dict[str, str]:
        reader = self.repo.config_reader()
        env: dict[str, str] = {}
        name = reader.get_value("user", "name", default="") if reader.has_section("user") else ""
        email = reader.get_value("user", "email", default="") if reader.has_section("user") else ""
        if not os.environ.get("GIT_AUTHOR_NAME") and not name:
            env.update(GIT_AUTHOR_NAME=FALLBACK_NAME, GIT_COMMITTER_NAME=FALLBACK_NAME)
            self.identity_note = "git has no user.name/user.email here; committed as memtui <memtui@localhost>"
        if not os.environ.get("GIT_AUTHOR_EMAIL") and not email:
            env.update(GIT_AUTHOR_EMAIL=FALLBACK_EMAIL, GIT_COMMITTER_EMAIL=FALLBACK_EMAIL)
            self.identity_note = "git has no user.name/user.email here; committed as memtui <memtui@localhost>"
        return env

    def commit_paths_only(self, message: str, paths: Sequence[str]) -> str | None:
        """Commit exactly these paths (relative to the work tree) as they are on disk; None if nothing changed.

        `git commit --only -- <paths>` commits just those paths from the work tree and leaves every other
        staged or unstaged change of the user exactly as it was. Hooks and signing are skipped: these are
        data commits, and a signing prompt must never hang the app.
        """
        specs = [p for p in dict.fromkeys(paths) if (self.work_tree / p).exists() or self._known(p)]
        if not specs:
            return None
        env = self._env()
        self.repo.git.add("-A", "--", *specs)
        against = ["HEAD"] if self.has_head() else []
        if not self.repo.git.diff("--cached", "--name-only", *against, "--", *specs):
            return None
        with _message_file(message) as msg:
            self.repo.git.execute(
                ["git", "-c", "commit.gpgsign=false", "commit", "--quiet", "--no-verify", "--only", "-F", msg, "--", *specs],
                env={**os.environ, **env},
            )
        return self.repo.git.rev_parse("HEAD")

    def _known(self, path: str) -> bool:
        return bool(self.repo.git.ls_files("--", path))

    def marker_commit(self, message: str) -> str:
        """An empty commit (same tree as HEAD) that records a decision without touching any file or the index."""
        env = {**os.environ, **self._env()}
        tree = self.repo.git.rev_parse("HEAD^{tree}")
        parent = self.repo.head.commit.hexsha
        with _message_file(message) as msg:
            sha = self.repo.git.execute(["git", "commit-tree", tree, "-p", parent, "-F", msg], env=env)
        self.repo.git.update_ref("-m", "memtui: " + message.splitlines()[0], "HEAD", sha, parent)
        return sha

    def has_head(self) -> bool:
        """Whether the repository has at least one commit."""
        try:
            self.repo.head.commit
        except ValueError:
            return False
        return True

    def file_dates(self) -> FileDates:
        """First and last commit date of every store file, from one `git log` pass."""
        specs = self._existing_pathspecs()
        if not specs or not self.has_head():
            return FileDates()
        out = self.repo.git.log("--format=%x00%cs", "--name-only", "--no-renames", "--", *specs)
        first: dict[str, dt.date] = {}
        last: dict[str, dt.date] = {}
        current: dt.date | None = None
        root = self.layout.root
        for line in out.splitlines():
            if line.startswith("\0"):
                current = dt.date.fromisoformat(line[1:11])
            elif line and current is not None:
                rel = Path(os.path.relpath(self.work_tree / line, root)).as_posix()
                last.setdefault(rel, current)
                first[rel] = current
        return FileDates(first=first, last=last, source="git")

    def history(self, paths: Sequence[str] = (), limit: int | None = None) -> list[Event]:
        """memtui's events, newest first (commits without memtui trailers are left out)."""
        specs = list(paths) or self._existing_pathspecs()
        if not self.has_head():
            return []
        args = ["--format=%H%x1f%aI%x1f%an%x1f%B%x1e"]
        if limit:
            args.append(f"-n{limit}")
        # marker commits touch no path, so they are only found without a pathspec
        raw = self.repo.git.log(*args)
        events = []
        wanted = set(specs) if paths else None
        for chunk in raw.split("\x1e"):
            chunk = chunk.strip("\n")
            if not chunk:
                continue
            sha, date, author, body = chunk.split("\x1f", 3)
            trailers = parse_trailers(body)
            if not any(k.startswith(TRAILER_PREFIX) for k in trailers):
                continue
            action = _action(trailers)
            memories = tuple(trailers.get("Memtui-Memory", []))
            if wanted is not None and not (set(memories) & wanted):
                continue
            events.append(
                Event(
                    commit=sha, date=date, author=author, action=action, memories=memories,
                    reason=" ".join(trailers.get("Memtui-Reason", [])),
                    superseded_by=" ".join(trailers.get("Memtui-Superseded-By", []) + trailers.get("Memtui-Merged-Into", [])),
                    subject=body.splitlines()[0] if body else "",
                    trailers=trailers,
                )
            )
        return events

    def show(self, commit: str, path: str) -> bytes | None:
        """A file's bytes at a commit (path relative to the work tree), or None if it did not exist."""
        try:
            return self.repo.git.execute(  # type: ignore[return-value]
                ["git", "show", f"{commit}:{path}"], stdout_as_string=False, strip_newline_in_stdout=False
            )
        except git.GitCommandError:
            return None

    def commit_paths(self, commit: str) -> list[tuple[str, str]]:
        """(status, path) of every file a commit changed, relative to the work tree."""
        out = self.repo.git.diff_tree("--no-commit-id", "-r", "--name-status", "--no-renames", "--root", commit)
        rows = []
        for line in out.splitlines():
            status, _, path = line.partition("\t")
            rows.append((status, path))
        return rows

    def first_commit_date(self, path: Path) -> dt.date | None:
        """The day a file was first committed (one `git log` on that file), or None."""
        if not self.has_head():
            return None
        days = self.repo.git.log("--format=%cs", "--follow", "--", self.rel(path)).split()
        return dt.date.fromisoformat(days[-1]) if days else None

    def commits_touching(self, since: str, paths: Sequence[str]) -> list[str]:
        """Commits after `since` (exclusive) that touched any of `paths`."""
        if not paths:
            return []
        return self.repo.git.log("--format=%H", f"{since}..HEAD", "--", *paths).split()

    def diff(self, commit: str) -> str:
        """The patch a commit made."""
        return self.repo.git.show("--format=", "--patch", "--no-color", commit)


@contextmanager
def _message_file(text: str) -> Iterator[str]:
    """A commit message in a temporary file for `-F` (keeps it out of argv and its length limits)."""
    fd, name = tempfile.mkstemp(prefix="memtui-msg-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        yield name
    finally:
        os.unlink(name)


def _action(trailers: dict[str, list[str]]) -> str:
    if trailers.get("Memtui-Actor", [""])[0] == "agent":
        return "agent-write"
    return trailers.get("Memtui-Action", ["?"])[0]


def parse_trailers(body: str) -> dict[str, list[str]]:
    """`Key: value` trailer lines of a commit message (the last paragraph), multi-valued."""
    paragraphs = [p for p in body.strip().split("\n\n") if p.strip()]
    if not paragraphs:
        return {}
    out: dict[str, list[str]] = {}
    for line in paragraphs[-1].splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            out.setdefault(key, []).append(value.strip())
    return out


def one_line(text: str) -> str:
    """Text made safe for a trailer value: one line, no leading/trailing space."""
    return " ".join(text.split())


def message(action: str, subject: str, reason: str, trailers: Sequence[tuple[str, str]]) -> str:
    """A commit message with memtui's trailers (DESIGN §3)."""
    lines = [f"memtui: {action} {subject}".rstrip(), ""]
    if reason.strip():
        lines += [reason.strip(), ""]
    lines.append(f"Memtui-Action: {action}")
    for key, value in trailers:
        if value:
            lines.append(f"{key}: {one_line(value)}")
    return "\n".join(lines) + "\n"


def open_repo(layout: StoreLayout) -> StoreRepo:
    """The repository holding the store; raises NotInGit when there is none."""
    try:
        repo = git.Repo(layout.root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise NotInGit(
            f"{layout.root} is not in a git repository; run `memtui init {layout.root}` to put it under git"
        ) from None
    if repo.bare or repo.working_tree_dir is None:
        raise NotInGit(f"{layout.root}: the repository found is bare")
    return StoreRepo(layout=layout, repo=repo)


def try_open_repo(layout: StoreLayout) -> StoreRepo | None:
    """The repository holding the store, or None."""
    try:
        return open_repo(layout)
    except NotInGit:
        return None
