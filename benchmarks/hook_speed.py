"""`memtui hook post-tool-use` wall time, as Claude Code runs it: a new process per Write/Edit call.

Issue 12: the hook answers within 1 s on a 200-memory store (Claude Code's own recall cap is 200 memory files).
Measured through the real command in a subprocess, so interpreter start-up and imports are counted:
  - a write outside any store (the common case: every code edit of the session);
  - a memory write into a 200-memory store with no repository (check only);
  - the same in a store under memtui's own repository (the agent-write commit runs detached, after the answer);
  - for information, the same with MEMTUI_HOOK_SYNC=1 (commit inline before exit; not held to the budget).
Usage: python benchmarks/hook_speed.py [--memories 200] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402

BUDGET = 1.0
NEW = """---
name: feedback-use-bun
description: Front end switched from npm to bun
type: feedback
---

The front end switched to bun: install dependencies with bun, no longer npm. The lockfile is now bun.lockb.

**Why:** faster installs.

**How to apply:** run bun install in web/.
"""
OLD = """---
name: feedback-use-npm
description: Install front-end packages with npm
type: feedback
---

Front end installs dependencies with npm; the lockfile is package-lock.json.

**Why:** one lockfile.

**How to apply:** run npm install in web/.
"""


def payload(path: Path, session: str = "bench-session") -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(path.parent),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {
                "file_path": str(path),
                "content": path.read_text(encoding="utf-8") if path.exists() else "",
            },
            "tool_response": {"filePath": str(path), "success": True},
        }
    ).encode()


def timed(data: bytes, env: dict[str, str], runs: int, before=None) -> tuple[list[float], list[float], bytes]:  # type: ignore[no-untyped-def]
    """Wall time and CPU time (user + system, of the hook process) of each run, and the last answer."""
    walls, cpus, out = [], [], b""
    for _ in range(runs):
        if before:
            before()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "memtui", "hook", "post-tool-use"],
            input=data,
            capture_output=True,
            env=env,
            timeout=60,
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime)
        assert done.returncode == 0, done.stderr
        out = done.stdout
    return walls, cpus, out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "claude"
        # as installed: bytecode cached (pip compiles it at install time), whatever this shell says
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {
            **base,
            "CLAUDE_CONFIG_DIR": str(config),
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "b@x",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "b@x",
        }
        store = make_store(config / "projects" / "-bench", args.memories - 2)
        (store / "feedback_use_npm.md").write_text(OLD, encoding="utf-8")
        os.utime(store / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000))
        new = store / "feedback_use_bun.md"
        new.write_text(NEW, encoding="utf-8")
        count = sum(1 for _ in store.glob("*.md")) - 1
        rows = []
        timed(payload(new), env, 1)  # warm-up: writes the bytecode cache
        elsewhere = Path(tmp) / "src" / "app.py"
        elsewhere.parent.mkdir()
        elsewhere.write_text("print(1)\n")
        rows.append(("write outside any store", *timed(payload(elsewhere), env, args.runs)))
        rows.append((f"memory write, {count} memories, no repo", *timed(payload(new), env, args.runs)))
        subprocess.run(
            [sys.executable, "-m", "memtui", "init", str(store)], env=env, capture_output=True, timeout=60, check=True
        )
        flip = iter(range(10_000))

        def touch() -> None:
            new.write_text(NEW + f"\nRevision {next(flip)}.\n", encoding="utf-8")

        rows.append(("memory write, memtui repo (commit detached)", *timed(payload(new), env, args.runs, touch)))
        sync = {**env, "MEMTUI_HOOK_SYNC": "1"}
        rows.append(("memory write + inline commit (not budgeted)", *timed(payload(new), sync, args.runs, touch)))
        log = subprocess.run(
            ["git", "-C", str(store.parent), "log", "--format=%s", "-n", "3"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        worst = 0.0
        load = os.getloadavg()[0]
        print(
            f"memtui hook post-tool-use, {args.runs} runs each (budget {BUDGET:.1f} s; "
            f"{os.cpu_count()} cores, load average {load:.1f})"
        )
        for name, walls, cpus, out in rows:
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            worst = worst if "not budgeted" in name else max(worst, wall)
            said = "answered" if out else "silent"
            print(
                f"  {name:45} wall median {wall * 1000:5.0f} ms (max {max(walls) * 1000:5.0f})"
                f"  cpu median {cpu * 1000:5.0f} ms  ({said})"
            )
        print(f"  last commits: {' | '.join(log.splitlines())}")
        ok = worst <= BUDGET
        print(
            f"{'OK' if ok else 'OVER BUDGET'}: slowest wall median {worst * 1000:.0f} ms"
            + ("" if ok or load < (os.cpu_count() or 1) else " (machine overloaded: see the cpu column)")
        )
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
