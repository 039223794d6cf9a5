"""Every action in a real git repository: one commit each, trailers, only store paths, exact undo, refusals."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.audit.lock import LockHeld, lock_path, store_lock
from memtui.audit.repo import NotInGit, open_repo, parse_trailers
from memtui.core.reading import sha256
from memtui.core.store import detect_layout, load_store

DAY = dt.date(2026, 11, 30)
POLITE = memory(
    "feedback_writing_polite",
    description="Write in a polite, formal tone",
    body="# a comment-like heading\nWrite replies in a polite tone.\n\n**Why:** clients.\n\n**How to apply:** always.",
    tags="[style, 'tone']",
    originSessionId="abc-123",
)
DIRECT = memory("feedback_writing_direct", description="Write in a direct style")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's project repository with a memory store inside it and the user's own files."""
    top = tmp_path / "app"
    write_files(
        top,
        {
            "src/app.py": "print('hello')\n",
            "README.md": "# App\n",
            ".claude/memory/MEMORY.md": "# Memory\n\n- [Polite](feedback_writing_polite.md) — polite tone\n"
            "- [Direct](feedback_writing_direct.md) — direct\n- [Tea](user_tea.md) — tea\n",
            ".claude/memory/feedback_writing_polite.md": POLITE,
            ".claude/memory/feedback_writing_direct.md": DIRECT,
            ".claude/memory/user_tea.md": memory("user_tea", "user", body="User drinks tea."),
        },
    )
    init_repo(top)
    return top


def store_of(project: Path) -> Path:
    return project / ".claude" / "memory"


def head_files(repo: Path) -> list[str]:
    return git(repo, "show", "--no-renames", "--name-only", "--format=", "HEAD").split()


def head_trailers(repo: Path) -> dict[str, list[str]]:
    return parse_trailers(git(repo, "log", "-1", "--format=%B"))


def test_archive_moves_stamps_reindexes_in_one_commit_and_undo_restores_bytes(project: Path) -> None:
    store = store_of(project)
    before = {p: p.read_bytes() for p in [store / "MEMORY.md", store / "feedback_writing_polite.md"]}
    count = int(git(project, "rev-list", "--count", "HEAD"))
    result = ops.archive(
        store,
        "feedback_writing_polite.md",
        reason="User now wants the direct style",
        superseded_by="feedback_writing_direct.md",
        today=DAY,
    )
    assert int(git(project, "rev-list", "--count", "HEAD")) == count + 1
    assert result.commit == git(project, "rev-parse", "HEAD").strip()
    assert sorted(head_files(project)) == [
        ".claude/memory.archive/ARCHIVE.md",
        ".claude/memory.archive/feedback_writing_polite.md",
        ".claude/memory/MEMORY.md",
        ".claude/memory/feedback_writing_polite.md",
    ]
    trailers = head_trailers(project)
    assert trailers["Memtui-Action"] == ["archive"]
    assert trailers["Memtui-Memory"] == [".claude/memory/feedback_writing_polite.md"]
    assert trailers["Memtui-Reason"] == ["User now wants the direct style"]
    assert trailers["Memtui-Superseded-By"] == [".claude/memory/feedback_writing_direct.md"]
    archived = (project / ".claude/memory.archive/feedback_writing_polite.md").read_text()
    # lines added only: every original byte of front matter and body is still there, in order
    original_lines = POLITE.splitlines()
    new_lines = archived.splitlines()
    assert [line for line in new_lines if line in original_lines] == original_lines
    assert [line for line in new_lines if line not in original_lines] == [
        "status: archived",
        "archived_at: 2026-11-30",
        "archived_reason: User now wants the direct style",
        "superseded_by: feedback_writing_direct.md",
    ]
    assert "feedback_writing_polite" not in (store / "MEMORY.md").read_text()
    assert (
        "- [feedback_writing_polite](feedback_writing_polite.md) — 2026-11-30 · User now wants the direct style"
        in (project / ".claude/memory.archive/ARCHIVE.md").read_text()
    )
    assert not (store / "feedback_writing_polite.md").exists()

    undone = ops.undo(store, today=DAY)
    assert head_trailers(project)["Memtui-Reverts"] == [result.commit]
    for path, data in before.items():
        assert path.read_bytes() == data
    assert not (project / ".claude/memory.archive/feedback_writing_polite.md").exists()
    assert undone.commit and git(project, "status", "--porcelain").strip() == ""


def test_a_successor_the_index_does_not_list_takes_the_archived_memorys_line(project: Path) -> None:
    """A trial archived a memory as superseded by one MEMORY.md did not list: the index then listed neither, so the
    agent loaded neither. The successor takes the line where it stood, in the archive's own commit."""
    store = store_of(project)
    newer = memory("feedback_writing_plain", description="Write in plain words, no formal tone")
    (store / "feedback_writing_plain.md").write_text(newer, encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "agent wrote a memory")
    result = ops.archive(
        store, "feedback_writing_polite.md", reason="replaced", superseded_by="feedback_writing_plain.md", today=DAY
    )
    index = (store / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert index[2].startswith("- [feedback_writing_plain](feedback_writing_plain.md)"), index
    assert "Write in plain words" in index[2] and not any("polite" in line for line in index)
    assert any("MEMORY.md lists feedback_writing_plain.md" in n for n in result.notes), result.notes
    assert sorted(head_files(project)) == sorted(
        [
            ".claude/memory/MEMORY.md",
            ".claude/memory/feedback_writing_polite.md",
            ".claude/memory.archive/feedback_writing_polite.md",
            ".claude/memory.archive/ARCHIVE.md",
        ]
    )
    # a successor already listed keeps its own line, and the archived memory's line just goes
    ops.archive(store, "feedback_writing_direct.md", reason="replaced", superseded_by="user_tea.md", today=DAY)
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "feedback_writing_direct" not in index and index.count("user_tea.md") == 1


def test_users_staged_and_unstaged_work_is_left_exactly_as_it_was(project: Path) -> None:
    (project / "src/app.py").write_text("print('staged change')\n")
    git(project, "add", "src/app.py")
    (project / "src/app.py").write_text("print('unstaged on top')\n")
    (project / "README.md").write_text("# App\nunstaged\n")
    (project / "notes.txt").write_text("untracked\n")
    staged, unstaged, status = (
        git(project, "diff", "--cached"),
        git(project, "diff"),
        git(project, "status", "--porcelain"),
    )
    ops.archive(store_of(project), "user_tea.md", reason="no longer relevant", today=DAY)
    ops.verify(store_of(project), "feedback_writing_direct.md", today=DAY)
    assert git(project, "diff", "--cached") == staged
    assert git(project, "diff") == unstaged
    assert git(project, "status", "--porcelain") == status
    assert all(f.startswith(".claude/") for f in head_files(project))
    assert all(f.startswith(".claude/") for f in git(project, "show", "--name-only", "--format=", "HEAD~1").split())


def test_agent_writes_are_committed_first_on_their_own(project: Path) -> None:
    store = store_of(project)
    (store / "project_new.md").write_text(memory("project_new", "project"))
    (store / "user_tea.md").write_text(memory("user_tea", "user", body="User drinks green tea now."))
    result = ops.verify(store, "feedback_writing_direct.md", today=DAY)
    assert result.agent_commit is not None
    agent = parse_trailers(git(project, "log", "-1", "--format=%B", result.agent_commit))
    assert agent["Memtui-Actor"] == ["agent"]
    assert sorted(git(project, "show", "--name-only", "--format=", result.agent_commit).split()) == [
        ".claude/memory/project_new.md",
        ".claude/memory/user_tea.md",
    ]
    assert head_files(project) == [".claude/memory/feedback_writing_direct.md"]
    events = open_repo(detect_layout(store)).history()
    assert [e.action for e in events[:2]] == ["verify", "agent-write"]


def test_refuses_when_the_file_changed_underneath(project: Path) -> None:
    store = store_of(project)
    seen = load_store(store).get("user_tea.md")
    assert seen is not None
    (store / "user_tea.md").write_text(memory("user_tea", "user", body="User switched to coffee."))
    head = git(project, "rev-parse", "HEAD")
    with pytest.raises(ops.ChangedOnDisk) as info:
        ops.archive(store, "user_tea.md", reason="old", expected_hash=seen.content_hash, today=DAY)
    assert "changed on disk" in str(info.value) and "coffee" in (info.value.current_text or "")
    assert (store / "user_tea.md").exists() and not (project / ".claude/memory.archive").exists()
    # "nothing was changed" is true: no decision and no commit of the agent's write either (it stays as written)
    assert "nothing was changed" in str(info.value)
    assert git(project, "rev-parse", "HEAD") == head
    assert git(project, "status", "--porcelain") == " M .claude/memory/user_tea.md\n"


def test_a_refused_decision_leaves_no_commit_not_even_the_agents(project: Path) -> None:
    """The agent's writes are recorded first only for a decision that is made; a refused one leaves the repository,
    the user's index and every file as they were, and the next decision records the agent's writes."""
    store = store_of(project)
    seen = load_store(store).get("user_tea.md")
    assert seen is not None
    git(project, "add", "README.md")  # the user's own staged work
    (project / "README.md").write_text("# App, staged\n")
    git(project, "add", "README.md")
    (store / "project_new.md").write_text(memory("project_new", "project"))
    (store / "user_tea.md").write_text(memory("user_tea", "user", body="User switched to coffee."))
    head, status = git(project, "rev-parse", "HEAD"), git(project, "status", "--porcelain")
    refusals = [
        lambda: ops.archive(store, "user_tea.md", reason="old", expected_hash=seen.content_hash, today=DAY),
        lambda: ops.verify(store, "user_tea.md", expected_hash=seen.content_hash, today=DAY),
        lambda: ops.edit(store, "feedback_writing_direct.md", DIRECT + "token: ghp_" + "x1" * 18 + "\n", today=DAY),
    ]
    for refused in refusals:
        with pytest.raises(ops.OpError, match="nothing was changed|looks like a secret"):
            refused()
        assert git(project, "rev-parse", "HEAD") == head
        assert git(project, "status", "--porcelain") == status
    assert "?? .claude/memory/project_new.md" in status and "M  README.md" in status
    result = ops.verify(store, "feedback_writing_direct.md", today=DAY)
    assert (
        result.agent_commit is not None
        and git(project, "rev-parse", f"{result.agent_commit}~1").strip() == head.strip()
    )
    assert "coffee" in git(project, "show", f"{result.agent_commit}:.claude/memory/user_tea.md")


def test_a_refusal_says_so_when_the_agents_writes_had_to_stay_recorded(tmp_path: Path) -> None:
    """In a repository without a commit yet, the agent's first commit has nothing to go back to: it stays, and
    the refusal says so instead of "nothing was changed"."""
    top = tmp_path / "fresh"
    write_files(top, {"memory/MEMORY.md": "- [Tea](user_tea.md) — tea\n", "memory/user_tea.md": memory("user_tea")})
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.name", "Test Person")
    git(top, "config", "user.email", "test@example.com")
    with pytest.raises(ops.ChangedOnDisk) as info:
        ops.archive(top / "memory", "user_tea.md", reason="old", expected_hash="0" * 64, today=DAY)
    agent = git(top, "rev-parse", "HEAD").strip()
    assert git(top, "rev-list", "--count", "HEAD").strip() == "1" and "Memtui-Actor: agent" in git(top, "show", "-s")
    message = str(info.value)
    assert "nothing was changed" not in message
    assert (
        f"your decision was not made (the agent's new writes were recorded as their own commit, {agent[:8]})" in message
    )


@pytest.mark.parametrize("bad", ["../../src/app.py", "/etc/passwd", "../memory.archive/x.md", "MEMORY.md", "notes.txt"])
def test_refuses_paths_that_leave_the_store(project: Path, bad: str) -> None:
    head = git(project, "rev-parse", "HEAD")
    with pytest.raises(ops.PathRefused):
        ops.archive(store_of(project), bad, reason="x", today=DAY)
    assert git(project, "rev-parse", "HEAD") == head


def test_refuses_a_symlink_pointing_outside(project: Path) -> None:
    (store_of(project) / "evil.md").symlink_to(project / "README.md")
    with pytest.raises(ops.PathRefused, match="symlink"):
        ops.verify(store_of(project), "evil.md", today=DAY)


def test_refuses_to_commit_a_secret_unless_overridden(project: Path) -> None:
    store = store_of(project)
    text = (store / "user_tea.md").read_text() + "token: ghp_" + "x1" * 18 + "\n"
    with pytest.raises(ops.SecretRefused, match="user_tea.md"):
        ops.edit(store, "user_tea.md", text, today=DAY)
    assert "ghp_" not in (store / "user_tea.md").read_text()  # rolled back
    result = ops.edit(store, "user_tea.md", text, allow_secret=True, today=DAY)
    assert result.commit and "ghp_" in git(project, "show", "HEAD")


def test_a_secret_refusal_on_a_move_names_the_memory_where_it_is_and_its_line_there(project: Path) -> None:
    """Archiving a memory holding a key was refused naming `../memory.archive/x.md:13`: where the archive would
    have put it, with its line shifted by the archive stamps, a file that does not exist. The refusal names the
    memory where it is and the line there (what `check` says), and where it was going."""
    store = store_of(project)
    key = "ghp_" + "x1" * 18
    (store / "user_tea.md").write_text(memory("user_tea", "user", body=f"User drinks tea.\n\ntoken: {key}"))
    git(project, "commit", "-qam", "a key, committed by hand")
    line = next(i for i, t in enumerate((store / "user_tea.md").read_text().splitlines(), 1) if key in t)
    where = f"user_tea.md:{line} (GitHub token; archived as ../memory.archive/user_tea.md)"
    head = git(project, "rev-parse", "HEAD")
    for decide in (
        lambda: ops.archive(store, "user_tea.md", reason="old", today=DAY),
        lambda: ops.archive_many(store, ["feedback_writing_direct.md", "user_tea.md"], reason="old", today=DAY),
        lambda: ops.merge(store, ["feedback_writing_direct.md", "user_tea.md"], into="direct_tea.md", today=DAY),
    ):
        with pytest.raises(ops.SecretRefused) as refused:
            decide()
        assert where in refused.value.message and "../memory.archive/user_tea.md:" not in refused.value.message
        assert git(project, "rev-parse", "HEAD") == head and (store / "user_tea.md").is_file()
        assert not [p for p in (project / ".claude").rglob("*") if p.is_file() and "memory.archive" in p.parts]
    ops.archive(store, "user_tea.md", reason="old", allow_secret=True, today=DAY)
    archived = project / ".claude" / "memory.archive" / "user_tea.md"
    moved_line = next(i for i, t in enumerate(archived.read_text().splitlines(), 1) if key in t)
    assert moved_line != line  # the stamp lines moved it: the archive's own line is the one to name now
    with pytest.raises(ops.SecretRefused) as refused:
        ops.restore(store, "user_tea.md", today=DAY)
    assert (
        f"../memory.archive/user_tea.md:{moved_line} (GitHub token; restored to user_tea.md)" in refused.value.message
    )


def test_agent_written_secret_is_not_swept_into_history(project: Path) -> None:
    store = store_of(project)
    (store / "reference_key.md").write_text(memory("reference_key", "reference", body="key sk-" + "a1B2" * 8))
    result = ops.verify(store, "feedback_writing_direct.md", today=DAY)
    # a warning (the CLI's last line, on stderr), naming the secret where `check` does
    assert any("reference_key.md:7 (OpenAI-style API key)" in w for w in result.warnings), result.warnings
    assert "reference_key.md" in git(project, "status", "--porcelain")
    assert "sk-a1B2" not in git(project, "log", "-p", "--all")


def test_merge_default_text_archives_the_others_in_one_commit(project: Path) -> None:
    store = store_of(project)
    (store / "feedback_tone.md").write_text(memory("feedback_tone", description="Tone", body="Be direct.\nNo padding."))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "add tone")
    before = git(project, "rev-parse", "HEAD").strip()
    result = ops.merge(
        store, ["feedback_writing_direct.md", "feedback_tone.md"], into="feedback_writing_direct.md", today=DAY
    )
    assert git(project, "rev-list", "--count", f"{before}..HEAD").strip() == "1"
    merged = (store / "feedback_writing_direct.md").read_text()
    assert "Be direct." in merged and "No padding." in merged and "merged_from: [feedback_tone.md]" in merged
    archived = (project / ".claude/memory.archive/feedback_tone.md").read_text()
    assert "merged_into: feedback_writing_direct.md" in archived
    assert head_trailers(project)["Memtui-Merged-Into"] == [".claude/memory/feedback_writing_direct.md"]
    assert result.summary.startswith("merged")


def test_merge_into_a_new_file_with_the_persons_text(project: Path) -> None:
    store = store_of(project)
    text = (
        "---\nname: feedback_style\ndescription: Writing style\ntype: feedback\n---\n\nDirect, never polite padding.\n"
    )
    ops.merge(
        store, ["feedback_writing_polite.md", "feedback_writing_direct.md"], into="feedback_style", text=text, today=DAY
    )
    assert (store / "feedback_style.md").read_text().startswith(text.split("---\n\n")[0])
    assert not (store / "feedback_writing_polite.md").exists() and not (store / "feedback_writing_direct.md").exists()
    assert "(feedback_style.md)" in (store / "MEMORY.md").read_text()
    with pytest.raises(ops.OpError, match="at least two"):
        ops.merge(store, ["feedback_style.md"], into="x", today=DAY)


def test_edit_is_validated_before_saving(project: Path) -> None:
    store = store_of(project)
    before = (store / "user_tea.md").read_bytes()
    with pytest.raises(ops.OpError, match="not valid YAML|never closed"):
        ops.edit(store, "user_tea.md", '---\nname: x\ndescription: "q" tail\ntype: user\n---\nx\n', today=DAY)
    with pytest.raises(ops.OpError, match="keep a type"):
        ops.edit(store, "user_tea.md", "---\nname: user_tea\ndescription: d\n---\nx\n", today=DAY)
    assert (store / "user_tea.md").read_bytes() == before
    ops.edit(store, "user_tea.md", before.decode().replace("tea", "coffee"), today=DAY)
    assert "coffee" in (store / "user_tea.md").read_text()


def test_verify_stamps_last_verified_and_fix_date(project: Path) -> None:
    store = store_of(project)
    ops.verify(store, "user_tea.md", today=DAY)
    assert "last_verified: 2026-11-30" in (store / "user_tea.md").read_text()
    assert head_trailers(project)["Memtui-Action"] == ["verify"]
    (store / "project_freeze.md").write_text(
        memory("project_freeze", "project", body="Freeze starts tomorrow.\n\n**Why:** QA\n\n**How to apply:** wait")
    )
    ops.fix_date(store, "project_freeze.md", date=dt.date(2026, 3, 5), today=DAY)
    assert "Freeze starts 2026-03-05." in (store / "project_freeze.md").read_text()
    assert '"tomorrow" → 2026-03-05' in head_trailers(project)["Memtui-Reason"][0]


def test_verify_refuses_an_expired_memory_and_verifies_none_of_a_batch(project: Path) -> None:
    """Verifying cannot make an expired memory current: the badge would stay `expired` while the review
    counted it decided."""
    store = store_of(project)
    (store / "project_freeze.md").write_text(
        memory(
            "project_freeze",
            "project",
            expires_at="2026-07-14",
            body="Freeze.\n\n**Why:** QA\n\n**How to apply:** wait",
        )
    )
    git(project, "add", "-A")
    git(project, "commit", "-qm", "agent")
    before = git(project, "rev-parse", "HEAD")
    with pytest.raises(ops.OpError, match="expired on 2026-07-14"):
        ops.verify_many(store, ["user_tea.md", "project_freeze.md"], today=DAY)
    assert git(project, "rev-parse", "HEAD") == before and "last_verified" not in (store / "user_tea.md").read_text()
    ops.verify(store, "project_freeze.md", today=dt.date(2026, 7, 14))  # on the day itself it still holds


def test_restore_is_the_reverse_of_archive(project: Path) -> None:
    store = store_of(project)
    original = (store / "user_tea.md").read_bytes()
    ops.archive(store, "user_tea.md", reason="stale", today=DAY)
    ops.restore(store, "user_tea.md", today=DAY)
    assert (store / "user_tea.md").read_bytes() == original
    assert "(user_tea.md)" in (store / "MEMORY.md").read_text()
    assert "user_tea" not in (project / ".claude/memory.archive/ARCHIVE.md").read_text()
    assert head_trailers(project)["Memtui-Action"] == ["restore"]


def test_restoring_a_memory_already_back_in_the_store_says_so(project: Path) -> None:
    store = store_of(project)
    ops.archive(store, "user_tea.md", reason="stale", today=DAY)
    ops.restore(store, "user_tea.md", today=DAY)
    before = git(project, "rev-parse", "HEAD")
    with pytest.raises(ops.PathRefused, match="user_tea.md is not archived: it is already in the store") as refused:
        ops.restore(store, "user_tea.md", today=DAY)
    assert refused.value.title == "Not archived"
    assert git(project, "rev-parse", "HEAD") == before
    with pytest.raises(ops.PathRefused, match="no such memory in the archive"):
        ops.restore(store, "user_coffee.md", today=DAY)


def test_restoring_a_memory_marked_archived_but_still_loaded_says_what_it_is(project: Path) -> None:
    store = store_of(project)
    (store / "user_old.md").write_text(memory("user_old", "user", body="User drank coffee.", status="archived"))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "an archived memory left in the loaded folder")
    with pytest.raises(ops.PathRefused, match="marked archived but still sits in the loaded folder") as refused:
        ops.restore(store, "user_old.md", today=DAY)
    assert refused.value.title == "Not in the archive"


def test_second_undo_goes_further_back_instead_of_undoing_the_undo(project: Path) -> None:
    store = store_of(project)
    ops.verify(store, "user_tea.md", today=DAY)
    ops.archive(store, "feedback_writing_polite.md", reason="r", today=DAY)
    ops.undo(store, today=DAY)
    assert (store / "feedback_writing_polite.md").exists()
    ops.undo(store, today=DAY)
    assert "last_verified" not in (store / "user_tea.md").read_text()
    assert (store / "feedback_writing_polite.md").exists()
    with pytest.raises(ops.OpError, match="nothing to undo"):
        ops.undo(store, today=DAY)


def test_undo_refuses_when_a_later_commit_not_by_memtui_touched_the_files(project: Path) -> None:
    store = store_of(project)
    ops.verify(store, "user_tea.md", today=DAY)
    (store / "user_tea.md").write_text((store / "user_tea.md").read_text() + "hand edit\n")
    git(project, "commit", "-qam", "hand edit")
    with pytest.raises(ops.OpError, match="later commits not made by memtui"):
        ops.undo(store, today=DAY)


def test_malformed_file_is_archived_whole_and_never_rewritten(project: Path) -> None:
    store = store_of(project)
    bad = b'---\nname: broken\ndescription: "q" tail\ntype: feedback\n---\nbody\n'
    (store / "broken.md").write_bytes(bad)
    with pytest.raises(ops.OpError, match="could not be parsed"):
        ops.verify(store, "broken.md", today=DAY)
    ops.archive(store, "broken.md", reason="unreadable", today=DAY)
    assert (project / ".claude/memory.archive/broken.md").read_bytes() == bad


def test_lock_held_by_a_live_process_refuses_and_a_dead_holders_lock_is_free(project: Path) -> None:
    store = store_of(project)
    layout = detect_layout(store)
    lock = lock_path(project / ".git", layout.root)
    code = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
        "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, str(os.getpid()).encode()); print('held', flush=True); time.sleep(30)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockHeld, match=str(holder.pid)):
            ops.verify(store, "user_tea.md", today=DAY)
        assert "last_verified" not in (store / "user_tea.md").read_text()
    finally:
        holder.kill()
        holder.wait(timeout=30)
    # the holder died (kill -9): the kernel dropped its lock; the PID left in the file does not matter
    ops.verify(store, "user_tea.md", today=DAY)
    with store_lock(lock):
        assert lock.read_text() == str(os.getpid())
    assert not (store / ".consolidate-lock").exists()


def test_identity_fallback_when_git_has_none(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/a.md": memory("a")})
    init_repo(top, identity=False)
    result = ops.verify(top / "memory", "a.md", today=DAY)
    assert any("memtui <memtui@localhost>" in n for n in result.notes)
    assert git(top, "log", "-1", "--format=%an <%ae>").strip() == "memtui <memtui@localhost>"


def test_store_outside_git_is_refused_and_init_puts_it_under_git(tmp_path: Path) -> None:
    top = tmp_path / "projects" / "-home-me-app"
    write_files(top, {"memory/MEMORY.md": "- [A](a.md)\n", "memory/a.md": memory("a"), "session.jsonl": "{}\n"})
    with pytest.raises(NotInGit, match="memtui init"):
        ops.verify(top / "memory", "a.md", today=DAY)
    assert not (top / ".git").exists()
    result = ops.init(top / "memory")
    assert (top / ".git").is_dir() and result.commit
    assert sorted(git(top, "ls-files").split()) == [".gitignore", "memory/MEMORY.md", "memory/a.md"]
    assert git(top, "status", "--porcelain", "--ignored").strip() == "!! session.jsonl"


def test_init_refuses_while_a_file_holds_a_secret(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/a.md": memory("a", body="AWS AKIAIOSFODNN7EXAMPLE")})
    with pytest.raises(ops.SecretRefused, match="a.md"):
        ops.init(top / "memory")
    assert not (top / ".git").exists()


def test_atomic_write_keeps_permissions_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_text("old")
    os.chmod(path, 0o640)
    ops.atomic_write(path, b"new")
    assert path.read_bytes() == b"new" and (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.md"]


def test_commit_message_hash_helper_matches_file(project: Path) -> None:
    data = (store_of(project) / "user_tea.md").read_bytes()
    assert load_store(store_of(project)).get("user_tea.md").content_hash == sha256(data)  # type: ignore[union-attr]


def test_a_memory_the_agent_deleted_is_brought_back_as_it_was_last_committed(tmp_path: Path) -> None:
    """A new user's agent deleted a memory while memtui was open: nothing could bring it back (`R` in the history
    said only archived or merged-away memories can be restored)."""
    top = tmp_path / "p"
    text = memory("feedback_keep", body="Keep this rule.\n\n**Why:** x\n\n**How to apply:** y")
    write_files(top, {"memory/MEMORY.md": "- [Keep](feedback_keep.md) — keep\n", "memory/feedback_keep.md": text})
    init_repo(top)
    store = top / "memory"
    for committed in (False, True):
        (store / "feedback_keep.md").unlink()  # the agent deletes it
        if committed:
            ops.record_agent_write(store)
        result = ops.bring_back(store, "feedback_keep.md")
        assert (store / "feedback_keep.md").read_text() == text
        log = git(top, "log", "-2", "--format=%s").splitlines()
        assert log[0] == "memtui: restore feedback_keep.md" and log[1].startswith("memtui: record agent writes")
        assert list(result.paths) == ["feedback_keep.md"]
    with pytest.raises(ops.OpError, match="is there: nothing to bring back"):
        ops.bring_back(store, "feedback_keep.md")
    with pytest.raises(ops.OpError, match="git never had"):
        ops.bring_back(store, "feedback_never.md")


TOKEN = "ghp_" + "x1" * 18


def _checked_secret_lines(store: Path) -> set[str]:
    """`file:LINE` of every secret `memtui check` reports in the store (its findings, as the CLI prints them)."""
    from memtui.analysis.check import check_store

    report = check_store(load_store(store), DAY)
    return {f"{f.paths[0]}:{f.line}" for f in report.findings if f.kind == "secret"}


def _refused_where(decide: object) -> str:
    """The secret refusal's message of a decision (which must be refused for a secret)."""
    assert callable(decide)
    with pytest.raises(ops.SecretRefused) as refused:
        decide()
    return refused.value.message


def test_a_secret_refusal_names_a_memorys_line_as_check_does_not_the_stamped_one(project: Path) -> None:
    """A trial: `check` said `reference_tok.md:7`, the refusal of a verify (the review's approve) on it `:8` —
    the line in the text with memtui's `last_verified` stamp added above it, a text the person never saw."""
    store = store_of(project)
    (store / "reference_tok.md").write_text(
        f"---\nname: tok\ndescription: the CI token\ntype: reference\n---\n\nThe CI token is {TOKEN} for the bot.\n"
    )
    (store / "user_tea.md").write_text(memory("user_tea", "user", body=f"User drinks tea.\n\nkey {TOKEN}"))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "keys, committed by hand")
    assert _checked_secret_lines(store) >= {"reference_tok.md:7", "user_tea.md:9"}
    head = git(project, "rev-parse", "HEAD")
    said = _refused_where(lambda: ops.verify(store, "reference_tok.md", today=DAY))
    assert "reference_tok.md:7 (GitHub token)" in said, said
    said = _refused_where(lambda: ops.verify_many(store, ["reference_tok.md", "user_tea.md"], today=DAY))
    assert "reference_tok.md:7 (GitHub token)" in said and "user_tea.md:9 (GitHub token)" in said, said
    assert git(project, "rev-parse", "HEAD") == head
    assert "last_verified" not in (store / "reference_tok.md").read_text()  # rolled back


def test_a_secret_refusal_names_the_line_check_does_in_a_file_without_front_matter(project: Path) -> None:
    """MEMORY.md has no front matter: a line the decision adds above its secret (index) or takes out (drop-link)
    moved the line the refusal named away from the one `check` names. A memory without front matter whose
    relative date is fixed keeps the line `check` names too."""
    store = store_of(project)
    index = (store / "MEMORY.md").read_text()
    (store / "MEMORY.md").write_text(index + f"- [Gone](gone.md) — a memory deleted by hand\n\nCI: {TOKEN}\n")
    (store / "notes_plain.md").write_text(f"A note.\n\nThe key {TOKEN} expires next Friday.\n")
    (store / "reference_new.md").write_text(memory("reference_new", "reference", body="See https://x.example."))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "keys, committed by hand")
    checked = _checked_secret_lines(store)
    assert checked >= {"MEMORY.md:8", "notes_plain.md:3"}, checked
    for decide in (
        lambda: ops.index(store, ["reference_new.md"], today=DAY),
        lambda: ops.drop_link(store, ["gone.md"], today=DAY),
    ):
        said = _refused_where(decide)
        assert "MEMORY.md:8 (GitHub token)" in said, said
    said = _refused_where(lambda: ops.fix_date(store, "notes_plain.md", phrase="next Friday", date="2026-12-04"))
    assert "notes_plain.md:3 (GitHub token)" in said, said


def test_an_edits_secret_is_named_at_its_line_in_the_new_text_and_in_the_file_when_they_differ(project: Path) -> None:
    """An edit commits the person's text: the line there is the one to find, and beside it the line `check` names
    in the file now when the edit moved it."""
    store = store_of(project)
    (store / "reference_tok.md").write_text(
        f"---\nname: tok\ndescription: the CI token\ntype: reference\n---\n\nThe CI token is {TOKEN} for the bot.\n"
    )
    git(project, "add", "-A")
    git(project, "commit", "-qm", "a key, committed by hand")
    text = (store / "reference_tok.md").read_text()
    said = _refused_where(lambda: ops.edit(store, "reference_tok.md", text.replace("bot.", "bots."), today=DAY))
    assert "reference_tok.md:7 (GitHub token)" in said, said
    moved = text.replace("The CI", "A line first.\n\nThe CI")
    said = _refused_where(lambda: ops.edit(store, "reference_tok.md", moved, today=DAY))
    assert "reference_tok.md:9 of the new text (GitHub token; line 7 in the file now)" in said, said
