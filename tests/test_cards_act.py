"""What a new user found on a real store: review cards whose keys did nothing useful or said something untrue, and
refusals that named the wrong problem (real git, real files, the real app through Pilot; the CLI as a process).

Each test failed on the code before this work."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files
from test_cli_check import run
from test_review_flow import SIZE, head_sha, make_app, open_review
from test_review_trial import text_of
from textual.widgets import Static

from memtui import ops
from memtui.core.store import load_store
from memtui.tui.dialogs import ArchiveDialog
from memtui.tui.pilot import settle

# ---------------------------------------------------------------------------------------------- messages (ops, CLI)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n- [Owner](project_owner.md) — owner\n",
            "memory/a.md": memory("a"),
            "memory/project_owner.md": memory("project_owner", "project", body="Chen Jing owns billing."),
        },
    )
    init_repo(top)
    return top / "memory"


def test_archiving_a_memory_deleted_since_it_was_read_says_so_and_invites_no_retry(store: Path) -> None:
    seen = load_store(store).get("a.md")
    assert seen is not None
    (store / "a.md").unlink()  # the agent deleted it while the archive dialog was open
    before = git(store.parent, "rev-parse", "HEAD")
    with pytest.raises(ops.OpError) as refused:
        ops.archive(store, "a.md", reason="not needed", expected_hash=seen.content_hash)
    message = refused.value.message
    assert "deleted on disk since it was read" in message and "nothing to archive" in message
    assert "no such memory" not in message and refused.value.title == "Deleted on disk"
    assert isinstance(refused.value, ops.DeletedOnDisk) and refused.value.path == "a.md"
    assert git(store.parent, "rev-parse", "HEAD") == before
    # the same for the other decisions that act on a version the person saw
    with pytest.raises(ops.DeletedOnDisk, match="nothing to verify"):
        ops.verify(store, "a.md", expected_hash=seen.content_hash)
    with pytest.raises(ops.DeletedOnDisk, match="nothing to edit"):
        ops.edit(store, "a.md", seen.text + "more\n", expected_hash=seen.content_hash)
    with pytest.raises(ops.DeletedOnDisk, match="nothing to archive"):
        ops.archive_many(store, ["a.md", "project_owner.md"], reason="x", expected_hashes={"a.md": seen.content_hash})
    # named without having been read (the CLI), it is still plainly not there
    with pytest.raises(ops.PathRefused, match="no such memory"):
        ops.archive(store, "a.md", reason="not needed")


def test_an_edit_that_breaks_the_opening_fence_is_refused_for_that(store: Path) -> None:
    path = store / "project_owner.md"
    before = path.read_text(encoding="utf-8")
    broken = "OWNER ---" + before.removeprefix("---")
    with pytest.raises(ops.OpError) as refused:
        ops.edit(store, "project_owner.md", broken)
    message = refused.value.message
    assert "must keep a type" not in message
    assert "does not open with a --- front matter line" in message and "OWNER ---" in message
    assert path.read_text(encoding="utf-8") == before
    # the command line says the same (one message, made in ops)
    text_file = store.parent / "new.md"
    text_file.write_text(broken, encoding="utf-8")
    out = run("edit", str(store), "project_owner.md", "--text-file", str(text_file))
    assert out.returncode == 1 and "does not open with a --- front matter line" in out.stderr
    assert "must keep a type" not in out.stderr


async def test_the_archive_dialog_says_a_memory_deleted_meanwhile_is_gone_and_offers_no_retry(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        (demo / card.paths[0]).unlink()  # the agent deleted it while the dialog was open
        before = head_sha(demo)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is dialog and head_sha(demo) == before
        said = text_of(dialog.query_one("#dialog-refusal", Static))
        assert "deleted on disk since it was read" in said and "nothing to archive" in said
        assert "Not a memory of this store" not in said and "again" not in said and "fix it" not in said
        assert "esc" in said
        await pilot.press("escape")
        await settle(app, pilot)
        # the store was read again: the pair whose memory is gone left the review, nothing is said as refused
        assert app.screen is screen and not screen.refusal
        now = screen.current()
        assert now is not None and card.paths[0] not in now.paths
