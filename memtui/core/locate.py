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
            cwd=start,
            capture_output=True,
            text=True,
            timeout=10,
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


# --------------------------------------------------------------------------------------------- hook paths

AGENT_MEMORY_DIRS = ("agent-memory", "agent-memory-local")


def hook_path(raw: str) -> Path | None:
    """The absolute path a hook payload names, with Windows separators normalised; None if it is not one.

    Claude Code sends native separators; a path written with backslashes that does not exist as such is read
    with forward slashes so the same payload works on every system memtui runs on.
    """
    if not raw or "\x00" in raw or len(raw) > 4096:
        return None
    text = raw
    if os.sep == "/" and "\\" in text and not os.path.exists(text):
        text = text.replace("\\", "/")
    path = Path(text).expanduser()
    if not path.is_absolute():
        return None
    return Path(os.path.normpath(path))


def _under(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return path != folder


def _settings_memory_dirs(env: dict[str, str], project: Path | None) -> list[Path]:
    """`autoMemoryDirectory` from the user settings and, for `project`, its local and shared settings."""
    import json

    files = [config_home(env) / "settings.json"]
    if project is not None:
        files += [project / ".claude" / "settings.local.json", project / ".claude" / "settings.json"]
    found: list[Path] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
        if isinstance(value, str) and value.strip():
            candidate = Path(value.strip()).expanduser()
            if candidate.is_absolute():
                found.append(Path(os.path.normpath(candidate)))
    return found


def store_of_file(file: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> Path | None:
    """The memory store `file` belongs to, or None when it lies in no store memtui knows.

    Stores recognised: `<config>/projects/<slug>/memory/` (`$CLAUDE_CONFIG_DIR` or `~/.claude`, or
    `$CLAUDE_CODE_REMOTE_MEMORY_DIR` as the base), `autoMemoryDirectory` from settings,
    `$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`, sub-agent memory (`<config>/agent-memory/<agent>/` and any
    `.claude/agent-memory[-local]/<agent>/`), and an in-repo copy (`.claude/memory`, `memory`, `docs/memory`,
    `.memory` with a MEMORY.md) of the project at `cwd`. Only Markdown files count.
    """
    env = dict(os.environ) if env is None else env
    if file.suffix.lower() != ".md":
        return None
    real = Path(os.path.realpath(file))
    candidates = [file] if real == file else [file, real]

    def inside(folder: Path) -> bool:
        folder = Path(os.path.normpath(folder))
        folders = {folder, Path(os.path.realpath(folder))}
        return any(_under(c, f) for c in candidates for f in folders)

    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "").strip()
    if override and Path(override).is_absolute() and inside(Path(override)):
        return Path(os.path.normpath(override))
    bases = [config_home(env)]
    remote = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR", "").strip()
    if remote and Path(remote).is_absolute():
        bases.insert(0, Path(remote))
    for base in bases:
        for c in candidates:
            for root in {base, Path(os.path.realpath(base))}:
                if not _under(c, root):
                    continue
                parts = c.relative_to(root).parts
                if len(parts) >= 4 and parts[0] == "projects" and parts[2] == "memory":
                    return root / "projects" / parts[1] / "memory"
                if len(parts) >= 3 and parts[0] in AGENT_MEMORY_DIRS:
                    return root / parts[0] / parts[1]
    project = Path(cwd) if cwd is not None else None
    for folder in _settings_memory_dirs(env, project):
        if inside(folder):
            return folder
    for c in candidates:
        parts = c.parts
        for i in range(len(parts) - 3):
            if parts[i] == ".claude" and parts[i + 1] in AGENT_MEMORY_DIRS:
                return Path(*parts[: i + 3])
    names = {n for c in candidates for n in c.parts}
    if project is not None and project.is_absolute() and names & {"memory", ".memory"}:
        roots = [project]
        top = git_root(project) if project.is_dir() else None
        if top is not None and top != project:
            roots.append(top)
        for root in roots:
            for rel in IN_REPO_CANDIDATES:
                folder = root / rel
                if (folder / "MEMORY.md").is_file() and inside(folder):
                    return folder
    return None
