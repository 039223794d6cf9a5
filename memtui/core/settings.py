"""A person's settings: `$XDG_CONFIG_HOME/memtui/config.toml` (else `~/.config/memtui/config.toml`).

```toml
theme = "memtui-light"            # the palette's theme choice is saved here

[freshness]                       # days until a memory of the type is stale; "never" = it never decays
user = 180
project = 30
reference = 90
feedback = "never"

[[store]]                         # overrides for one store (its memory folder, `~` allowed)
path = "~/.claude/projects/-home-me-app/memory"
freshness = { project = 14 }
```

Never imports Textual. A broken file raises `SettingsError` naming the file and the line, never a traceback.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memtui.core.errors import EXIT_USAGE, MemtuiError
from memtui.core.freshness import POLICY_DAYS
from memtui.core.model import MEMORY_TYPES

_TOP_KEYS = {"theme", "freshness", "store"}
_STORE_KEYS = {"path", "freshness"}
_THEME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class SettingsError(MemtuiError):
    """The settings file cannot be used: names the file, the line when known, and what is wrong."""

    title = "Invalid settings"
    exit_code = EXIT_USAGE

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class Settings:
    """What the settings file says for one store (per-store overrides already applied)."""

    theme: str | None = None
    periods: Mapping[str, int | None] = field(default_factory=lambda: MappingProxyType(dict(POLICY_DAYS)))
    """Days until stale per memory type; None: never decays."""
    source: Path | None = None
    """The file these came from, or None when there is none."""

    def policy(self) -> dict[str, int | None]:
        """The freshness policy as `memtui.core.freshness.assess` takes it."""
        return dict(self.periods)


def settings_path() -> Path:
    """Where the settings file lives (XDG base directory rules)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memtui" / "config.toml"


def load_settings(store: Path | None = None, path: Path | None = None) -> Settings:
    """The settings for `store` from `path` (default `settings_path()`); defaults when the file does not exist."""
    path = settings_path() if path is None else path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise SettingsError(path, None, f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise SettingsError(path, None, "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        line = _line_of_toml_error(str(exc))
        raise SettingsError(path, line, f"is not valid TOML ({_strip_position(str(exc))})") from None
    lines = text.splitlines()
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise SettingsError(
            path, _line_of(lines, unknown[0]), f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(_TOP_KEYS))})"
        )
    theme = data.get("theme")
    if theme is not None and not (isinstance(theme, str) and _THEME_NAME.fullmatch(theme)):
        raise SettingsError(path, _line_of(lines, "theme"), 'theme must be a theme name such as "memtui-light"')
    periods = dict(POLICY_DAYS)
    periods.update(_periods(data.get("freshness", {}), path, lines))
    stores = data.get("store", [])
    if not isinstance(stores, list):
        raise SettingsError(path, _line_of(lines, "store"), "store must be a list of [[store]] tables")
    for entry in stores:
        if not isinstance(entry, dict):
            raise SettingsError(path, _line_of(lines, "store"), "each [[store]] must be a table")
        extra = sorted(set(entry) - _STORE_KEYS)
        if extra:
            raise SettingsError(
                path, _line_of(lines, extra[0]), f"unknown [[store]] key {extra[0]!r} (known: path, freshness)"
            )
        where = entry.get("path")
        if not isinstance(where, str) or not where.strip():
            line = _line_of(lines, "path") if where is not None else _line_of(lines, "store")
            raise SettingsError(path, line, "each [[store]] needs a path (its memory folder)")
        if store is not None and _same_folder(Path(where).expanduser(), store):
            periods.update(_periods(entry.get("freshness", {}), path, lines))
    return Settings(theme=theme, periods=MappingProxyType(periods), source=path)


def save_theme(name: str, path: Path | None = None) -> Path:
    """Record the chosen theme, changing only the `theme = …` line (added at the top when missing).

    Refuses (SettingsError) a file it could not parse, so a person's hand-written settings are never rewritten
    from a misreading. Written atomically (temp file + rename).
    """
    path = settings_path() if path is None else path
    if not _THEME_NAME.fullmatch(name):
        raise SettingsError(path, None, f"{name!r} is not a theme name")
    text = ""
    if path.exists():
        load_settings(path=path)  # refuse to rewrite a file that does not parse
        text = path.read_text(encoding="utf-8")
    line = f'theme = "{name}"'
    pattern = re.compile(r"(?m)^[ \t]*theme[ \t]*=.*$")
    head, sep, rest = text.partition("\n[")  # only the top-level table holds `theme`
    if pattern.search(head):
        head = pattern.sub(line, head, count=1)
        new = head + sep + rest
    else:
        new = line + "\n" + text
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.memtui-{os.getpid()}.tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
    return path


def _periods(table: Any, path: Path, lines: list[str]) -> dict[str, int | None]:
    if not isinstance(table, dict):
        raise SettingsError(path, _line_of(lines, "freshness"), "freshness must be a table of type = days")
    out: dict[str, int | None] = {}
    for key, value in table.items():
        if key not in MEMORY_TYPES:
            raise SettingsError(
                path, _line_of(lines, key), f"freshness: unknown memory type {key!r} (known: {', '.join(MEMORY_TYPES)})"
            )
        if value == "never":
            out[key] = None
        elif isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 36500:
            out[key] = value
        else:
            raise SettingsError(
                path,
                _line_of(lines, key),
                f'freshness.{key} must be a number of days (1-36500) or "never", not {value!r}',
            )
    return out


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _line_of(lines: list[str], key: str) -> int | None:
    """The first line assigning `key` (tomllib reports no positions for values it accepted)."""
    pattern = re.compile(rf"^\s*(\[\[?\s*)?[\"']?{re.escape(key)}[\"']?\s*(=|\]|\.)")
    for number, text in enumerate(lines, 1):
        if pattern.match(text):
            return number
    return None


def _line_of_toml_error(message: str) -> int | None:
    found = re.search(r"at line (\d+)", message)
    return int(found.group(1)) if found else None


def _strip_position(message: str) -> str:
    return re.sub(r"\s*\(at line \d+, column \d+\)", "", message).strip()
