"""Every shipped theme meets WCAG AA (4.5:1) for text, badges, flags, titles and the footer, computed from the files."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color

from memtui.tui.themes import BUILTIN_DIR, load_theme_file

AA = 4.5
THEMES = sorted(BUILTIN_DIR.glob("*.toml"))


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        x = value / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(foreground: Color, background: Color) -> float:
    """WCAG 2 contrast ratio; a translucent foreground is first composited over the background."""
    shown = background + foreground if foreground.a < 1 else foreground
    light, dark = sorted((_luminance(shown), _luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _pairs(path: Path) -> list[tuple[str, str]]:
    theme = load_theme_file(path)
    pairs = [("foreground", bg) for bg in ("background", "surface", "panel")]
    pairs += [("foreground-muted", "surface"), ("foreground-muted", "panel")]  # unfocused titles, field names
    pairs += [("primary", "surface"), ("accent", "surface")]  # focused titles, dialog and merge titles
    pairs += [("footer-key-foreground", "footer-background"), ("footer-description-foreground", "footer-background")]
    pairs += [(name, bg) for name in theme.variables for bg in ("surface", "panel")]  # badges, flags, budget, cue
    return pairs


def test_the_formula_matches_known_values() -> None:
    assert contrast(Color.parse("#000000"), Color.parse("#ffffff")) == pytest.approx(21.0)
    assert contrast(Color.parse("#767676"), Color.parse("#ffffff")) == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("path", THEMES, ids=[p.stem for p in THEMES])
def test_every_theme_meets_aa(path: Path) -> None:
    theme = load_theme_file(path)
    colors = {**theme.to_color_system().generate(), **theme.variables}  # as the App resolves them
    failing = []
    for fg, bg in _pairs(path):
        ratio = contrast(Color.parse(colors[fg]), Color.parse(colors[bg]))
        if ratio < AA:
            failing.append(f"{fg} on {bg}: {ratio:.2f}:1")
    assert not failing, f"{path.name} below {AA}:1 — " + "; ".join(failing)
