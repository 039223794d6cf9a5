"""The bundled demo store: a fresh copy with months of git history, built on demand.

This seeds a scratch folder (it never touches a user's store): the agent's writes are replayed as backdated
commits, and the people's decisions in the history (the revoked polite-writing rule, a verify, a finished
review) are made with memtui's own ops, so the history reads exactly as a real one would.

Where it lives: a demo made without a `parent` is built in `<tmp>/memtui-demo-XXXX/` (the system temp folder,
`$TMPDIR`) and removed when the process that made it exits, so `memtui check --demo` and `make demo` leave
nothing behind (`demo_store` removes it sooner, at the end of a `with` block). A folder whose process was killed
(kill -9 skips exit handlers) is removed by the next demo built on the machine: each holds an owner file with
its process id. `--demo DIR` builds one with `parent=DIR`, which stays.
"""

from __future__ import annotations

import atexit
import datetime as dt
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtui.demo import content

PERSON = ("Mei Chen", "mei.chen@example.com")
_PLACEHOLDER = re.compile(r"\{d([+-]\d+)\}")


def _render(text: str, today: dt.date) -> str:
    return _PLACEHOLDER.sub(lambda m: (today + dt.timedelta(days=int(m.group(1)))).isoformat(), text)


def _env(day: dt.date) -> dict[str, str]:
    stamp = f"{day.isoformat()}T10:00:00+08:00"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": PERSON[0],
        "GIT_AUTHOR_EMAIL": PERSON[1],
        "GIT_COMMITTER_NAME": PERSON[0],
        "GIT_COMMITTER_EMAIL": PERSON[1],
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }


def _git(repo: Path, *args: str, day: dt.date) -> None:
    subprocess.run(["git", *args], cwd=repo, env=_env(day), check=True, capture_output=True)


@contextmanager
def _backdated(day: dt.date) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in _env(day) if k.startswith("GIT_")}
    os.environ.update({k: v for k, v in _env(day).items() if k.startswith("GIT_")})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _index_text(present: set[str], today: dt.date, with_log: bool, extra: list[str]) -> str:
    lines = []
    for line in content.INDEX_HEAD.splitlines():
        match = re.search(r"\]\(([^)]+)\)", line)
        if match and match.group(1) not in present and match.group(1) != "feedback_webhook_retries.md":
            continue
        if "feedback_webhook_retries.md" in line and not with_log:
            continue
        if "mocks allowed for speed" in line and not with_log:
            continue
        lines.append(line)
    lines[2:2] = extra
    text = "\n".join(lines) + "\n"
    if with_log:
        text += "\n## Session log\n\n"
        for i in range(content.SESSION_LOG_DAYS):
            day = today - dt.timedelta(days=content.SESSION_LOG_DAYS - i)
            text += f"- {day.isoformat()}: session {i + 1} — worked on billing tasks; notes kept in topic files\n"
        text += content.INDEX_TAIL
    return text


def _record(repo: Path, files: list[str], day: dt.date) -> None:
    _git(repo, "add", "-A", "--", "memory", day=day)
    body = "Files the agent wrote or changed since memtui last committed:\n" + "\n".join(f"- memory/{f}" for f in files)
    trailers = "".join(f"Memtui-Memory: memory/{f}\n" for f in files)
    msg = f"memtui: record agent writes ({len(files)} file{'s' if len(files) != 1 else ''})\n\n{body}\n\nMemtui-Actor: agent\n{trailers}"
    _git(repo, "commit", "-q", "--no-verify", "-m", msg, day=day)


DEMO_PREFIX = "memtui-demo-"
OWNER_FILE = ".memtui-demo-owner"


def _remove(base: Path, owner: int) -> None:
    # a forked worker inherits exit handlers; only the process that made the demo removes it
    if os.getpid() == owner:
        shutil.rmtree(base, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def sweep_stale_demos(folder: Path | None = None) -> list[Path]:
    """Remove demo folders whose owning process is gone (killed before it could clean up); return them."""
    removed: list[Path] = []
    root = Path(folder or tempfile.gettempdir())
    try:
        candidates = [p for p in root.iterdir() if p.name.startswith(DEMO_PREFIX)]
    except OSError:
        return removed
    for base in candidates:
        try:
            pid = int((base / OWNER_FILE).read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            continue  # not ours to judge: no owner file
        if not _alive(pid):
            shutil.rmtree(base, ignore_errors=True)
            removed.append(base)
    return removed


def _scratch_folder() -> Path:
    """A temp folder for one demo, removed when this process exits; stale ones from killed runs go first."""
    sweep_stale_demos()
    base = Path(tempfile.mkdtemp(prefix=DEMO_PREFIX))
    (base / OWNER_FILE).write_text(str(os.getpid()), encoding="ascii")
    atexit.register(_remove, base, os.getpid())
    return base


@contextmanager
def demo_store(today: dt.date | None = None) -> Iterator[Path]:
    """A fresh demo store for the length of a `with` block, removed right after it."""
    base = _scratch_folder()
    try:
        yield make_demo_store(today, parent=base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def make_demo_store(today: dt.date | None = None, parent: Path | None = None) -> Path:
    """Build a fresh demo store and return its memory folder (`<parent>/atlas/memory`).

    Without `parent`, it is built in a temp folder that is removed when this process exits (see above).
    """
    from memtui import ops

    today = today or dt.date.today()
    base = Path(parent) if parent else _scratch_folder()
    top = base / "atlas"
    store = top / "memory"
    store.mkdir(parents=True)
    first_day = today - dt.timedelta(days=181)
    _git(top, "init", "-q", "-b", "main", day=first_day)
    _git(top, "config", "user.name", PERSON[0], day=first_day)
    _git(top, "config", "user.email", PERSON[1], day=first_day)
    (top / ".gitignore").write_text("/*\n!/.gitignore\n!/memory/\n!/memory.archive/\n")
    _git(top, "add", ".gitignore", day=first_day)
    _git(
        top,
        "commit",
        "-q",
        "-m",
        "memtui: init memory\n\nPut the memory store under git.\n\nMemtui-Action: init\nMemtui-Memory: memory\n",
        day=first_day,
    )

    by_day: dict[int, list[tuple[str, str]]] = {}
    for name, offset, text in content.MEMORIES:
        by_day.setdefault(offset, []).append((name, text))
    present: set[str] = set()
    polite_line = ["- [Polite writing](feedback_writing_polite.md) — formal tone for release notes"]
    archived_polite = False
    reviewed = False
    verified = False
    for offset in sorted(by_day):
        day = today + dt.timedelta(days=offset)
        if offset > -94 and not archived_polite:
            with _backdated(today - dt.timedelta(days=94)):
                ops.archive(
                    store,
                    "feedback_writing_polite.md",
                    reason="User now wants the direct style; the polite rule is kept as evidence.",
                    superseded_by="feedback_writing_direct.md",
                    today=today - dt.timedelta(days=94),
                )
            archived_polite = True
        if offset > -50 and not verified:
            with _backdated(today - dt.timedelta(days=50)):
                ops.verify(store, "user_observability.md", today=today - dt.timedelta(days=50))
            verified = True
        if offset > -14 and not reviewed:
            with _backdated(today - dt.timedelta(days=14)):
                ops.finish_review(store, "Weekly review: 3 decided, 1 kept.", today=today - dt.timedelta(days=14))
            reviewed = True
        written = []
        for name, text in by_day[offset]:
            (store / name).write_text(_render(text, today), encoding="utf-8")
            present.add(name)
            written.append(name)
        with_log = offset >= -10
        if with_log and not (store / content.MALFORMED_NAME).exists():
            (store / content.MALFORMED_NAME).write_text(content.MALFORMED, encoding="utf-8")
            written.append(content.MALFORMED_NAME)
        extra = polite_line if not archived_polite else []
        (store / "MEMORY.md").write_text(_index_text(present, today, with_log, extra), encoding="utf-8")
        _record(top, written + ["MEMORY.md"], day)
    # what the agent wrote since, not yet committed: the review queue shows it as new
    for name, text in content.AFTER_REVIEW:
        (store / name).write_text(_render(text, today), encoding="utf-8")
    return store
