"""Settings file: freshness periods, per-store overrides, the saved theme, and clear errors with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.freshness import POLICY_DAYS
from memtui.core.settings import SettingsError, load_settings, save_theme, settings_path


def test_no_file_means_the_documented_defaults(tmp_path: Path) -> None:
    settings = load_settings(path=tmp_path / "missing.toml")
    assert settings.policy() == POLICY_DAYS
    assert settings.theme is None and settings.source is None


def test_periods_and_per_store_overrides(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    store.mkdir()
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        'theme = "memtui-light"\n[freshness]\nproject = 10\nfeedback = 365\nuser = "never"\n'
        f'[[store]]\npath = "{store}"\nfreshness = {{ project = 3 }}\n'
        '[[store]]\npath = "/elsewhere"\nfreshness = { project = 99 }\n',
        encoding="utf-8",
    )
    general = load_settings(path=cfg)
    assert general.theme == "memtui-light"
    assert general.policy() == {"user": None, "feedback": 365, "project": 10, "reference": 90}
    assert load_settings(store=store, path=cfg).policy()["project"] == 3


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('theme = "a"\n[freshness]\nproject = "soon"\n', 3, "freshness.project must be a number"),
        ('theme = "a"\n\n[freshness]\nprojekt = 3\n', 4, "unknown memory type 'projekt'"),
        ('colour = "red"\n', 1, "unknown setting 'colour'"),
        ('theme = "a"\n[freshness\n', 2, "is not valid TOML"),
        ("theme = 3\n", 1, "theme must be a theme name"),
        ("[[store]]\nfreshness = { project = 3 }\n", 1, "each [[store]] needs a path"),
    ],
)
def test_a_broken_file_names_the_file_and_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load_settings(path=cfg)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{cfg}:{line}: ")
    assert words in str(caught.value)


def test_saving_the_theme_changes_only_its_line(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    original = '# my settings\ntheme = "memtui-dark"   # old\n\n[freshness]\nproject = 10  # keep\n'
    cfg.write_text(original, encoding="utf-8")
    save_theme("memtui-contrast", path=cfg)
    assert cfg.read_text(encoding="utf-8") == original.replace(
        'theme = "memtui-dark"   # old', 'theme = "memtui-contrast"'
    )
    assert load_settings(path=cfg).theme == "memtui-contrast"


def test_saving_a_theme_creates_the_file_or_adds_the_line_on_top(tmp_path: Path) -> None:
    cfg = tmp_path / "sub" / "config.toml"
    save_theme("memtui-light", path=cfg)
    assert cfg.read_text(encoding="utf-8") == 'theme = "memtui-light"\n'
    cfg.write_text("[freshness]\nproject = 5\n", encoding="utf-8")
    save_theme("memtui-dark", path=cfg)
    assert load_settings(path=cfg).theme == "memtui-dark"
    assert load_settings(path=cfg).policy()["project"] == 5


def test_saving_refuses_a_file_it_cannot_parse(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("theme = [\n", encoding="utf-8")
    with pytest.raises(SettingsError):
        save_theme("memtui-light", path=cfg)
    assert cfg.read_text(encoding="utf-8") == "theme = [\n"


def test_xdg_config_home_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert settings_path() == tmp_path / "memtui" / "config.toml"
