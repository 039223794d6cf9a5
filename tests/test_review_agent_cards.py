"""The review's agent cards for a deleted memory (a new-user trial on a real store; real git, real files, the real
app through Pilot).

Each test failed on the code before its fix (those that say they guard a fix failed on a first fix that went too
far): memtui's own archive (or merge) of a memory the agent had just written was a card saying the agent deleted
it, and `R` on it left the memory both live and archived; a deletion `R` brought back came back as a "new" card
whose diff deleted every line; the deleted card said "its text is below" over no text, and there was no way to say
the deletion was fine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files
from test_review_flow import TODAY, head, head_sha, make_app, open_review
from test_snapshots_review import _screen_lines
from textual.widgets import Input, Static

from memtui import ops
from memtui.audit.history import revoked_events
from memtui.audit.repo import try_open_repo
from memtui.review import Card, build_queue
from memtui.tui.dialogs import ArchiveDialog
from memtui.tui.pilot import select_memory, settle
from memtui.workspace import analyse, open_store

X_BODY = "Reply in plain prose.\n\n**Why:** the person reads on a phone.\n\n**How to apply:** no tables."
Y_BODY = "The staging cluster is eu-west.\n\n**Why:** data stays in the EU.\n\n**How to apply:** deploy there."


@pytest.fixture
def reviewed(tmp_path: Path) -> Path:
    """A store under git with two memories and one more to merge into, reviewed once (the agent's queue is empty)."""
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": (
                "- [feedback_x](feedback_x.md) — prose\n- [project_y](project_y.md) — staging\n"
                "- [feedback_z](feedback_z.md) — prose too\n"
            ),
            "memory/feedback_x.md": memory("feedback_x", body=X_BODY, description="prose"),
            "memory/project_y.md": memory("project_y", "project", body=Y_BODY, description="staging"),
            "memory/feedback_z.md": memory("feedback_z", body="Answer briefly.\n\n**Why:** x\n\n**How to apply:** y"),
        },
    )
    init_repo(top)
    store = top / "memory"
    ops.finish_review(store, "first review", today=TODAY)
    return store


def agent_cards(store: Path) -> list[Card]:
    """The review's agent group, as the store is now."""
    ws = analyse(open_store(store, TODAY))
    assert ws.report is not None
    return [c for c in build_queue(ws.report, ws.own_repo()) if c.group == "agent"]


def retired(store: Path) -> list[str]:
    """The memories `memtui history --revoked` lists."""
    repo = try_open_repo(open_store(store, TODAY).store.layout)
    assert repo is not None
    return [m for e in revoked_events(repo.history()) for m in e.memories]


# ---------------------------------------------------------------------------------------------- 1


@pytest.mark.parametrize("how", ["archive", "merge"])
def test_a_memory_memtui_moved_away_after_the_agents_write_is_no_deleted_card(reviewed: Path, how: str) -> None:
    """The agent appends to a memory (uncommitted), then the person archives it or merges it away: memtui's own
    move was shown as `deleted by the agent`. The person decided on the memory; it has no card at all."""
    with (reviewed / "feedback_x.md").open("a", encoding="utf-8") as f:
        f.write("- more\n")
    if how == "archive":
        ops.archive(reviewed, "feedback_x.md", reason="no longer how I work", today=TODAY)
    else:
        ops.merge(reviewed, ["feedback_x.md", "feedback_z.md"], into="feedback_z.md", reason="one rule", today=TODAY)
    assert not (reviewed / "feedback_x.md").exists()
    cards = agent_cards(reviewed)
    assert not [c for c in cards if c.kind == "deleted"], cards
    assert "feedback_x.md" not in {p for c in cards for p in c.paths}


@pytest.mark.parametrize("how", ["archive", "merge"])
def test_bring_back_refuses_a_memory_that_is_in_the_archive(reviewed: Path, how: str) -> None:
    """`R` on that card wrote the file back from git: live with no index line, still in the archive and ARCHIVE.md,
    and still listed as retired. A memory in the archive is restored from there; bring_back refuses, naming it."""
    with (reviewed / "feedback_x.md").open("a", encoding="utf-8") as f:
        f.write("- more\n")
    if how == "archive":
        ops.archive(reviewed, "feedback_x.md", reason="no longer how I work", today=TODAY)
    else:
        ops.merge(reviewed, ["feedback_x.md", "feedback_z.md"], into="feedback_z.md", reason="one rule", today=TODAY)
    before = head_sha(reviewed)
    with pytest.raises(ops.OpError, match=r"archived, as \.\./memory\.archive/feedback_x\.md: restore it") as refused:
        ops.bring_back(reviewed, "feedback_x.md", today=TODAY)
    assert refused.value.title == "In the archive" and "memtui restore" in refused.value.cli_hint
    assert head_sha(reviewed) == before and not (reviewed / "feedback_x.md").exists()
    assert retired(reviewed) == ["memory/feedback_x.md"]
    # the archive's own way back still works, index line included
    ops.restore(reviewed, "../memory.archive/feedback_x.md", today=TODAY)
    assert "(feedback_x.md)" in (reviewed / "MEMORY.md").read_text(encoding="utf-8")
    assert not (reviewed.parent / "memory.archive" / "feedback_x.md").exists() and not retired(reviewed)


def test_bring_back_still_brings_back_a_memory_the_agent_deleted_beside_an_older_archived_one(reviewed: Path) -> None:
    """Guards the refusal: an archived memory of the same name, archived long before the agent wrote and deleted a
    new one, is not what the agent deleted: that deletion is still brought back."""
    ops.archive(reviewed, "feedback_x.md", reason="old rule", today=TODAY)
    (reviewed / "feedback_x.md").write_text(memory("feedback_x", body="A new rule."), encoding="utf-8")
    ops.record_agent_write(reviewed)
    (reviewed / "feedback_x.md").unlink()
    ops.record_agent_write(reviewed)
    ops.bring_back(reviewed, "feedback_x.md", today=TODAY)
    assert "A new rule." in (reviewed / "feedback_x.md").read_text(encoding="utf-8")
    assert (reviewed.parent / "memory.archive" / "feedback_x.md").exists()


async def test_archiving_on_the_main_screen_after_the_agents_write_leaves_no_deleted_card(reviewed: Path) -> None:
    """The trial's steps: the agent appends a line, the person archives the memory (`a`, a reason, `enter`), then
    `r`, `2`: the agent group said `deleted · feedback_x`, and `R` made a second, live copy."""
    app = make_app(reviewed)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        with (reviewed / "feedback_x.md").open("a", encoding="utf-8") as f:
            f.write("- more\n")
        app.reload("disk")
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_x.md")
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        app.screen.query_one(Input).value = "no longer how I work"
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(reviewed)["Memtui-Action"] == ["archive"]
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert not [c for c in screen.cards if c.kind == "deleted"], screen.cards
        assert "bring_back" not in {str(b.action) for b in screen.live_bindings()}
        await pilot.press("R")
        await settle(app, pilot)
        assert head(reviewed)["Memtui-Action"] == ["archive"] and not (reviewed / "feedback_x.md").exists()


# ---------------------------------------------------------------------------------------------- 2


def test_a_deletion_brought_back_leaves_no_card(reviewed: Path) -> None:
    """After `R` the memory is as it was: it came back as a `new` card whose diff deleted every line."""
    (reviewed / "project_y.md").unlink()
    assert [c.kind for c in agent_cards(reviewed)] == ["deleted"]
    ops.bring_back(reviewed, "project_y.md", today=TODAY)
    assert agent_cards(reviewed) == []


def test_after_a_bring_back_what_the_agent_wrote_before_deleting_is_its_card_with_its_own_diff(reviewed: Path) -> None:
    """The agent edited the memory (recorded), then deleted it; `R` writes back the edited text: the edit is still
    the agent's, to review, and its card shows that edit, not a deletion."""
    path = reviewed / "project_y.md"
    path.write_text(path.read_text(encoding="utf-8").replace("eu-west", "eu-central"), encoding="utf-8")
    ops.record_agent_write(reviewed)
    path.unlink()
    ops.bring_back(reviewed, "project_y.md", today=TODAY)
    [card] = agent_cards(reviewed)
    assert card.kind == "new" and card.paths == ("project_y.md",)
    assert "-The staging cluster is eu-west." in card.diff and "+The staging cluster is eu-central." in card.diff
    assert "-name: project_y" not in card.diff


def test_undoing_a_bring_back_shows_the_deletion_again_and_redoing_it_settles_it(reviewed: Path) -> None:
    (reviewed / "project_y.md").unlink()
    ops.bring_back(reviewed, "project_y.md", today=TODAY)
    ops.undo(reviewed, today=TODAY)
    assert [(c.kind, c.paths) for c in agent_cards(reviewed)] == [("deleted", ("project_y.md",))]
    ops.redo(reviewed, today=TODAY)
    assert agent_cards(reviewed) == []


def test_an_undo_of_a_decision_before_the_review_is_not_shown_as_the_agents_write(tmp_path: Path) -> None:
    """Guards the fix: undos drop out of a file's history with the decision they took back; one whose decision is
    older than the review changed the file on its own, and the agent's card after it shows only the agent's line."""
    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "- [Y](project_y.md) — y\n", "memory/project_y.md": memory("project_y")})
    init_repo(top)
    store = top / "memory"
    path = store / "project_y.md"
    ops.edit(store, "project_y.md", path.read_text(encoding="utf-8") + "A person's line.\n", today=TODAY)
    ops.finish_review(store, "reviewed", today=TODAY)
    ops.undo(store, today=TODAY)  # takes the person's line back out, after the review
    path.write_text(path.read_text(encoding="utf-8") + "The agent's line.\n", encoding="utf-8")
    [card] = agent_cards(store)
    assert "+The agent's line." in card.diff and "A person's line." not in card.diff


async def test_R_on_a_deleted_card_leaves_no_new_card_behind(reviewed: Path) -> None:
    """The trial's steps: TUI open, `rm project_y.md`, `r`, `2`, `R`: the next card was `new · project_y` with a
    diff deleting every line, and `v` there committed a verify."""
    app = make_app(reviewed)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(app, pilot)
        text = (reviewed / "project_y.md").read_text(encoding="utf-8")
        (reviewed / "project_y.md").unlink()
        app.reload("disk")
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and (card.kind, card.paths) == ("deleted", ("project_y.md",))
        await pilot.press("R")
        await settle(app, pilot)
        assert (reviewed / "project_y.md").read_text(encoding="utf-8") == text
        assert head(reviewed)["Memtui-Action"] == ["restore"]
        assert [c for c in screen.left() if "project_y.md" in c.paths] == []
        assert screen.current() is None  # nothing else to review
        before = head_sha(reviewed)
        await pilot.press("v")
        await settle(app, pilot)
        assert head_sha(reviewed) == before
        (reviewed / "project_y.md").unlink()  # the agent deletes it again: a new deletion, a card again
        app.reload("disk")
        await settle(app, pilot)
        assert [(c.kind, c.paths) for c in screen.left() if c.group == "agent"] == [("deleted", ("project_y.md",))]


# ---------------------------------------------------------------------------------------------- 3


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_deleted_card_shows_the_memorys_last_committed_text(reviewed: Path, size: tuple[int, int]) -> None:
    """The card said "its text is below" over its own explanation again: the body held no text of the memory."""
    (reviewed / "project_y.md").unlink()
    app = make_app(reviewed)
    async with app.run_test(size=size) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "deleted"
        body = str(screen.query_one("#single-text", Static).render())
        assert "The staging cluster is eu-west." in body and "name: project_y" in body
        assert screen.query_one("#card-single").region.height > 0
        explain = str(screen.query_one("#card-explain", Static).render())
        assert "last committed text is below" in explain and "v accepts the deletion" in explain
        assert "deleted rule" not in explain
        bottom = " ".join(_screen_lines(app.export_screenshot())[-3:]).lower()
        assert "bring back" in bottom and "accept deletion" in bottom  # both keys, on the footer or the key line


async def test_v_on_a_deleted_card_accepts_the_deletion_in_one_commit(reviewed: Path) -> None:
    """A person who agrees with the agent's deletion had no key but `R`: `v` accepts it, the memory stays deleted,
    the card leaves for good, and `u` takes the decision back."""
    (reviewed / "project_y.md").unlink()
    app = make_app(reviewed)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        live = {str(b.action) for b in screen.live_bindings()}
        assert {"bring_back", "accept_deletion"} <= live and "approve" not in live
        await pilot.press("v")
        await settle(app, pilot)
        trailers = head(reviewed)
        assert trailers["Memtui-Action"] == ["accept-deletion"] and trailers["Memtui-Memory"] == ["memory/project_y.md"]
        assert git(reviewed.parent, "show", "--name-only", "--format=", "HEAD").strip() == ""  # writes no file
        log = git(reviewed.parent, "log", "-2", "--format=%s").splitlines()
        assert log[1].startswith("memtui: record agent writes")  # the deletion itself, as the agent's write
        assert not (reviewed / "project_y.md").exists()
        assert not [c for c in screen.left() if c.kind == "deleted"]
        assert [c.kind for c in screen.left()] == ["broken-link"]  # its index line: d drops it, on its own card
        assert [d.action for d in screen.decisions] == ["deletion accepted"]
        assert agent_cards(reviewed) == []
        await pilot.press("u")
        await settle(app, pilot)
        assert head(reviewed)["Memtui-Action"] == ["undo"]
        assert [(c.kind, c.paths) for c in screen.left() if c.group == "agent"] == [("deleted", ("project_y.md",))]


def test_accept_deletion_refuses_a_memory_that_is_there(reviewed: Path) -> None:
    before = head_sha(reviewed)
    with pytest.raises(ops.OpError, match="is there: it is not deleted"):
        ops.accept_deletion(reviewed, "project_y.md", today=TODAY)
    with pytest.raises(ops.OpError, match="git never had"):
        ops.accept_deletion(reviewed, "project_never.md", today=TODAY)
    assert head_sha(reviewed) == before
    # a memory a person archived was not deleted by the agent: no "the agent deleted it" in history
    ops.archive(reviewed, "project_y.md", reason="moved to the wiki", today=TODAY)
    archived = head_sha(reviewed)
    with pytest.raises(ops.OpError, match="not deleted but archived"):
        ops.accept_deletion(reviewed, "project_y.md", today=TODAY)
    assert head_sha(reviewed) == archived


def test_the_agent_deleting_a_memory_again_after_it_was_accepted_is_a_card_again(reviewed: Path) -> None:
    path = reviewed / "project_y.md"
    text = path.read_text(encoding="utf-8")
    path.unlink()
    ops.accept_deletion(reviewed, "project_y.md", today=TODAY)
    assert agent_cards(reviewed) == []
    path.write_text(text, encoding="utf-8")  # the agent writes it again …
    ops.record_agent_write(reviewed)
    path.unlink()  # … and deletes it again
    assert [(c.kind, c.paths) for c in agent_cards(reviewed)] == [("deleted", ("project_y.md",))]


async def test_a_skipped_deleted_card_is_said_before_the_review_is_marked_finished(reviewed: Path) -> None:
    """The end of the cards warned that skipped `new` cards would count as seen once the review is marked
    finished, but not a skipped `deleted` one: the agent's deletion was silently counted as seen."""
    (reviewed / "project_y.md").unlink()
    app = make_app(reviewed)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(app, pilot)
        assert [c.kind for c in screen.cards if c.group == "agent"] == ["deleted"]
        while screen.current() is not None:
            await pilot.press("s")
            await settle(app, pilot)
        summary = str(screen.query_one("#summary-text", Static).render())
        assert "1 of the agent's writes was skipped" in summary, summary
