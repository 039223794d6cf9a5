"""`memtui hooks install | uninstall | status`: memtui's PostToolUse hook in Claude Code's *user* settings.

Only the user file (`$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`) is touched, never a
project's committed `.claude/settings.json` (teammates without memtui would get a hook error on every write).
The merge keeps every other key, event, group and handler as it was and in order; memtui's handler is found
by its `statusMessage` marker (or its command), so a second install changes nothing. Install keeps an existing
file as `settings.json.before-memtui-install`. Uninstall undoes install: when the file is byte for byte what
install made, it gets back its earlier bytes (or is deleted again if install created it); otherwise only
memtui's handlers go, and the file as it was is kept as `settings.json.before-memtui-uninstall`. The write is
atomic (temp file + rename, same mode, through a symlink to its target) and refused when the file changed since
memtui read it; a file that is not valid JSON is refused, never overwritten.
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
    """The settings file as it was before this command changed it, when the command kept a copy."""


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


def backup_path(path: Path, action: str) -> Path:
    """Where `memtui hooks ACTION` keeps the settings file as it was before that command changed it."""
    return path.with_name(f"{path.name}.before-memtui-{action}")


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
    """The bytes read; None when there was no file."""
    indent: int | str | None
    """None: the object is on one line, written with `separators`."""
    newline: bool
    separators: tuple[str, str] | None = None


_ABSENT = _Loaded({}, None, 2, True)


def _load(path: Path) -> _Loaded:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _ABSENT
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return _parse(path, raw)


def _parse(path: Path, raw: bytes) -> _Loaded:
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
    indent = _indent_of(text)
    separators = None
    if indent is None:  # one line: keep its spacing too, e.g. {"model":"opus"}
        separators = (", " if re.search(r",\s", text) else ",", ": " if re.search(r'":\s', text) else ":")
    return _Loaded(data, raw, indent, text.endswith("\n") or not text.strip(), separators)


def _indent_of(text: str) -> int | str | None:
    """The indentation the file uses (Claude Code writes two spaces), so untouched parts keep their bytes."""
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return None if "\n" not in text.strip() and text.strip() not in ("", "{}") else 2
    lead = match.group(1)
    return "\t" if lead.startswith("\t") else len(lead)


def _dump(loaded: _Loaded, data: dict[str, Any]) -> bytes:
    text = json.dumps(data, indent=loaded.indent, ensure_ascii=False, separators=loaded.separators)
    return (text + ("\n" if loaded.newline else "")).encode("utf-8")


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _unchanged(path: Path, expected: bytes | None) -> None:
    """Refuse when the file no longer holds what memtui read (Claude Code rewrites it from `/config`, for one)."""
    try:
        now = _current(path)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if now != expected:
        raise SettingsError(
            f"{path}: changed since memtui read it (another program wrote it); memtui changed nothing — "
            "run the command again"
        )


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
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


@dataclass(frozen=True)
class Plan:
    """A change to the settings file, worked out from what was read and not yet made (`apply` makes it)."""

    path: Path
    read: bytes | None
    """The file's bytes when the plan was made (None: no file); `apply` refuses if they changed since."""
    write: bytes | None
    """What the file will hold (None: the file is deleted)."""
    message: str
    backup: Path | None = None
    """Receives `read` before the file changes."""
    drop: Path | None = None
    """A backup whose bytes the file gets back, removed once it has them."""


def apply(plan: Plan) -> Change:
    """Make the planned change atomically, if the file still holds what was read; SettingsError if not."""
    path = plan.path
    target = Path(os.path.realpath(path))
    _unchanged(path, plan.read)
    backup = plan.backup if plan.read is not None else None
    if backup is not None:
        _atomic_write(backup, plan.read or b"", 0o600)
        _unchanged(path, plan.read)
    if plan.write is None:
        path.unlink()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o600
        _atomic_write(target, plan.write, mode)
        _parse(path, target.read_bytes())  # re-read: what Claude Code will load must parse
    if plan.drop is not None and _current(plan.drop) == plan.write:
        plan.drop.unlink()
    return Change(path, True, plan.message, backup)


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


def _with_hook(loaded: _Loaded, command: str) -> tuple[bytes | None, bool]:
    """The file's bytes with memtui's handler in (None: already there, exactly) and whether one was replaced."""
    wanted = {"matcher": MATCHER, "hooks": [handler(command)]}
    groups = _groups(loaded.data)
    ours = [g for g in groups if isinstance(g, dict) and any(is_memtui_handler(h) for h in g.get("hooks") or [])]
    if len(ours) == 1 and ours[0] == wanted:
        return None, True
    rest, first = _strip(groups)
    position = len(rest) if first is None else min(first, len(rest))
    rest.insert(position, wanted)
    if "hooks" not in loaded.data:
        data = dict(loaded.data)
        data["hooks"] = {"PostToolUse": rest}
    else:
        data = _set_groups(loaded.data, rest)
    return _dump(loaded, data), bool(ours)


def _command_in(data: dict[str, Any]) -> str | None:
    """The command of the first memtui handler in the settings, if any."""
    for group in _groups(data):
        for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
            if is_memtui_handler(h):
                return str(h.get("command", ""))
    return None


def _named(path: Path) -> str:
    """The file as a person looks for it: a symlink names its target too."""
    return f"{path} (a link to {os.path.realpath(path)})" if path.is_symlink() else str(path)


def plan_install(path: Path | None = None, command: str | None = None) -> Plan | Change:
    """What install will do: a Plan, or a Change saying nothing needs doing."""
    path = path or settings_path()
    command = command or hook_command()
    loaded = _load(path)
    data, replaced = _with_hook(loaded, command)
    if data is None:
        return Change(path, False, f"memtui's hook is already installed in {_named(path)}; nothing changed")
    if loaded.raw is None:
        message = (
            f"created {_named(path)} holding only memtui's PostToolUse hook ({MATCHER}); there was no file before, "
            "so there is no backup, and `memtui hooks uninstall` deletes it again"
        )
        return Plan(path, None, data, message)
    verb = "updated" if replaced else "added"
    message = f"{verb} memtui's PostToolUse hook ({MATCHER}) in {_named(path)}; every other setting kept as it was"
    return Plan(path, loaded.raw, data, message, backup_path(path, "install"))


def install(path: Path | None = None, command: str | None = None) -> Change:
    """Add (or update in place) memtui's PostToolUse handler; a second install writes nothing."""
    plan = plan_install(path, command)
    return plan if isinstance(plan, Change) else apply(plan)


def _before_install(path: Path, loaded: _Loaded) -> tuple[bool, bytes | None]:
    """Whether the file is byte for byte what install made, and the bytes it made it from (None: no file)."""
    command = _command_in(loaded.data)
    if command is None:
        return False, None
    saved = backup_path(path, "install")
    try:
        before = _parse(saved, saved.read_bytes())
    except (OSError, SettingsError):
        before = None
    if before is not None and _command_in(before.data) is None and _with_hook(before, command)[0] == loaded.raw:
        return True, before.raw
    # never deleted through a symlink: the link's target is the person's (a dotfiles repository, say)
    if not path.is_symlink() and _with_hook(_ABSENT, command)[0] == loaded.raw:
        return True, None
    return False, None


def plan_uninstall(path: Path | None = None) -> Plan | Change:
    """What uninstall will do: a Plan, or a Change saying nothing needs doing."""
    path = path or settings_path()
    loaded = _load(path)
    if loaded.raw is None:
        return Change(path, False, f"{path} does not exist; nothing to remove")
    rest, first = _strip(_groups(loaded.data))
    if first is None:
        return Change(path, False, f"memtui's hook is not in {_named(path)}; nothing changed")
    exact, before = _before_install(path, loaded)
    if exact and before is None:
        message = f"deleted {path}: it held nothing but memtui's hook, exactly as `memtui hooks install` created it"
        return Plan(path, loaded.raw, None, message)
    if exact:
        saved = backup_path(path, "install")
        message = (
            f"removed memtui's hook from {_named(path)}: it is back to its exact bytes from before "
            f"`memtui hooks install` (their copy {saved}, now the same, was removed)"
        )
        return Plan(path, loaded.raw, before, message, drop=saved)
    data = _set_groups(loaded.data, rest)
    backup = backup_path(path, "uninstall")
    if not data and not path.is_symlink():
        message = f"removed memtui's hook from {path} and deleted the file: nothing else was in it"
        return Plan(path, loaded.raw, None, message, backup)
    message = f"removed memtui's hook from {_named(path)}; every other setting kept as it was"
    return Plan(path, loaded.raw, _dump(loaded, data), message, backup)


def uninstall(path: Path | None = None) -> Change:
    """Undo install: the file's earlier bytes when nothing else changed since, else memtui's handlers removed only."""
    plan = plan_uninstall(path)
    return plan if isinstance(plan, Change) else apply(plan)


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
    command = _command_in(loaded.data)
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


def _report(change: Change, action: str) -> None:
    print(change.message)
    if change.backup:
        print(f"backup of {change.path} as it was before this {action}: {change.backup}")


def main(action: str, env: Mapping[str, str] | None = None) -> int:
    """`memtui hooks ACTION`: 0 on success, 1 when the settings file is refused (nothing changed)."""
    try:
        if action == "install":
            change = install(settings_path(env))
            _report(change, action)
            s = status(change.path, env)
            for line in describe(s)[1:]:
                if "command:" not in line:
                    print(line)
            return 0
        if action == "uninstall":
            _report(uninstall(settings_path(env)), action)
            return 0
        s = status(settings_path(env), env)
        for line in describe(s):
            print(line)
        return EXIT_REFUSED if s.error else 0
    except SettingsError as exc:
        print(f"memtui: {exc}", file=sys.stderr)
        return EXIT_REFUSED
