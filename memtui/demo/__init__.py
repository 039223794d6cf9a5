"""The bundled demo store: a fresh copy with months of git history, built on demand.

This seeds a scratch folder (it never touches a user's store): the agent's writes are replayed as backdated
commits, and the people's decisions in the history (the revoked polite-writing rule, a verify, a finished
review) are made with memtui's own ops, so the history reads exactly as a real one would.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import tempfile
from contextlib import contextmanager
from collections.abc import Iterator
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
        "GIT_AUTHOR_NAME": PERSON[0], "GIT_AUTHOR_EMAIL": PERSON[1],
        "GIT_COMMITTER_NAME": PERSON[0], "GIT_COMMITTER_EMAIL": PERSON[1],
        "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp,
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


def make_demo_store(today: dt.date | None = None, parent: Path | None = None) -> Path:
    """Build a fresh demo store and return its memory folder (`<tmp>/atlas/memory`)."""
    from memtui import ops

    today = today or dt.date.today()
    base = Path(parent) if parent else Path(tempfile.mkdtemp(prefix="memtui-demo-"))
    top = base / "atlas"
    store = top / "memory"
    store.mkdir(parents=True)
    first_day = today - dt.timedelta(days=181)
    _git(top, "init", "-q", "-b", "main", day=first_day)
    _git(top, "config", "user.name", PERSON[0], day=first_day)
    _git(top, "config", "user.email", PERSON[1], day=first_day)
    (top / ".gitignore").write_text("/*\n!/.gitignore\n!/memory/\n!/memory.archive/\n")
    _git(top, "add", ".gitignore", day=first_day)
    _git(top, "commit", "-q", "-m", "memtui: init memory\n\nPut the memory store under git.\n\nMemtui-Action: init\nMemtui-Memory: memory\n", day=first_day)

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
                ops.archive(store, "feedback_writing_polite.md",
                            reason="User now wants the direct style; the polite rule is kept as evidence.",
                            superseded_by="feedback_writing_direct.md", today=today - dt.timedelta(days=94))
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
