"""One error type the person sees: every refusal is a MemtuiError with a title, printed in one place by the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import init_repo, memory, write_files

from memtui import ops
from memtui.audit.lock import LockHeld, lock_path, store_lock
from memtui.audit.repo import GitFailed, NotInGit, open_repo
from memtui.cli import UsageError
from memtui.core.errors import MemtuiError
from memtui.core.settings import SettingsError
from memtui.core.store import StoreError, detect_layout

TIMEOUT = 120


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


@pytest.mark.parametrize(
    ("error", "title", "code"),
    [
        (ops.OpError("x.md: no"), "Refused", 1),
        (ops.ChangedOnDisk("x.md changed", "x.md", None), "Changed on disk", 1),
        (ops.SecretRefused("x.md:1 (AWS key)"), "Looks like a secret", 1),
        (ops.PathRefused("../x.md: outside"), "Not a memory of this store", 1),
        (LockHeld("busy"), "Store busy", 1),
        (GitFailed("a merge is in progress"), "Git", 1),
        (NotInGit("/s is not in a git repository"), "Git", 2),
        (StoreError("/s: no such folder"), "Store cannot be opened", 2),
        (SettingsError(Path("/c/config.toml"), 3, "theme: expected a name"), "Invalid settings", 2),
        (UsageError("--today x: expected a date"), "Usage", 2),
    ],
)
def test_every_person_facing_error_is_a_memtui_error_with_a_title_and_its_exit_code(
    error: MemtuiError, title: str, code: int
) -> None:
    """1 when an action was refused (nothing written), 2 for usage: no store, no repository, bad settings."""
    assert isinstance(error, MemtuiError)
    assert error.title == title and error.exit_code == code
    assert error.describe().startswith(f"{title} — ") and error.message in error.describe()


def test_a_title_can_be_given_per_error() -> None:
    assert MemtuiError("m", title="Special").describe() == "Special — m"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    top = tmp_path / "app"
    write_files(top, {"memory/MEMORY.md": "# Memory\n", "memory/feedback_a.md": memory("feedback_a")})
    init_repo(top)
    return top / "memory"


def test_cli_prints_title_and_message_for_a_missing_store(tmp_path: Path) -> None:
    out = run("check", str(tmp_path / "nope"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("memtui: Store cannot be opened — ") and "nope: no such folder" in out.stderr


def test_cli_prints_title_for_a_store_not_in_git(tmp_path: Path) -> None:
    write_files(tmp_path / "loose", {"MEMORY.md": "# M\n", "feedback_a.md": memory("feedback_a")})
    out = run("verify", str(tmp_path / "loose"), "feedback_a.md")
    assert out.returncode == 2 and out.stderr.startswith("memtui: Git — ") and "memtui init" in out.stderr


def test_cli_prints_title_for_a_refusal_naming_the_file(store: Path) -> None:
    out = run("verify", str(store), "../outside.md")
    assert out.returncode == 1 and out.stderr.startswith("memtui: Not a memory of this store — ")
    assert "outside.md" in out.stderr


def test_cli_prints_title_for_a_secret(store: Path) -> None:
    (store / "feedback_a.md").write_text(memory("feedback_a", body="AKIAIOSFODNN7EXAMPLE"))
    out = run("verify", str(store), "feedback_a.md")
    assert out.returncode == 1 and out.stderr.startswith("memtui: Looks like a secret — ")
    assert "feedback_a.md" in out.stderr


def test_a_secret_refusal_says_refused_once_and_names_the_cli_option_only_in_the_cli(store: Path) -> None:
    """The TUI showed "Refused: refused: …" on a review card and told people to "pass --allow-secret"."""
    (store / "feedback_a.md").write_text(memory("feedback_a", body="AKIAIOSFODNN7EXAMPLE"))
    with pytest.raises(ops.SecretRefused) as refused:
        ops.verify(store, "feedback_a.md")
    assert not refused.value.message.lower().startswith("refused") and "--allow-secret" not in refused.value.message
    out = run("verify", str(store), "feedback_a.md")
    assert out.stderr.rstrip().endswith("(or pass --allow-secret if it is not one)")
    assert "refused: " not in out.stderr.lower()


def test_a_bad_date_is_named_by_the_option_that_gave_it(store: Path) -> None:
    out = run("fix-date", str(store), "feedback_a.md", "--date", "2026-13-40")
    assert out.returncode == 2 and "--date '2026-13-40'" in out.stderr and "--today" not in out.stderr
    out = run("check", str(store), "--today", "yesterday")
    assert out.returncode == 2 and "--today 'yesterday'" in out.stderr


def test_cli_prints_title_for_a_busy_store(store: Path) -> None:
    layout = detect_layout(store)
    repo = open_repo(layout)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from memtui.audit.lock import store_lock\n"
            "with store_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(30)",
            str(lock_path(repo.git_dir, layout.root)),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        out = run("verify", str(store), "feedback_a.md")
        assert out.returncode == 1 and out.stderr.startswith("memtui: Store busy — "), out.stderr
        assert str(store) in out.stderr  # names the store that is busy
    finally:
        holder.kill()
        holder.wait(timeout=TIMEOUT)
    with store_lock(lock_path(repo.git_dir, layout.root)):
        pass  # free again once the holder is gone


def test_cli_prints_title_for_bad_usage(store: Path) -> None:
    out = run("check", str(store), "--today", "yesterday")
    assert out.returncode == 2 and out.stderr.startswith("memtui: Usage — ") and "--today" in out.stderr


def test_refusals_without_a_file_name_the_store(store: Path) -> None:
    out = run("undo", str(store))
    assert out.returncode == 1 and out.stderr.startswith("memtui: Refused — ") and str(store) in out.stderr
    out = run("redo", str(store))
    assert out.returncode == 1 and "nothing to redo" in out.stderr and str(store) in out.stderr
    out = run("archive", str(store), "feedback_a.md", "--reason", " ")
    assert out.returncode == 1 and "feedback_a.md: a reason is required" in out.stderr


def test_a_symlinked_index_is_refused_with_its_own_title(store: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# not the store's index\n")
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").symlink_to(outside)
    out = run("verify", str(store), "feedback_a.md")
    assert out.returncode == 1 and out.stderr.startswith("memtui: Symlink refused — ")
    assert "MEMORY.md is a symlink" in out.stderr
