"""Issue 10 item 5, TUI side: the person's settings file (theme, freshness periods) through the real app.

Each test points `XDG_CONFIG_HOME` at a tmp folder and writes a real `memtui/config.toml` there.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import said

from memtui.demo import make_demo_store
from memtui.tui.app import MemtuiApp
from memtui.tui.pilot import settle
from memtui.tui.themes import DEFAULT_THEME

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)
OLD_PROJECT = "project_stripe_migration.md"
"""A project memory 150 days old: stale under the built-in 30-day period."""


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return make_demo_store(TODAY, parent=tmp_path / "demo")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    path = home / "memtui" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


def messages(app: MemtuiApp) -> list[str]:
    return [f"{n.title} {n.message}" for n in said(app)]


async def test_the_app_starts_with_the_saved_theme(demo: Path, config: Path) -> None:
    config.write_text('theme = "memtui-light"\n', encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "memtui-light"


async def test_without_settings_the_default_theme(demo: Path, config: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == DEFAULT_THEME and not messages(app)


async def test_a_theme_chosen_in_the_app_is_saved_keeping_the_rest_of_the_file(demo: Path, config: Path) -> None:
    config.write_text("# mine\n[freshness]\nproject = 45\n", encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.theme = "memtui-contrast"  # what the palette's theme picker does
        await pilot.pause()
    assert config.read_text(encoding="utf-8") == 'theme = "memtui-contrast"\n# mine\n[freshness]\nproject = 45\n'
    again = make_app(demo)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        assert again.theme == "memtui-contrast"


async def test_a_theme_that_cannot_be_saved_is_a_notification_not_a_crash(demo: Path, config: Path) -> None:
    config.parent.rmdir()
    config.parent.write_text("a file where the folder should be", encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.theme = "memtui-light"
        await pilot.pause()
        assert app.theme == "memtui-light" and app.is_running
        assert any("Theme not saved" in m for m in messages(app))


async def test_freshness_badges_and_findings_follow_the_settings(demo: Path, config: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.ws is not None and app.ws.freshness[OLD_PROJECT].badge == "stale"
        assert any(f.kind == "stale" for f in app.ws.findings_for(OLD_PROJECT))
    config.write_text("[freshness]\nproject = 1000\n", encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.ws is not None and app.ws.analysed
        fresh = app.ws.freshness[OLD_PROJECT]
        assert fresh.badge == "fresh" and fresh.period_days == 1000
        assert not any(f.kind == "stale" for f in app.ws.findings_for(OLD_PROJECT))


async def test_an_invalid_settings_file_is_one_notification_with_file_and_line(demo: Path, config: Path) -> None:
    config.write_text('theme = "memtui-light"\n[freshness]\nproject = "soon"\n', encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        said = [m for m in messages(app) if "config.toml" in m]
        assert len(said) == 1 and f"{config}:3" in said[0], messages(app)
        assert app.theme == DEFAULT_THEME  # defaults, and the store still opens
        assert app.ws is not None and app.ws.analysed and app.ws.freshness[OLD_PROJECT].badge == "stale"
