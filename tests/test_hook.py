"""`memtui hook post-tool-use` through the real command: payloads shaped as Claude Code documents them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

MEMTUI = [sys.executable, "-m", "memtui"]
SESSION = "5f2c0d7e-1b0a-4c55-9a51-4f1df0a3c9e2"

NPM = memory(
    "feedback_use_npm",
    description="Install front-end packages with npm",
    body="Front end installs dependencies with npm; the lockfile is package-lock.json.\n\n"
    "**Why:** one lockfile.\n\n**How to apply:** run npm install in web/.",
)
BUN = memory(
    "feedback_use_bun",
    description="Front end switched from npm to bun",
    body="The front end switched to bun: install dependencies with bun, no longer npm. The lockfile is now bun.lockb.\n\n"
    "**Why:** faster installs.\n\n**How to apply:** run bun install in web/.",
)
UNRELATED = memory("user_role", "user", body="The user is a data engineer who works mostly in Scala.")


def run_hook(
    payload: object | bytes | str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Pipe a payload into the real command, as Claude Code does."""
    data = (
        payload
        if isinstance(payload, bytes)
        else (payload if isinstance(payload, str) else json.dumps(payload)).encode()
    )
    return subprocess.run(
        [*MEMTUI, "hook", "post-tool-use"],
        input=data,
        capture_output=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def write_payload(path: Path | str, content: str = "", *, session: str = SESSION, cwd: Path | None = None) -> dict:
    """A PostToolUse payload for a Write call (docs: tool_input {file_path, content})."""
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(cwd or Path(str(path)).parent),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": content},
        "tool_response": {"filePath": str(path), "success": True},
        "tool_use_id": "toolu_01",
        "duration_ms": 12,
    }


def edit_payload(path: Path | str, old: str, new: str) -> dict:
    """A PostToolUse payload for an Edit call (docs: tool_input {file_path, old_string, new_string, replace_all})."""
    return {
        "session_id": SESSION,
        "cwd": str(Path(str(path)).parent),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(path), "old_string": old, "new_string": new, "replace_all": False},
        "tool_response": {"filePath": str(path), "oldString": old, "newString": new},
    }


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A Claude Code config folder ($CLAUDE_CONFIG_DIR), empty."""
    folder = tmp_path / "claude-config"
    folder.mkdir()
    return folder


def auto_store(config: Path, files: dict[str, str], slug: str = "-work-atlas") -> Path:
    """Claude Code's auto-memory folder for a project, with files and an index."""
    store = config / "projects" / slug / "memory"
    write_files(store, files)
    index = ["# Memory Index", ""] + [f"- [{n}]({n}) — {n[:-3]}" for n in sorted(files) if n != "MEMORY.md"]
    if "MEMORY.md" not in files:
        (store / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    os.utime(store / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000)) if (
        store / "feedback_use_npm.md"
    ).exists() else None
    return store


def answer(out: subprocess.CompletedProcess[bytes]) -> dict:
    assert out.returncode == 0, out.stderr
    assert out.stderr == b""
    return json.loads(out.stdout)


def silent(out: subprocess.CompletedProcess[bytes]) -> None:
    assert out.returncode == 0
    assert out.stdout == b"", out.stdout
    assert out.stderr == b"", out.stderr


def test_write_of_a_contradicting_memory_tells_the_agent_both_files_and_the_command(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM, "user_role.md": UNRELATED})
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in store.iterdir()}

    out = answer(run_hook(write_payload(new, BUN), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert set(out) == {"systemMessage", "hookSpecificOutput"}
    assert out["systemMessage"].startswith("memtui: feedback_use_bun.md may contradict feedback_use_npm.md")
    assert "\n" not in out["systemMessage"]
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    context = specific["additionalContext"]
    assert "feedback_use_bun.md" in context and "feedback_use_npm.md" in context
    assert '"Front end installs dependencies with npm; the lockfile is package-lock.json."' in context
    assert "install dependencies with bun, no longer npm" in context
    assert (
        f"memtui archive {store} feedback_use_npm.md --reason 'superseded by feedback_use_bun.md' "
        "--superseded-by feedback_use_bun.md"
    ) in context
    assert len(context) < 10_000
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before  # never modifies a memory


def test_edit_payload_is_checked_from_the_file_on_disk(config: Path) -> None:
    earlier = BUN.replace("no longer npm", "no longer pnpm")
    store = auto_store(config, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": earlier})
    target = store / "feedback_use_bun.md"
    target.write_text(BUN, encoding="utf-8")  # the Edit already happened; the payload only carries the fragment

    out = answer(run_hook(edit_payload(target, "no longer pnpm", "no longer npm"), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert "feedback_use_npm.md" in out["hookSpecificOutput"]["additionalContext"]


def test_windows_separators_are_normalised(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")
    payload = write_payload(str(new).replace("/", "\\"), BUN)

    out = answer(run_hook(payload, {"CLAUDE_CONFIG_DIR": str(config)}))

    assert "feedback_use_npm.md" in out["systemMessage"]
    silent(
        run_hook(
            write_payload("C:\\Users\\dev\\.claude\\projects\\C--Users-dev-atlas\\memory\\x.md"),
            {"CLAUDE_CONFIG_DIR": str(config)},
        )
    )


def test_a_clean_memory_write_is_silent(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    new = store / "user_role.md"
    new.write_text(UNRELATED, encoding="utf-8")

    silent(run_hook(write_payload(new, UNRELATED), {"CLAUDE_CONFIG_DIR": str(config)}))


def test_paths_outside_any_store_are_silent(config: Path, tmp_path: Path) -> None:
    auto_store(config, {"feedback_use_npm.md": NPM})
    project = write_files(tmp_path / "proj", {"README.md": BUN, "docs/notes.md": BUN, "src/app.py": "print(1)\n"})
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    for rel in ("README.md", "docs/notes.md", "src/app.py"):
        silent(run_hook(write_payload(project / rel, cwd=project), env))
    # a memory-shaped folder without MEMORY.md in the project is not a store either
    write_files(project, {"memory/feedback_use_bun.md": BUN, "memory/feedback_use_npm.md": NPM})
    silent(run_hook(write_payload(project / "memory" / "feedback_use_bun.md", cwd=project), env))
    # a file named in the payload that does not exist
    silent(run_hook(write_payload(config / "projects" / "-work-atlas" / "memory" / "gone.md"), env))


def test_claude_config_dir_decides_which_projects_folder_is_memory(config: Path, tmp_path: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")

    # without CLAUDE_CONFIG_DIR the default is ~/.claude (HOME is a temp folder here): not a store
    silent(run_hook(write_payload(new, BUN), {"CLAUDE_CONFIG_DIR": ""}))
    assert answer(run_hook(write_payload(new, BUN), {"CLAUDE_CONFIG_DIR": str(config)}))


def test_sub_agent_memory_is_a_store(tmp_path: Path) -> None:
    agent = tmp_path / "proj" / ".claude" / "agent-memory" / "code-reviewer"
    write_files(agent, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    os.utime(agent / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000))

    out = answer(run_hook(write_payload(agent / "feedback_use_bun.md", BUN, cwd=tmp_path / "proj")))

    assert "feedback_use_npm.md" in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"not json",
        b'{"tool_name": "Write"',
        b"[1, 2]",
        b"\xff\xfe\x00",
        b"null",
        b'"Write"',
        {"hook_event_name": "PostToolUse"},
        {"tool_name": "Write"},
        {"tool_name": "Write", "tool_input": {}},
        {"tool_name": "Write", "tool_input": {"file_path": None}},
        {"tool_name": "Write", "tool_input": {"file_path": 7}},
        {"tool_name": "Write", "tool_input": "x"},
        {"tool_name": "Write", "tool_input": {"file_path": "relative/feedback_use_bun.md"}},
        {"tool_name": "Write", "tool_input": {"file_path": "/nul\u0000l.md"}},
        {"tool_name": None, "tool_input": {"file_path": "/x.md"}},
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=lambda p: repr(p)[:40],  # short: pytest puts the id in the environment of the subprocess
)
def test_bad_or_incomplete_input_is_silent(payload: object, config: Path) -> None:
    auto_store(config, {"feedback_use_npm.md": NPM})
    silent(run_hook(payload, {"CLAUDE_CONFIG_DIR": str(config)}))


def test_other_tools_and_events_are_silent(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    for tool in ("Read", "Bash", "NotebookEdit", "write"):
        silent(run_hook({**write_payload(new, BUN), "tool_name": tool}, env))
    silent(run_hook({**write_payload(new, BUN), "hook_event_name": "PreToolUse"}, env))


def test_huge_input_is_silent_and_quick(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")
    payload = json.dumps(write_payload(new, "x" * (17 * 1024 * 1024))).encode()

    silent(run_hook(payload, {"CLAUDE_CONFIG_DIR": str(config)}))


def test_a_crash_prints_nothing_and_exits_zero() -> None:
    from memtui import hook

    class Broken(io.BytesIO):
        def read(self, *args: object) -> bytes:
            raise OSError("stdin went away")

    out = io.StringIO()
    assert hook.post_tool_use(Broken(), out) == 0
    assert out.getvalue() == ""


def test_secret_in_a_new_memory_is_reported_and_never_committed(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    top = store.parent
    run = subprocess.run([*MEMTUI, "init", str(store)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    secret = memory(
        "reference_payments", "reference", body="Payments API key: sk-proj-4f9K2mQ7xR8vT1wZ3bN6cY0hJ5dL2pS9 (staging)."
    )
    new = store / "reference_payments.md"
    new.write_text(secret, encoding="utf-8")

    out = answer(run_hook(write_payload(new, secret), {"CLAUDE_CONFIG_DIR": str(config), "MEMTUI_HOOK_SYNC": "1"}))

    assert "secret" in out["systemMessage"]
    assert "remove the secret" in out["hookSpecificOutput"]["additionalContext"]
    assert "sk-proj-4f9K2mQ7xR8vT1wZ3bN6cY0hJ5dL2pS9" not in json.dumps(out)
    assert git(top, "log", "--all", "--format=%H", "--", "memory/reference_payments.md") == ""
    assert "?? memory/reference_payments.md" in git(top, "status", "--porcelain")


def test_agent_write_is_its_own_commit_with_actor_and_session_trailers(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    top = store.parent
    assert subprocess.run([*MEMTUI, "init", str(store)], capture_output=True, timeout=60).returncode == 0
    new = store / "user_role.md"
    new.write_text(UNRELATED, encoding="utf-8")

    silent(run_hook(write_payload(new, UNRELATED), {"CLAUDE_CONFIG_DIR": str(config), "MEMTUI_HOOK_SYNC": "1"}))

    body = git(top, "log", "-1", "--format=%B")
    assert "Memtui-Actor: agent" in body
    assert f"Memtui-Session: {SESSION}" in body
    assert "Memtui-Memory: memory/user_role.md" in body
    assert git(top, "show", "--name-only", "--format=", "HEAD").split() == ["memory/user_role.md"]
    history = json.loads(
        subprocess.run([*MEMTUI, "history", str(store), "--json"], capture_output=True, text=True, timeout=60).stdout
    )
    assert history[0]["action"] == "agent-write"
    # nothing new written: a second call records nothing
    head = git(top, "rev-parse", "HEAD")
    silent(run_hook(write_payload(new, UNRELATED), {"CLAUDE_CONFIG_DIR": str(config), "MEMTUI_HOOK_SYNC": "1"}))
    assert git(top, "rev-parse", "HEAD") == head


def test_by_default_the_commit_is_made_after_the_answer_by_a_detached_process(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    top = store.parent
    assert subprocess.run([*MEMTUI, "init", str(store)], capture_output=True, timeout=60).returncode == 0
    new = store / "feedback_use_bun.md"
    new.write_text(BUN, encoding="utf-8")

    out = answer(run_hook(write_payload(new, BUN), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert "feedback_use_npm.md" in out["systemMessage"]
    deadline = time.monotonic() + 30
    while "Memtui-Actor: agent" not in git(top, "log", "-1", "--format=%B"):
        assert time.monotonic() < deadline, "the detached process did not record the write within 30 s"
        time.sleep(0.1)
    assert f"Memtui-Session: {SESSION}" in git(top, "log", "-1", "--format=%B")


def test_a_store_inside_the_users_project_repository_is_not_committed_unless_turned_on(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_files(project, {"src/app.py": "print(1)\n", ".claude/memory/feedback_use_npm.md": NPM})
    store = project / ".claude" / "memory"
    (store / "MEMORY.md").write_text("- [npm](feedback_use_npm.md) — npm\n", encoding="utf-8")
    init_repo(project)
    head = git(project, "rev-parse", "HEAD")
    new = store / "user_role.md"
    new.write_text(UNRELATED, encoding="utf-8")

    sync = {"MEMTUI_HOOK_SYNC": "1"}
    silent(run_hook(write_payload(new, UNRELATED, cwd=project / "src"), sync))
    assert git(project, "rev-parse", "HEAD") == head

    git(project, "config", "memtui.recordAgentWrites", "true")
    silent(run_hook(write_payload(new, UNRELATED, cwd=project / "src"), sync))
    assert "Memtui-Actor: agent" in git(project, "log", "-1", "--format=%B")
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == [".claude/memory/user_role.md"]


def test_memory_md_over_the_cap_names_the_first_line_that_will_not_load(config: Path) -> None:
    store = auto_store(config, {"feedback_use_npm.md": NPM})
    lines = ["# Memory Index", "", "- [npm](feedback_use_npm.md) — npm"] + [f"- note {i}" for i in range(230)]
    (store / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    out = answer(run_hook(edit_payload(store / "MEMORY.md", "a", "b"), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert "MEMORY.md" in out["systemMessage"]
    assert "does not load line 201" in out["hookSpecificOutput"]["additionalContext"]


def test_relative_date_asks_the_agent_to_edit_its_memory(config: Path) -> None:
    store = auto_store(config, {"user_role.md": UNRELATED})
    text = memory(
        "project_freeze",
        "project",
        body="Deploy freeze starts next Thursday.\n\n**Why:** release.\n\n**How to apply:** no merges.",
    )
    new = store / "project_freeze.md"
    new.write_text(text, encoding="utf-8")

    out = answer(run_hook(write_payload(new, text), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert 'relative date "next Thursday"' in out["hookSpecificOutput"]["additionalContext"]
    assert "Edit your new memory" in out["hookSpecificOutput"]["additionalContext"]


def test_a_link_to_no_memory_asks_the_agent_to_link_the_memory_it_probably_meant(config: Path) -> None:
    store = auto_store(config, {"user_role.md": UNRELATED})
    text = memory("project_freeze", "project", body="Freeze, see [[role]].\n\n**Why:** x.\n\n**How to apply:** y.")
    new = store / "project_freeze.md"
    new.write_text(text, encoding="utf-8")

    out = answer(run_hook(write_payload(new, text), {"CLAUDE_CONFIG_DIR": str(config)}))

    context = out["hookSpecificOutput"]["additionalContext"]
    assert "project_freeze.md:7: [[role]] links to no memory (none is named role)" in context
    assert "Edit your new memory: link [[user_role]] instead." in context
    assert out["systemMessage"].startswith("memtui: project_freeze.md links to [[role]], which is no memory it loads")


def test_writing_memory_md_reports_its_own_links_not_every_memorys(config: Path) -> None:
    ghost = memory("project_freeze", "project", body="See [[ghost]].\n\n**Why:** x.\n\n**How to apply:** y.")
    store = auto_store(config, {"user_role.md": UNRELATED, "project_freeze.md": ghost})
    index = store / "MEMORY.md"
    text = index.read_text(encoding="utf-8") + "- see also [[phantom]]\n"
    index.write_text(text, encoding="utf-8")

    out = answer(run_hook(write_payload(index, text), {"CLAUDE_CONFIG_DIR": str(config)}))

    context = out["hookSpecificOutput"]["additionalContext"]
    assert "[[phantom]] links to no memory" in context and "[[ghost]]" not in context


def test_multiedit_payload_and_sessions_for_the_tui(config: Path) -> None:
    from memtui.hook.record import agent_writes

    store = auto_store(config, {"feedback_use_npm.md": NPM})
    assert subprocess.run([*MEMTUI, "init", str(store)], capture_output=True, timeout=60).returncode == 0
    target = store / "feedback_use_bun.md"
    target.write_text(BUN, encoding="utf-8")
    payload = {
        "session_id": "sess-A",
        "hook_event_name": "PostToolUse",
        "tool_name": "MultiEdit",
        "tool_input": {"file_path": str(target), "edits": [{"old_string": "a", "new_string": "b"}]},
    }
    env = {"CLAUDE_CONFIG_DIR": str(config), "MEMTUI_HOOK_SYNC": "1"}

    out = answer(run_hook(payload, env))
    (store / "user_role.md").write_text(UNRELATED, encoding="utf-8")
    silent(run_hook({**write_payload(store / "user_role.md", UNRELATED), "session_id": "sess-B"}, env))

    assert "feedback_use_npm.md" in out["systemMessage"]
    writes = agent_writes(store)
    assert [(w.session, w.memories) for w in writes] == [
        ("sess-B", ("memory/user_role.md",)),
        ("sess-A", ("memory/feedback_use_bun.md",)),
    ]


def test_a_relative_date_in_description_and_body_is_reported_once(config: Path) -> None:
    store = auto_store(config, {"user_role.md": UNRELATED})
    text = memory(
        "project_freeze",
        "project",
        description="Freeze starts next Thursday",
        body="Deploy freeze starts next Thursday.\n\n**Why:** release.\n\n**How to apply:** no merges.",
    )
    (store / "project_freeze.md").write_text(text, encoding="utf-8")

    out = answer(run_hook(write_payload(store / "project_freeze.md", text), {"CLAUDE_CONFIG_DIR": str(config)}))

    assert out["hookSpecificOutput"]["additionalContext"].count('next Thursday" goes wrong') == 1


def test_auto_memory_directory_from_user_settings_is_a_store(config: Path, tmp_path: Path) -> None:
    custom = tmp_path / "notes" / "agent-memory"
    write_files(custom, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    os.utime(custom / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000))
    payload = write_payload(custom / "feedback_use_bun.md", BUN, cwd=tmp_path)
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    silent(run_hook(payload, env))  # not a store until settings say so

    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom)}), encoding="utf-8")

    assert "feedback_use_npm.md" in answer(run_hook(payload, env))["systemMessage"]


def test_in_repo_store_without_cwd_uses_claude_project_dir_and_cowork_override(tmp_path: Path) -> None:
    project = write_files(
        tmp_path / "proj",
        {
            ".claude/memory/feedback_use_npm.md": NPM,
            ".claude/memory/feedback_use_bun.md": BUN,
            ".claude/memory/MEMORY.md": "- [npm](feedback_use_npm.md) — npm\n",
        },
    )
    store = project / ".claude" / "memory"
    os.utime(store / "feedback_use_npm.md", (1_700_000_000, 1_700_000_000))
    payload = write_payload(store / "feedback_use_bun.md", BUN)
    del payload["cwd"]

    silent(run_hook(payload, {"CLAUDE_PROJECT_DIR": ""}))
    assert "feedback_use_npm.md" in answer(run_hook(payload, {"CLAUDE_PROJECT_DIR": str(project)}))["systemMessage"]
    assert (
        "feedback_use_npm.md"
        in answer(run_hook(payload, {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": str(store)}))["systemMessage"]
    )
