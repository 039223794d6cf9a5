"""The pre-commit hook (`memtui hook pre-commit`, `.pre-commit-hooks.yaml`) and the Claude Code plugin files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import init_repo, memory, write_files

from memtui import claude_settings

REPO = Path(__file__).resolve().parent.parent
MEMTUI = [sys.executable, "-m", "memtui"]

NPM = memory(
    "feedback_use_npm",
    description="Install front-end packages with npm",
    body="Front end installs dependencies with npm; the lockfile is package-lock.json.",
)
BUN = memory(
    "feedback_use_bun",
    description="Front end switched from npm to bun",
    body="The front end switched to bun: install dependencies with bun, no longer npm. The lockfile is now bun.lockb.",
)
KEY = memory("reference_payments", "reference", body="Payments API key: sk-proj-4f9K2mQ7xR8vT1wZ3bN6cY0hJ5dL2pS9")
INDEX = "# Memory\n\n- [npm](feedback_use_npm.md) — npm\n- [bun](feedback_use_bun.md) — bun\n"


def pre_commit(cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MEMTUI, "hook", "pre-commit", *files],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    top = write_files(tmp_path / "proj", {"src/app.py": "print(1)\n", **files})
    init_repo(top)
    return top


def test_pre_commit_reports_warnings_without_failing(tmp_path: Path) -> None:
    top = project(
        tmp_path,
        {
            ".claude/memory/MEMORY.md": INDEX,
            ".claude/memory/feedback_use_npm.md": NPM,
            ".claude/memory/feedback_use_bun.md": BUN,
        },
    )
    out = pre_commit(top, ".claude/memory/feedback_use_bun.md", "src/app.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "contradiction" in out.stdout and "feedback_use_npm.md" in out.stdout


def test_pre_commit_fails_on_an_error_finding(tmp_path: Path) -> None:
    top = project(
        tmp_path,
        {
            ".claude/memory/MEMORY.md": INDEX + "- [pay](reference_payments.md) — pay\n",
            ".claude/memory/feedback_use_npm.md": NPM,
            ".claude/memory/feedback_use_bun.md": BUN,
            ".claude/memory/reference_payments.md": KEY,
        },
    )
    out = pre_commit(top, ".claude/memory/reference_payments.md", ".claude/memory/feedback_use_npm.md")
    assert out.returncode == 1
    assert "secret" in out.stdout
    assert out.stdout.count("memtui check:") == 1  # one store, checked once


def test_pre_commit_checks_each_store_once_and_ignores_other_files(tmp_path: Path) -> None:
    top = project(
        tmp_path,
        {
            "docs/memory/MEMORY.md": "- [npm](feedback_use_npm.md) — npm\n",
            "docs/memory/feedback_use_npm.md": NPM,
            ".claude/agent-memory/reviewer/feedback_use_bun.md": BUN,
            "README.md": "# readme\n",
        },
    )
    out = pre_commit(
        top,
        "docs/memory/feedback_use_npm.md",
        "docs/memory/MEMORY.md",
        ".claude/agent-memory/reviewer/feedback_use_bun.md",
        "README.md",
        "src/app.py",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("memtui check:") == 2
    assert pre_commit(top, "README.md", "src/app.py").stdout == ""


def test_pre_commit_manifest_is_valid_and_matches_memory_folders() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    (hook,) = hooks
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["id"] == "memtui-check" and hook["language"] == "python" and hook["require_serial"] is True
    assert hook["entry"].split()[:3] == ["memtui", "hook", "pre-commit"]
    files = re.compile(hook["files"])
    for path in (
        ".claude/memory/a.md",
        "docs/memory/a.md",
        "memory/a.md",
        ".memory/x/a.md",
        ".claude/agent-memory/code-reviewer/a.md",
        ".claude/agent-memory-local/r/MEMORY.md",
        "sub/.claude/memory/a.md",
        "memory.archive/a.md",
    ):
        assert files.search(path), path
    for path in ("README.md", "docs/a.md", "src/memory.md", "memoryx/a.md"):
        assert not files.search(path), path


def _plugin_handler() -> dict:
    data = json.loads((REPO / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    (group,) = data["hooks"]["PostToolUse"]
    assert group["matcher"] == claude_settings.MATCHER
    (handler,) = group["hooks"]
    return handler


def test_plugin_files_describe_the_same_hook_as_the_settings_install() -> None:
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "memtui" and manifest["description"]
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    (entry,) = market["plugins"]
    assert entry["name"] == manifest["name"] and market["owner"]["name"]
    assert (REPO / entry["source"] / ".claude-plugin" / "plugin.json").resolve() == (
        REPO / ".claude-plugin" / "plugin.json"
    )
    handler = _plugin_handler()
    assert handler["type"] == "command"
    assert handler["statusMessage"] == claude_settings.MARKER
    assert handler["timeout"] == claude_settings.TIMEOUT


def test_plugin_command_runs_the_hook_and_is_silent_without_memtui(tmp_path: Path) -> None:
    store = tmp_path / "proj" / ".claude" / "agent-memory" / "reviewer"
    write_files(store, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    os.utime(store / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000))
    payload = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "session_id": "s1",
            "cwd": str(tmp_path / "proj"),
            "tool_input": {"file_path": str(store / "feedback_use_bun.md"), "content": BUN},
        }
    )
    command = _plugin_handler()["command"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "memtui").write_text(f'#!/bin/sh\nexec {sys.executable} -m memtui "$@"\n')
    (bin_dir / "memtui").chmod(0o755)
    sh = shutil.which("sh") or "/bin/sh"

    out = subprocess.run(
        [sh, "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"},
    )
    assert out.returncode == 0
    assert "feedback_use_npm.md" in json.loads(out.stdout)["systemMessage"]

    out = subprocess.run(
        [sh, "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": str(tmp_path / "empty")},
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
