"""Theme files (`themes/*.toml`): parsed, validated before registering, so a bad file never crashes the app."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

_PACKAGE = Path(__file__).resolve().parent.parent
# A wheel carries the theme files as memtui/themes (pyproject's package-dir mapping); a source checkout or an
# editable install reads the one copy at the repository's top level.
BUILTIN_DIR = _PACKAGE / "themes" if (_PACKAGE / "themes").is_dir() else _PACKAGE.parent / "themes"
DEFAULT_THEME = "memtui-dark"
_COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"{path.name}: {exc}") from None
    allowed = {f.name for f in fields(Theme)}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ThemeFileError(f"{path.name}: unknown keys {', '.join(unknown)}")
    if "name" not in data or "primary" not in data:
        raise ThemeFileError(f"{path.name}: a theme needs at least `name` and `primary`")
    for key in _COLOR_FIELDS:
        if key in data:
            _check_color(path, key, data[key])
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeFileError(f"{path.name}: [variables] must be a table")
    for key, value in variables.items():
        _check_color(path, f"variables.{key}", value)
    theme = Theme(**data)
    try:
        theme.to_color_system().generate()
    except (ColorParseError, ValueError) as exc:
        raise ThemeFileError(f"{path.name}: {exc}") from None
    return theme


def _check_color(path: Path, key: str, value: object) -> None:
    if not isinstance(value, str):
        raise ThemeFileError(f"{path.name}: {key} must be a colour string")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{path.name}: {key} = {value!r} is not a colour") from None


def load_themes(folders: list[Path]) -> tuple[list[Theme], list[str]]:
    """Every valid theme in the folders, and one message per file that was refused."""
    themes: list[Theme] = []
    errors: list[str] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(load_theme_file(path))
            except ThemeFileError as exc:
                errors.append(str(exc))
    return themes, errors


def default_variables() -> dict[str, str]:
    """The badge/flag variables of the default theme file: the app's fallbacks under any other theme."""
    return dict(load_theme_file(BUILTIN_DIR / f"{DEFAULT_THEME}.toml").variables)
