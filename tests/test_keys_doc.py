"""Help that cannot drift (issue 10 item 7): README's keys tables against the bindings of each screen.

Every key a screen binds with a description is in its README table, and every key a table names is bound there
(by the screen itself, its list widget, or Textual's focus and palette keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable

from memtui.tui.app import MemtuiApp
from memtui.tui.history import HistoryScreen
from memtui.tui.main_screen import MainScreen
from memtui.tui.review import ReviewScreen
from memtui.tui.widgets import MemoryPane

README = Path(__file__).resolve().parent.parent / "README.md"
SHOWN = {"?": "question_mark", "/": "slash", "esc": "escape"}
"""How the README writes a key, where Textual names it otherwise."""


def tables(text: str) -> dict[str, dict[str, str]]:
    """Each keys table of the README's Keys section, by its first header cell: key → what it does."""
    section = re.split(r"\n#{1,3} ", text.split("### Keys", 1)[1], maxsplit=1)[0]
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in section.splitlines():
        if not line.startswith("|"):
            current = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if current is None:
            current = out.setdefault(cells[0], {})
            continue
        if set(cells[0]) <= {"-", ":"}:
            continue
        keys = re.findall(r"`([^`]+)`", cells[0])
        assert keys, f"README keys row without a `key`: {line}"
        for key in keys:
            current[SHOWN.get(key, key)] = cells[1]
    return out


def bound(bindings: Iterable[BindingType], *, described_only: bool = False) -> set[str]:
    keys: set[str] = set()
    for b in bindings:
        assert isinstance(b, Binding)
        if described_only and not b.description:
            continue
        keys.update(k.strip() for k in b.key.split(","))
    return keys


SCREENS = {
    # table header: (the screen's own bindings, which must all be documented; everything bound there)
    "key": (
        [*MainScreen.BINDINGS, *MemtuiApp.BINDINGS, *MemoryPane.BINDINGS],
        [
            *MainScreen.BINDINGS,
            *MemtuiApp.BINDINGS,
            *MemoryPane.BINDINGS,
            *DataTable.BINDINGS,
            *Screen.BINDINGS,
            *App.BINDINGS,
        ],
    ),
    "review key": (ReviewScreen.BINDINGS, [*ReviewScreen.BINDINGS, *Screen.BINDINGS]),
    "history key": (HistoryScreen.BINDINGS, [*HistoryScreen.BINDINGS, *DataTable.BINDINGS, *Screen.BINDINGS]),
}


@pytest.mark.parametrize("header", list(SCREENS))
def test_every_bound_key_is_documented_and_every_documented_key_is_bound(header: str) -> None:
    documented = tables(README.read_text(encoding="utf-8"))
    assert header in documented, f"README's Keys section has no table headed '{header}'"
    own, everything = SCREENS[header]
    keys = set(documented[header])
    missing = bound(own, described_only=True) - keys
    assert not missing, f"bound but not in README's '{header}' table: {sorted(missing)}"
    stray = keys - bound(everything) - {App.COMMAND_PALETTE_BINDING}
    assert not stray, f"in README's '{header}' table but not bound on that screen: {sorted(stray)}"


def test_the_parser_sees_a_drift() -> None:
    text = "### Keys\n\n| key | does |\n|---|---|\n| `a` `?` | archive, help |\n\n| review key | does |\n|---|---|\n| `z` | x |\n"
    found = tables(text)
    assert found == {"key": {"a": "archive, help", "question_mark": "archive, help"}, "review key": {"z": "x"}}
    assert "z" not in bound(ReviewScreen.BINDINGS)
