"""Archive on a 10,000-memory store with a 5,000-commit history, against plain `git add` + `git commit`
of the same change, timed in the same run (issue #3: well under a second).

Usage: python benchmarks/archive_speed.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402

from memtui import ops  # noqa: E402

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
}


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True, input=stdin
    ).stdout


def build(top: Path, memories: int, commits: int) -> Path:
    store = make_store(top, memories)
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "seed")
    # a long history, made fast with fast-import: each commit touches one memory file
    files = sorted(p.name for p in store.glob("*.md") if p.name != "MEMORY.md")
    stream = []
    for i in range(commits - 1):
        name = files[i % len(files)]
        data = (store / name).read_text() + f"\nrevision {i}\n"
        stream.append(
            f"commit refs/heads/main\ncommitter Bench <b@example.com> {1_700_000_000 + i} +0000\n"
            f"data {len('edit')}\nedit\n"
            + ("from refs/heads/main^0\n" if i == 0 else "")
            + f"M 100644 inline memory/{name}\ndata {len(data.encode())}\n{data}\n"
        )
    git(top, "fast-import", "--quiet", stdin="".join(stream))
    git(top, "reset", "-q", "--hard", "main")
    return store


def plain_git(top: Path, store: Path, name: str) -> None:
    """The same change made by hand: move the file, drop its index line, git add + commit."""
    archive = top / "memory.archive"
    archive.mkdir(exist_ok=True)
    shutil.move(str(store / name), str(archive / name))
    index = store / "MEMORY.md"
    index.write_text("".join(line for line in index.read_text().splitlines(True) if f"({name})" not in line))
    git(top, "add", "-A", "--", "memory", "memory.archive")
    git(top, "commit", "-q", "-m", f"archive {name}")


def main() -> int:
    memories, commits = 10_000, 5_000
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        top = Path(tmp) / "store"
        store = build(top, memories, commits)
        setup = time.perf_counter() - start
        count = int(git(top, "rev-list", "--count", "HEAD"))
        names = sorted(p.name for p in store.glob("*.md") if p.name != "MEMORY.md")
        plain, ours = [], []
        for i in range(3):
            t = time.perf_counter()
            plain_git(top, store, names[2 * i])
            plain.append(time.perf_counter() - t)
            t = time.perf_counter()
            ops.archive(store, names[2 * i + 1], reason="benchmark", today=dt.date(2026, 11, 30))
            ours.append(time.perf_counter() - t)
        result = {
            "memories": memories,
            "commits_in_history": count,
            "setup_s": round(setup, 1),
            "plain_git_add_commit_s": round(min(plain), 3),
            "memtui_archive_s": round(min(ours), 3),
            "ratio": round(min(ours) / min(plain), 2),
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
