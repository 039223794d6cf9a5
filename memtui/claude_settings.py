"""`memtui hooks install | uninstall | status`: memtui's PostToolUse hook in Claude Code's *user* settings.

Only the user file (`$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`) is touched, never a
project's committed `.claude/settings.json` (teammates without memtui would get a hook error on every write).
The merge keeps every other key, event, group and handler as it was and in order; memtui's handler is found
by its `statusMessage` marker (or its command), so a second install changes nothing; the original file is
backed up once; the write is atomic (temp file + rename, same mode, through a symlink to its target); a file
that is not valid JSON is refused, never overwritten.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.errors import EXIT_REFUSED
from memtui.core.locate import config_home

MARKER = "memtui: checking memory"
"""The `statusMessage` of memtui's handler: Claude Code shows it while the hook runs, memtui finds it by it."""
MATCHER = "Write|Edit"
TIMEOUT = 10
"""Seconds; a hang can then never stall the agent for Claude Code's 600 s default."""
BACKUP_SUFFIX = ".memtui-backup"
MANAGED_SETTINGS = (
    Path("/etc/claude-code/managed-settings.json"),
    Path("/Library/Application Support/ClaudeCode/managed-settings.json"),
)


class SettingsError(Exception):
    """A settings file memtui will not change; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Change:
    """What install or uninstall did."""

    path: Path
    changed: bool
    message: str
    backup: Path | None = None


@dataclass(frozen=True)
class Status:
    """Whether memtui's hook is installed in the user settings, and whether Claude Code would run it."""

    path: Path
    installed: bool
    command: str | None
    hooks_disabled: bool
    """`disableAllHooks: true` in that file."""
    managed_only: bool
    """Managed policy settings allow only managed hooks (or disable all hooks)."""
    plugin: bool
    """memtui also appears among Claude Code's installed plugins (do not install both)."""
    error: str | None = None


def settings_path(env: Mapping[str, str] | None = None) -> Path:
    """The user settings file Claude Code reads: `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`."""
    return config_home(dict(os.environ if env is None else env)) / "settings.json"


def hook_command() -> str:
    """The shell command for the handler: the absolute path of this `memtui`, quoted."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "memtui" and script.is_file():
        exe = str(script.resolve().parent / script.name) if not script.is_absolute() else str(script)
        return f"{shlex.quote(exe)} hook post-tool-use"
    beside = Path(sys.executable).parent / "memtui"
    if beside.is_file():
        return f"{shlex.quote(str(beside))} hook post-tool-use"
    found = shutil.which("memtui")
    if found:
        return f"{shlex.quote(str(Path(found).absolute()))} hook post-tool-use"
    return f"{shlex.quote(sys.executable)} -m memtui hook post-tool-use"


def handler(command: str) -> dict[str, Any]:
    """memtui's handler entry."""
    return {"type": "command", "command": command, "timeout": TIMEOUT, "statusMessage": MARKER}


def is_memtui_handler(entry: Any) -> bool:
    """Whether a handler entry is memtui's (by marker, or by a command that runs `memtui hook post-tool-use`)."""
    if not isinstance(entry, dict):
        return False
    if entry.get("statusMessage") == MARKER:
        return True
    command = entry.get("command")
    return isinstance(command, str) and "memtui" in command and "hook post-tool-use" in command


# --------------------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Loaded:
    data: dict[str, Any]
    raw: bytes | None
    indent: int | str
    newline: bool


def _load(path: Path) -> _Loaded:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _Loaded({}, None, 2, True)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise SettingsError(
            f"{path}: not valid JSON ({exc}); memtui changed nothing — fix the file (Claude Code reports it as a "
            "Settings Error too) and run the command again"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(
            f"{path}: the top level is {type(data).__name__}, not a JSON object; memtui changed nothing"
        )
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f'{path}: "hooks" is not an object; memtui changed nothing')
    if isinstance(hooks, dict) and "PostToolUse" in hooks and not isinstance(hooks["PostToolUse"], list):
        raise SettingsError(f'{path}: "hooks.PostToolUse" is not a list; memtui changed nothing')
    return _Loaded(data, raw, _indent_of(text), text.endswith("\n") or not text.strip())


def _indent_of(text: str) -> int | str:
    """The indentation the file uses (Claude Code writes two spaces), so untouched parts keep their bytes."""
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return 2
    lead = match.group(1)
    return "\t" if lead.startswith("\t") else len(lead)


def _dump(loaded: _Loaded, data: dict[str, Any]) -> bytes:
    text = json.dumps(data, indent=loaded.indent, ensure_ascii=False)
    return (text + ("\n" if loaded.newline else "")).encode("utf-8")


def _write(path: Path, data: bytes, original: bytes | None) -> Path | None:
    """Back the original up once, then replace the file atomically (through a symlink, keeping its mode)."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if original is not None:
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        if not backup.exists():
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(original)
        else:
            backup = None
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    json.loads(target.read_bytes().decode("utf-8"))  # re-read: what Claude Code will load must parse
    return backup


# --------------------------------------------------------------------------------------------- changes


def _groups(data: dict[str, Any]) -> list[Any]:
    return list((data.get("hooks") or {}).get("PostToolUse") or [])


def _strip(groups: list[Any]) -> tuple[list[Any], int | None]:
    """Groups without memtui's handlers (groups left empty by that are dropped) and where the first one was."""
    out: list[Any] = []
    first: int | None = None
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list) or not any(is_memtui_handler(h) for h in inner):
            out.append(group)
            continue
        if first is None:
            first = len(out)
        kept = [h for h in inner if not is_memtui_handler(h)]
        if kept:
            out.append({**group, "hooks": kept})
    return out, first


def _set_groups(data: dict[str, Any], groups: list[Any]) -> dict[str, Any]:
    """`data` with PostToolUse replaced (dropped when empty, and `hooks` too when nothing is left), order kept."""
    hooks = dict(data.get("hooks") or {})
    if groups:
        hooks["PostToolUse"] = groups
    else:
        hooks.pop("PostToolUse", None)
    out = dict(data)
    if hooks:
        out["hooks"] = hooks
    else:
        out.pop("hooks", None)
    return out


def install(path: Path | None = None, command: str | None = None) -> Change:
    """Add (or update in place) memtui's PostToolUse handler; a second install writes nothing."""
    path = path or settings_path()
    command = command or hook_command()
    loaded = _load(path)
    wanted = {"matcher": MATCHER, "hooks": [handler(command)]}
    groups = _groups(loaded.data)
    ours = [g for g in groups if isinstance(g, dict) and any(is_memtui_handler(h) for h in g.get("hooks") or [])]
    if len(ours) == 1 and ours[0] == wanted:
        return Change(path, False, f"memtui's hook is already installed in {path}; nothing changed")
    rest, first = _strip(groups)
    position = len(rest) if first is None else min(first, len(rest))
    rest.insert(position, wanted)
    if "hooks" not in loaded.data:
        data = dict(loaded.data)
        data["hooks"] = {"PostToolUse": rest}
    else:
        data = _set_groups(loaded.data, rest)
    backup = _write(path, _dump(loaded, data), loaded.raw)
    verb = "updated" if ours else "installed"
    return Change(path, True, f"{verb} memtui's PostToolUse hook ({MATCHER}) in {path}", backup)


def uninstall(path: Path | None = None) -> Change:
    """Remove memtui's handlers only (and groups or events they leave empty); nothing else changes."""
    path = path or settings_path()
    if not path.exists():
        return Change(path, False, f"{path} does not exist; nothing to remove")
    loaded = _load(path)
    groups = _groups(loaded.data)
    rest, first = _strip(groups)
    if first is None:
        return Change(path, False, f"memtui's hook is not in {path}; nothing changed")
    backup = _write(path, _dump(loaded, _set_groups(loaded.data, rest)), loaded.raw)
    return Change(path, True, f"removed memtui's hook from {path}", backup)


def status(path: Path | None = None, env: Mapping[str, str] | None = None) -> Status:
    """Whether the hook is installed, where, and whether hooks are disabled there or by policy."""
    path = path or settings_path(env)
    env = dict(os.environ if env is None else env)
    plugin = _plugin_installed(config_home(env))
    managed = _managed_only()
    try:
        loaded = _load(path)
    except SettingsError as exc:
        return Status(path, False, None, False, managed, plugin, str(exc))
    command = None
    for group in _groups(loaded.data):
        for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
            if is_memtui_handler(h):
                command = str(h.get("command", ""))
                break
        if command is not None:
            break
    return Status(path, command is not None, command, loaded.data.get("disableAllHooks") is True, managed, plugin)


def _managed_only() -> bool:
    for file in MANAGED_SETTINGS:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and (
            data.get("allowManagedHooksOnly") is True or data.get("disableAllHooks") is True
        ):
            return True
    return False


def _plugin_installed(home: Path) -> bool:
    """memtui among Claude Code's installed plugins (`plugins/installed_plugins.json`; format not documented)."""
    try:
        text = (home / "plugins" / "installed_plugins.json").read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r'"memtui(@[^"]*)?"', text) is not None


def describe(s: Status) -> list[str]:
    """`memtui hooks status` as lines of text."""
    if s.error:
        return [f"memtui hook: cannot tell — {s.error}"]
    lines = [f"memtui hook: {'installed' if s.installed else 'not installed'} in {s.path}"]
    if s.command:
        lines.append(f"  command: {s.command}")
        exe = shlex.split(s.command)[0] if s.command.strip() else ""
        if exe and os.path.isabs(exe) and not os.path.exists(exe):
            lines.append(f"  warning: {exe} does not exist; Claude Code will show a hook error on every write")
    if s.hooks_disabled:
        lines.append('  hooks are disabled there ("disableAllHooks": true): Claude Code runs none of them')
    if s.managed_only:
        lines.append("  managed policy settings allow only managed hooks: Claude Code will not run this one")
    if s.plugin:
        lines.append(
            "  the memtui plugin is installed too"
            + (": remove one of them, or every memory write is checked twice" if s.installed else "")
        )
    return lines


def main(action: str, env: Mapping[str, str] | None = None) -> int:
    """`memtui hooks ACTION`: 0 on success, 1 when the settings file is refused (nothing changed)."""
    try:
        if action == "install":
            change = install(settings_path(env))
            print(change.message)
            if change.backup:
                print(f"backup of the previous file: {change.backup}")
            s = status(change.path, env)
            for line in describe(s)[1:]:
                if "command:" not in line:
                    print(line)
            return 0
        if action == "uninstall":
            change = uninstall(settings_path(env))
            print(change.message)
            return 0
        s = status(settings_path(env), env)
        for line in describe(s):
            print(line)
        return EXIT_REFUSED if s.error else 0
    except SettingsError as exc:
        print(f"memtui: {exc}", file=sys.stderr)
        return EXIT_REFUSED
