"""The built wheel carries what the app loads at run time: every module, the stylesheet and every theme file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel from this checkout and install it (without dependencies) into a fresh target folder."""
    work = tmp_path_factory.mktemp("wheel")
    wheels = work / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if build.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{build.stderr[-2000:]}")
    (wheel,) = wheels.glob("memtui-*.whl")
    target = work / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if install.returncode != 0:
        pytest.fail(f"pip install failed:\n{install.stderr[-2000:]}")
    return target


def _run_installed(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONNOUSERSITE="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def test_the_wheel_loads_every_theme_from_itself(installed: Path, tmp_path: Path) -> None:
    shipped = sorted(p.stem for p in (ROOT / "themes").glob("*.toml"))
    code = (
        "import memtui, pathlib\n"
        "from memtui.tui.themes import BUILTIN_DIR, load_themes\n"
        f"site = pathlib.Path({str(installed)!r})\n"
        "assert pathlib.Path(memtui.__file__).is_relative_to(site), memtui.__file__\n"
        "assert BUILTIN_DIR.is_relative_to(site), BUILTIN_DIR\n"
        "themes, errors = load_themes([BUILTIN_DIR])\n"
        "assert not errors, errors\n"
        "print(' '.join(sorted(t.name for t in themes)))\n"
    )
    result = _run_installed(installed, code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == shipped


def test_the_wheel_carries_every_module_and_the_stylesheet(installed: Path, tmp_path: Path) -> None:
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "memtui").rglob("*.py")
        if p.name != "__main__.py"
    )
    code = (
        "import importlib, pathlib, sys\n"
        f"mods = {modules!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m.removesuffix('.__init__'))\n"
        "import memtui.tui.app as app\n"
        "assert (pathlib.Path(app.__file__).parent / 'memtui.tcss').is_file()\n"
        "print(len(mods))\n"
    )
    result = _run_installed(installed, code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(len(modules))


def test_every_test_runs_under_a_time_limit(pytestconfig: pytest.Config) -> None:
    """`make test` installs pytest-timeout and sets a limit, so a hung test fails with its stack instead of hanging
    the run (getini raises for a key no installed plugin declares)."""
    assert 0 < float(pytestconfig.getini("timeout")) <= 900
