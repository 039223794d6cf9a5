"""What a new user found on a real store: review cards whose keys did nothing useful or said something untrue, and
refusals that named the wrong problem (real git, real files, the real app through Pilot; the CLI as a process).

Each test failed on the code before this work."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files
from test_cli_check import run
from test_review_flow import SIZE, TODAY, head, head_sha, make_app, messages, open_review
from test_review_trial import text_of
from textual.binding import Binding
from textual.widgets import Static

from memtui import ops
from memtui.core.model import Finding
from memtui.core.store import load_store
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ArchiveDialog
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen
from memtui.workspace import analyse, open_store

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


# ---------------------------------------------------------------------------------------------- what v does, per card


def live(screen: ReviewScreen) -> dict[str, str]:
    """The card's keys as the footer (or key line) offers them: action → label."""
    return {str(b.action): b.description for b in screen.live_bindings() if isinstance(b, Binding)}


def findings_of(store: Path, path: str, kind: str = "schema") -> list[Finding]:
    ws = analyse(open_store(store, TODAY))
    assert ws.report is not None
    return [f for f in ws.report.findings if f.kind == kind and path in f.paths]


NO_FRONT_MATTER = {
    "notes_a.md": "Deploys go out on Tuesday mornings.\n",
    "notes_b.md": "The staging database is reset every night at two.\n",
    "user_role.md": memory("user_role", "user", body="Mei leads the billing team."),
}
LISTED = "- [Role](user_role.md) — role\n- [A](notes_a.md) — notes\n- [B](notes_b.md) — notes\n"


async def test_a_list_card_of_memories_without_front_matter_offers_only_what_works(
    make_store: Callable[..., Path],
) -> None:
    store = make_store(NO_FRONT_MATTER, in_git=True, index=LISTED)
    app = make_app(store)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.is_bulk and card.cue.startswith("no front matter"), screen.cards
        # the hint says what works here: archive, and edit to add front matter; not verify
        assert "a archives" in card.explanation and "e edits" in card.explanation
        assert "verif" not in card.explanation and "v " not in card.explanation
        keys = live(screen)
        assert "archive_older" in keys and "edit" in keys
        assert "approve" not in keys and "accept" not in keys
        before = head_sha(store)
        await pilot.press("x")  # every memory it lists marked: still no verify offered, and v does nothing
        await settle(app, pilot)
        assert screen.marks == {"notes_a.md", "notes_b.md"}
        assert "approve" not in live(screen) and "accept" not in live(screen)
        await pilot.press("v")
        await settle(app, pilot)
        assert head_sha(store) == before and screen.marks == {"notes_a.md", "notes_b.md"}
        assert not any("front matter" in m for m in messages(app)), messages(app)
        await pilot.press("a")  # what the card offers works: one archive of the marked
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["archive"]
        assert not (store / "notes_a.md").exists() and not (store / "notes_b.md").exists()


async def test_a_single_card_about_a_memory_without_front_matter_says_so_and_offers_no_verify(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        for kind in ("new", "schema"):
            screen.index = next(
                i for i, c in enumerate(screen.cards) if c.kind == kind and c.paths == ("session_notes.md",)
            )
            screen.show_card()
            await pilot.pause(0.1)
            keys = live(screen)
            assert "approve" not in keys and "accept" not in keys and "edit" in keys and "archive_older" in keys
            said = text_of(screen.query_one("#card-explain", Static))
            assert "no front matter" in said and "e to add" in said, said


async def test_verifying_a_schema_card_accepts_the_memory_as_it_is_until_it_changes(demo: Path) -> None:
    path = "feedback_feature_flags.md"
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        at = next(i for i, c in enumerate(screen.cards) if c.kind == "schema" and c.paths == (path,))
        screen.index = at
        screen.show_card()
        await pilot.pause(0.1)
        card = screen.current()
        assert card is not None
        # the footer and the card say what v does here
        keys = live(screen)
        assert keys.get("accept") == "Accept as is" and "approve" not in keys
        said = text_of(screen.query_one("#card-explain", Static))
        assert "v accepts it as it is" in said and "comes back only if the memory changes" in said, said
        before = (demo / path).read_bytes()
        await pilot.press("v")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["accept"] and trailers["Memtui-Accepted-Kind"] == ["schema"]
        assert [p.rsplit("/", 1)[-1] for p in trailers["Memtui-Accepted"]] == [path]
        # the format is fine, which is not to say it is still true: nothing stamped, no verified date recorded
        assert (demo / path).read_bytes() == before and "Memtui-Verified" not in trailers
        assert screen.current() != card and card in screen.decided()
        # held in git, not in the screen: the store read again has no schema finding on it, the review no card
        assert findings_of(demo, path) == []
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert not any(c.kind == "schema" and path in c.paths for c in app.cards)
    # a memory that changes is looked at again
    file = demo / path
    file.write_text(file.read_text(encoding="utf-8") + "\nOne more line from the agent.\n", encoding="utf-8")
    assert findings_of(demo, path) != []


async def test_a_schema_list_card_accepts_the_marked_memories_and_lets_them_go(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        screen.index = next(i for i, c in enumerate(screen.cards) if c.is_bulk and c.kind == "schema")
        screen.show_card()
        await pilot.pause(0.1)
        card = screen.current()
        assert card is not None and card.cue.startswith("reference memory without a location")
        assert "v accepts the marked as they are" in card.explanation, card.explanation
        assert live(screen).get("accept") == "Accept as is"
        await pilot.press("x")
        await pilot.press("v")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["accept"] and "Memtui-Verified" not in trailers
        assert sorted(p.rsplit("/", 1)[-1] for p in trailers["Memtui-Accepted"]) == sorted(card.paths)
        # the list card has nothing left to list: it leaves the review, and does not come back on a new read
        assert not any(c.is_bulk and c.kind == "schema" for c in screen.left())
        for path in card.paths:
            assert findings_of(demo, path) == []


async def test_an_agent_write_that_cannot_be_read_says_why_and_offers_the_editor_and_archive(demo: Path) -> None:
    fixed: list[Path] = []

    def editor(path: Path) -> None:
        fixed.append(path)
        path.write_text(memory("feedback_broken_yaml", body="Retry webhooks three times, then alert."))

    app = MemtuiApp(demo, today=TODAY, watch_interval=0, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        screen.index = next(
            i for i, c in enumerate(screen.cards) if c.kind == "new" and c.paths == ("feedback_broken_yaml.md",)
        )
        screen.show_card()
        await pilot.pause(0.1)
        said = text_of(screen.query_one("#card-explain", Static))
        # why, as `memtui check` says it
        assert "cannot be read: front matter is never closed (no second '---' line)" in said, said
        keys = live(screen)
        assert keys.get("edit_in_editor") == "Fix in $EDITOR" and "archive_older" in keys
        assert "approve" not in keys and "accept" not in keys and "edit" not in keys
        await pilot.press("E")
        await settle(app, pilot)
        assert fixed and head(demo)["Memtui-Action"] == ["edit"]
        assert screen.decisions and screen.decisions[-1].action == "edited"


# ---------------------------------------------------------------------------------------------- the record, ops and CLI


def test_an_accepted_schema_finding_holds_through_a_stamp_and_returns_on_an_edit_or_an_undo(store: Path) -> None:
    path = "project_owner.md"
    assert findings_of(store, path) != []
    ops.verify(store, path, accept_schema=True, today=TODAY)
    assert findings_of(store, path) == []
    # a later verify (a stamp only) is no change to what was accepted
    ops.verify(store, path, today=TODAY + dt.timedelta(days=3))
    assert findings_of(store, path) == []
    ops.undo(store)  # that stamp undone: still accepted
    assert findings_of(store, path) == []
    ops.undo(store)  # the acceptance undone: the finding is back
    assert findings_of(store, path) != []
    # already verified today: the acceptance is still recorded (a commit of its own)
    ops.verify(store, path, today=TODAY)
    ops.verify(store, path, accept_schema=True, today=TODAY)
    assert head(store)["Memtui-Accepted-Kind"] == ["schema"] and findings_of(store, path) == []
    file = store / path
    file.write_text(file.read_text(encoding="utf-8").replace("owns billing", "owns payments"), encoding="utf-8")
    assert findings_of(store, path) != []


def test_accepting_a_memory_as_it_is_does_not_say_it_is_still_true(store: Path) -> None:
    """A trial accepted a list card's format and found every memory on it stamped verified and its stale card
    gone: "the format is fine" and "the content is still true" are two decisions."""
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout

    path = "project_owner.md"
    before = (store / path).read_bytes()
    written = open_repo(detect_layout(store)).file_dates().last.get(path)
    result = ops.verify(store, path, accept_schema=True, today=TODAY)
    assert result.action == "accept" and result.commit is not None
    assert (store / path).read_bytes() == before, "nothing stamped"
    assert open_repo(detect_layout(store)).file_dates().last.get(path) == written, "no new writing day"
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["accept"] and "Memtui-Verified" not in trailers
    assert "Accepted as it is: its schema finding" in git(store.parent, "log", "-1", "--format=%B")
    assert findings_of(store, path) == []
    ops.undo(store)  # an acceptance is a decision like any: undone, the finding is back
    assert findings_of(store, path) != [] and (store / path).read_bytes() == before


def test_one_decision_verifying_one_memory_and_accepting_another_names_each_for_what_was_done(store: Path) -> None:
    """The commit of `v` on marks taken on a schema card and another card named both memories as verified, and
    `history` said so, though the accepted one was not stamped."""
    owner = (store / "project_owner.md").read_bytes()
    ops.verify_many(store, ["a.md", "project_owner.md"], accept_schema=["project_owner.md"], today=TODAY)
    trailers = head(store)
    assert trailers["Memtui-Action"] == ["verify"] and trailers["Memtui-Memory"] == ["memory/a.md"]
    assert trailers["Memtui-Accepted"] == ["memory/project_owner.md"]
    assert (store / "project_owner.md").read_bytes() == owner and "last_verified" in (store / "a.md").read_text()
    assert findings_of(store, "project_owner.md") == []
    said = run("history", str(store)).stdout.splitlines()[0]
    assert "memory/a.md" in said and "project_owner" not in said.split("—")[0], said


def test_a_memory_without_front_matter_is_not_accepted_as_it_is(store: Path) -> None:
    """As in the review, where `v` is not offered there: memtui never adds front matter, and accepting cannot fix it."""
    (store / "plain.md").write_text("Just a note, no front matter.\n", encoding="utf-8")
    with pytest.raises(ops.OpError, match="no front matter to accept"):
        ops.verify(store, "plain.md", accept_schema=True, today=TODAY)


def test_the_command_line_accepts_a_schema_finding_and_check_says_it(store: Path) -> None:
    out = run("verify", str(store), "project_owner.md", "--accept-schema")
    assert out.returncode == 0, out.stderr
    check = run("check", str(store))
    lines = check.stdout.splitlines()
    assert not [line for line in lines if line.startswith("INFO") and "project_owner.md" in line], check.stdout
    assert [line for line in lines if line.startswith("accepted") and "project_owner.md" in line], check.stdout
