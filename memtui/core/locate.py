"""Finding the store to open when none is named: Claude Code's folder for this project, then in-repo copies."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

IN_REPO_CANDIDATES = (".claude/memory", "memory", "docs/memory", ".memory")
MAX_SLUG = 200


def slug(path: str) -> str:
    """Claude Code's `sanitizePath`: every character outside [A-Za-z0-9] becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def config_home(env: dict[str, str] | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR`, or `~/.claude`."""
    env = dict(os.environ) if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def git_root(start: Path) -> Path | None:
    """The canonical git root of `start` (worktrees resolve to the main repository), or None."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=start, capture_output=True, text=True, timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    common = Path(out.stdout.strip())
    return common.parent if common.name == ".git" else common


def claude_code_store(project: Path, env: dict[str, str] | None = None) -> Path:
    """The auto-memory folder Claude Code uses for `project` (which may not exist yet)."""
    base = git_root(project) or project
    name = slug(str(base.resolve()))
    projects = config_home(env) / "projects"
    if len(name) > MAX_SLUG:
        # The hash suffix depends on Claude Code's runtime; match by listing instead of computing it.
        prefix = name[:MAX_SLUG] + "-"
        if projects.is_dir():
            for candidate in sorted(projects.iterdir()):
                if candidate.name.startswith(prefix):
                    return candidate / "memory"
    return projects / name / "memory"


def locate_store(cwd: Path, env: dict[str, str] | None = None) -> tuple[Path | None, list[Path]]:
    """The store for the project at `cwd`, and every place that was looked at (for the error message)."""
    tried: list[Path] = []
    primary = claude_code_store(cwd, env)
    tried.append(primary)
    if primary.is_dir():
        return primary, tried
    root = git_root(cwd) or cwd
    for rel in IN_REPO_CANDIDATES:
        candidate = root / rel
        tried.append(candidate)
        if (candidate / "MEMORY.md").is_file() or (candidate.is_dir() and any(candidate.glob("*.md"))):
            return candidate, tried
    return None, tried
