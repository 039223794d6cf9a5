"""`memtui hooks install | uninstall | status` on real settings files, through the real command."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

MEMTUI = [sys.executable, "-m", "memtui"]

# As Claude Code writes it (JSON.stringify(…, null, 2)), with other keys and another PostToolUse hook.
SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": 'prettier --write "$FILE"'}]}
        ],
    },
    "env": {"FOO": "bär"},
    "autoMemoryEnabled": True,
}


def claude_json(data: object) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def hooks(*args: str, config: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MEMTUI, "hooks", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "CLAUDE_CONFIG_DIR": str(config)},
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "claude"
    folder.mkdir()
    return folder


def test_install_keeps_everything_else_is_idempotent_and_uninstall_restores_the_bytes(config: Path) -> None:
    settings = config / "settings.json"
    original = claude_json(SETTINGS)
    settings.write_bytes(original)

    out = hooks("install", config=config)
    assert out.returncode == 0, out.stderr
    assert "added" in out.stdout
    after = json.loads(settings.read_text(encoding="utf-8"))
    assert list(after) == list(SETTINGS)
    assert {k: v for k, v in after.items() if k != "hooks"} == {k: v for k, v in SETTINGS.items() if k != "hooks"}
    assert list(after["hooks"]) == ["PreToolUse", "PostToolUse"]
    assert after["hooks"]["PreToolUse"] == SETTINGS["hooks"]["PreToolUse"]
    groups = after["hooks"]["PostToolUse"]
    assert groups[0] == SETTINGS["hooks"]["PostToolUse"][0]
    assert groups[1]["matcher"] == "Write|Edit"
    (handler,) = groups[1]["hooks"]
    assert handler["type"] == "command" and handler["command"].endswith(" hook post-tool-use")
    assert handler["timeout"] == 10 and handler["statusMessage"] == "memtui: checking memory"
    backup = config / "settings.json.before-memtui-install"
    assert backup.read_bytes() == original
    assert f"in {settings};" in out.stdout
    assert f"backup of {settings} as it was before this install: {backup}" in out.stdout
    installed = settings.read_bytes()

    again = hooks("install", config=config)
    assert again.returncode == 0 and "already installed" in again.stdout
    assert settings.read_bytes() == installed and backup.read_bytes() == original

    out = hooks("uninstall", config=config)
    assert out.returncode == 0 and "removed" in out.stdout and str(settings) in out.stdout
    assert settings.read_bytes() == original
    # the folder is as it was before install: the copy of the original went once the file had its bytes back
    assert sorted(p.name for p in config.iterdir()) == ["settings.json"]

    out = hooks("uninstall", config=config)
    assert out.returncode == 0 and "not in" in out.stdout
    assert settings.read_bytes() == original


def test_install_without_a_settings_file_creates_it_and_uninstall_deletes_it(config: Path) -> None:
    out = hooks("status", config=config)
    assert out.returncode == 0 and "not installed" in out.stdout

    out = hooks("install", config=config)
    assert out.returncode == 0
    settings = config / "settings.json"
    assert f"created {settings}" in out.stdout and "no backup" in out.stdout
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert list(data) == ["hooks"]
    assert sorted(p.name for p in config.iterdir()) == ["settings.json"]

    out = hooks("status", config=config)
    assert f"installed in {settings}" in out.stdout
    assert "hook post-tool-use" in out.stdout
    assert "disabled" not in out.stdout

    out = hooks("uninstall", config=config)
    assert out.returncode == 0 and f"deleted {settings}" in out.stdout
    assert list(config.iterdir()) == []  # as before install: no "{}" left behind, no backup holding the hook


@pytest.mark.parametrize(
    "before", [b"{}", b"{}\n", b"", b'{"model":"opus","env":{"A":"1"}}', b'{\n\t"model": "opus"\n}']
)
def test_uninstall_gives_back_the_exact_earlier_bytes(config: Path, before: bytes) -> None:
    settings = config / "settings.json"
    settings.write_bytes(before)

    assert hooks("install", config=config).returncode == 0
    installed = settings.read_bytes()
    if before.startswith(b'{"model"'):
        assert installed.startswith(before[:-1] + b',"hooks":{"PostToolUse":[{') and b"\n" not in installed  # its style
    assert hooks("uninstall", config=config).returncode == 0

    assert settings.read_bytes() == before
    assert sorted(p.name for p in config.iterdir()) == ["settings.json"]


def test_uninstall_after_other_changes_removes_only_the_hook_and_keeps_a_named_backup(config: Path) -> None:
    """The file was changed since install (here: created by it, then a setting added), so only the hook goes."""
    settings = config / "settings.json"
    assert hooks("install", config=config).returncode == 0
    data = json.loads(settings.read_text(encoding="utf-8"))
    settings.write_bytes(claude_json({"model": "opus", **data, "env": {"FOO": "1"}}))
    with_hook = settings.read_bytes()

    out = hooks("uninstall", config=config)

    assert out.returncode == 0, out.stderr
    assert settings.read_bytes() == claude_json({"model": "opus", "env": {"FOO": "1"}})
    backup = config / "settings.json.before-memtui-uninstall"
    assert backup.read_bytes() == with_hook  # what the file was before *this* command, as its name says
    assert f"backup of {settings} as it was before this uninstall: {backup}" in out.stdout
    assert not (config / "settings.json.before-memtui-install").exists()


def test_a_file_holding_only_the_hook_is_deleted_with_a_backup(config: Path) -> None:
    """Not install's bytes (indented by hand), but nothing else is in it: no "{}" is left behind."""
    settings = config / "settings.json"
    assert hooks("install", config=config).returncode == 0
    hand = (json.dumps(json.loads(settings.read_text(encoding="utf-8")), indent=4) + "\n").encode()
    settings.write_bytes(hand)

    out = hooks("uninstall", config=config)

    assert out.returncode == 0 and "deleted the file" in out.stdout
    assert not settings.exists()
    assert (config / "settings.json.before-memtui-uninstall").read_bytes() == hand


def test_invalid_json_is_refused_and_left_alone(config: Path) -> None:
    settings = config / "settings.json"
    broken = b'{\n  "model": "opus",\n  "hooks": {\n}\n'
    settings.write_bytes(broken)

    for action in ("install", "uninstall"):
        out = hooks(action, config=config)
        assert out.returncode == 1
        assert str(settings) in out.stderr and "not valid JSON" in out.stderr
        assert "Traceback" not in out.stderr
        assert settings.read_bytes() == broken
    out = hooks("status", config=config)
    assert out.returncode == 1 and "not valid JSON" in out.stdout
    assert not (config / "settings.json.memtui-backup").exists()


@pytest.mark.parametrize("text", ['["a"]', '{"hooks": []}', '{"hooks": {"PostToolUse": {}}}'])
def test_unexpected_shapes_are_refused(config: Path, text: str) -> None:
    (config / "settings.json").write_text(text, encoding="utf-8")
    out = hooks("install", config=config)
    assert out.returncode == 1 and "changed nothing" in out.stderr
    assert (config / "settings.json").read_text(encoding="utf-8") == text


def test_status_says_when_hooks_are_disabled_there(config: Path) -> None:
    (config / "settings.json").write_bytes(claude_json({"disableAllHooks": True}))
    assert hooks("install", config=config).returncode == 0
    out = hooks("status", config=config)
    assert "installed in" in out.stdout
    assert "disableAllHooks" in out.stdout


def test_an_older_memtui_entry_is_updated_in_place(config: Path) -> None:
    old = {
        "matcher": "Write|Edit",
        "hooks": [
            {
                "type": "command",
                "command": "'/old/venv/bin/memtui' hook post-tool-use",
                "timeout": 10,
                "statusMessage": "memtui: checking memory",
            }
        ],
    }
    other = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}
    settings = config / "settings.json"
    settings.write_bytes(claude_json({"hooks": {"PostToolUse": [old, other]}}))

    before = settings.read_bytes()

    out = hooks("install", config=config)

    assert out.returncode == 0 and "updated" in out.stdout
    groups = json.loads(settings.read_text(encoding="utf-8"))["hooks"]["PostToolUse"]
    assert len(groups) == 2 and groups[1] == other
    assert groups[0]["hooks"][0]["command"] != old["hooks"][0]["command"]
    assert (config / "settings.json.before-memtui-install").read_bytes() == before

    # that backup holds the old entry, so uninstall does not give it back: it removes memtui's entry only
    assert hooks("uninstall", config=config).returncode == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == {"hooks": {"PostToolUse": [other]}}


def test_only_the_user_file_is_written_never_the_projects(config: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    shared = project / ".claude" / "settings.json"
    shared.write_bytes(claude_json({"hooks": {}}))
    before = shared.read_bytes()

    assert hooks("install", config=config, cwd=project).returncode == 0

    assert shared.read_bytes() == before
    assert (config / "settings.json").exists()


def test_a_symlinked_settings_file_stays_a_symlink_and_keeps_its_mode(config: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_bytes(claude_json({"model": "sonnet"}))
    real.chmod(0o640)
    (config / "settings.json").symlink_to(real)

    assert hooks("install", config=config).returncode == 0

    assert (config / "settings.json").is_symlink()
    assert "hooks" in json.loads(real.read_text(encoding="utf-8"))
    assert stat.S_IMODE(real.stat().st_mode) == 0o640

    out = hooks("uninstall", config=config)
    assert f"a link to {real}" in out.stdout
    assert (config / "settings.json").is_symlink() and real.read_bytes() == claude_json({"model": "sonnet"})
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_the_default_location_is_home_dot_claude(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    out = subprocess.run(
        [*MEMTUI, "hooks", "install"],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"},
    )
    assert out.returncode == 0, out.stderr
    assert (home / ".claude" / "settings.json").is_file()


def test_the_installed_command_runs_the_hook(config: Path, tmp_path: Path) -> None:
    """The command written into settings is one Claude Code can run: silent exit 0 on a non-memory write."""
    assert hooks("install", config=config).returncode == 0
    data = json.loads((config / "settings.json").read_text(encoding="utf-8"))
    command = data["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    payload = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(tmp_path / "x.py"), "content": ""},
        }
    )
    out = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""


@pytest.mark.parametrize("existed", [True, False])
def test_a_file_changed_since_it_was_read_is_refused_and_left_alone(config: Path, existed: bool) -> None:
    from memtui import claude_settings

    settings = config / "settings.json"
    if existed:
        settings.write_bytes(claude_json({"model": "opus"}))
    plan = claude_settings.plan_install(settings, "'/opt/memtui' hook post-tool-use")
    assert isinstance(plan, claude_settings.Plan)
    theirs = claude_json({"model": "sonnet"})
    settings.write_bytes(theirs)  # Claude Code's /config, say, wrote it in between

    with pytest.raises(claude_settings.SettingsError, match="changed since memtui read it"):
        claude_settings.apply(plan)

    assert settings.read_bytes() == theirs
    assert sorted(p.name for p in config.iterdir()) == ["settings.json"]  # no backup, no temp file
