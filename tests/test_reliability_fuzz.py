"""A seeded fuzz test: random front matter, names and bodies through `check` and every action, time-bounded.

Invariants: every call ends in a result or one of memtui's own refusals (never another exception), each within
a time bound; no memory's body is ever lost (it is in the work tree or in git); memtui never leaves its
changes staged, never leaves temp files, and the store's indexes never point at missing files it wrote.
"""

from __future__ import annotations

import datetime as dt
import random
import subprocess
import time
from pathlib import Path

import pytest
from conftest import git, init_repo

from memtui import ops
from memtui.analysis.check import check_store
from memtui.audit.lock import LockHeld
from memtui.audit.repo import NotInGit
from memtui.core.store import StoreError, load_store

DAY = dt.date(2026, 11, 30)
SECONDS_PER_CALL = 20.0
NAME_CHARS = "abcxyz_-. 规ü\t'\"*:#[]()"
VALUES = [
    "plain",
    "",
    "null",
    "'quoted'",
    '"dq"',
    "[a, b]",
    "{k: v}",
    "- item",
    "2026-11-30",
    "tomorrow",
    ": colon",
    "|\n  block",
    "&anchor x",
    "&a [1]",
    "!!str tagged",
    "\u202eevil",
    "\x1b[31mred",
    "very " * 40,
]
TYPES = ["user", "feedback", "project", "reference", "bogus", "", "[user]"]


def random_name(rng: random.Random) -> str:
    stem = "".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 12))).strip().lstrip(".-") or "m"
    return f"{rng.choice(['feedback', 'user', 'project', 'reference'])}_{stem}.md".replace("/", "_")


def random_memory(rng: random.Random) -> bytes:
    lines = []
    if rng.random() < 0.9:
        lines.append("---")
        for key in rng.sample(
            ["name", "description", "type", "metadata", "last_verified", "status", "extra"], rng.randint(0, 6)
        ):
            value = rng.choice(TYPES) if key == "type" else rng.choice(VALUES)
            lines.append(f"{key}: {value}")
        if rng.random() < 0.85:
            lines.append("---")
    body = [f"Body line {i} {rng.choice(VALUES)} {rng.random():.6f}" for i in range(rng.randint(0, 6))]
    text = "\n".join(lines + [""] + body) + ("\n" if rng.random() < 0.8 else "")
    data = text.encode("utf-8")
    if rng.random() < 0.05:
        data = data.replace(b"Body", b"B\xe9dy")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.05:
        data = data.replace(b"\n", b"\r\n")
    return data


def bodies_safe(top: Path, before: dict[str, bytes]) -> list[str]:
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=top, capture_output=True, timeout=60
    ).stdout
    tree = b"".join(p.read_bytes() for p in top.rglob("*") if p.is_file() and ".git" not in p.parts)
    lost = []
    for name, data in before.items():
        tail = data.split(b"---", 2)[-1].strip()[-40:]
        if tail and tail not in objects and tail not in tree:
            lost.append(name)
    return lost


@pytest.mark.parametrize("seed", range(4))
def test_random_stores_through_check_and_every_action(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    top = tmp_path / "p"
    store = top / "memory"
    store.mkdir(parents=True)
    before: dict[str, bytes] = {}
    for _ in range(8):
        name = random_name(rng)
        data = random_memory(rng)
        (store / name).write_bytes(data)
        before[name] = data
    (store / "MEMORY.md").write_text("# Memory\n\n" + "".join(f"- [{n}]({n}) — x\n" for n in list(before)[:5]))
    init_repo(top)
    allowed = (ops.OpError, NotInGit, LockHeld, StoreError)

    def timed(label: str, fn) -> object:  # type: ignore[no-untyped-def]
        start = time.monotonic()
        try:
            return fn()
        except allowed:
            return None
        finally:
            assert time.monotonic() - start < SECONDS_PER_CALL, f"{label} took too long"

    for step in range(10):
        loaded = timed("load", lambda: load_store(store))
        assert loaded is not None
        timed("check", lambda: check_store(loaded, DAY))
        live = [m for m in loaded.memories if not m.in_archive]
        archived = [m for m in loaded.memories if m.in_archive]
        action = rng.choice(["archive", "verify", "edit", "merge", "restore", "undo", "fix", "agent"])
        if action == "archive" and live:
            m = rng.choice(live)
            timed(action, lambda: ops.archive(store, m.path, reason=rng.choice(VALUES) or "r", today=DAY))
        elif action == "verify" and live:
            m = rng.choice(live)
            timed(action, lambda: ops.verify(store, m.path, today=DAY))
        elif action == "edit" and live:
            m = rng.choice(live)
            timed(action, lambda: ops.edit(store, m.path, random_memory(rng).decode("utf-8", "replace"), today=DAY))
        elif action == "merge" and len(live) >= 2:
            a, b = rng.sample(live, 2)
            timed(action, lambda: ops.merge(store, [a.path, b.path], into=random_name(rng), today=DAY))
        elif action == "restore" and archived:
            m = rng.choice(archived)
            timed(action, lambda: ops.restore(store, m.path, today=DAY))
        elif action == "undo":
            timed(action, lambda: ops.undo(store, today=DAY))
        elif action == "fix" and live:
            m = rng.choice(live)
            timed(action, lambda: ops.fix_date(store, m.path, today=DAY))
        else:  # the agent writes a new memory
            name = random_name(rng)
            data = random_memory(rng)
            (store / name).write_bytes(data)
            before[name] = data
        assert git(top, "diff", "--cached", "--name-only") == "", f"step {step} {action}: memtui left changes staged"
        assert not [p for p in top.rglob("*.tmp") if ".git" not in p.parts], f"step {step} {action}: temp file left"
    assert not bodies_safe(top, before)
