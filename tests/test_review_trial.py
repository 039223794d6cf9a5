"""What a new-user trial of the review found (real git, real files, the real app through Pilot).

Each test failed on the code before these fixes: an archive retried after a "changed on disk" refusal acted on
text never shown, a retried merge dropped the agent's edit, approvals came back after leaving the review and the
review's record said nothing was committed, memtui's own merge was shown as the agent's write, the superseded
memory's successor was dropped, and the end of the review said finished with whole groups never shown.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, memory
from test_review_flow import SIZE, TODAY, head, head_sha, make_app, open_review
from textual.widgets import Input, Static, TextArea

from memtui import ops
from memtui.review import build_queue
from memtui.tui import app as app_module
from memtui.tui.dialogs import ArchiveDialog, ChangedDialog, MergeDialog
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen
from memtui.workspace import analyse, open_store


def text_of(widget: Static) -> str:
    return str(widget.render())


def lines_of(screen: ChangedDialog | MergeDialog, classes: str) -> list[str]:
    return [text_of(s) for s in screen.query(f".diff-line.{classes}").results(Static)]


async def skip_to(screen: ReviewScreen, pilot, wanted: Callable[..., bool]) -> None:  # type: ignore[no-untyped-def]
    while (card := screen.current()) is not None and not wanted(card):
        await pilot.press("s")
    assert screen.current() is not None


def rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


# ---------------------------------------------------------------------------------------------- 1


async def test_an_archive_retried_after_a_change_on_disk_acts_only_on_the_text_shown(demo: Path) -> None:
    line = "The agent appended this line below the fold."
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        older = demo / card.paths[0]
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        older.write_text(older.read_text(encoding="utf-8") + "\n" * 40 + line + "\n", encoding="utf-8")
        before = head_sha(demo)
        await pilot.press("enter")
        await settle(app, pilot)
        changed = app.screen
        assert isinstance(changed, ChangedDialog)
        # what changed comes first, as added lines, whatever the length of the file
        assert any(line in added for added in lines_of(changed, "-added"))
        first = changed.query_one("#changed-diff")
        assert first.region.y < changed.query_one("#changed-text").region.y
        # a retry before the change was shown (the modal still on top) is refused: it would act on unseen text
        dialog.send("Archiving", "tried too early")
        await settle(app, pilot)
        assert head_sha(demo) == before and older.exists()
        while isinstance(app.screen, ChangedDialog):
            await pilot.press("escape")
            await settle(app, pilot)
        assert app.screen is dialog and "changed on disk" in dialog.refusal
        # the card under the dialog now shows the text the retry decides on
        assert line in text_of(screen.query_one("#side-a-text", Static))
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"] and not older.exists()
        assert line in git(demo.parent, "show", f"HEAD:memory.archive/{card.paths[0]}")


async def test_the_change_shown_is_the_version_a_retry_acts_on(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent writes twice in a row: once before the refusal, once while the store is read after it."""
    first, second = "First line the agent added.", "Second line, written while memtui read the store again."
    app = make_app(demo)
    real_open = app_module.open_store
    writes: list[Path] = []

    def agent_writes_meanwhile(*args, **kwargs):  # type: ignore[no-untyped-def]
        while writes:
            path = writes.pop()
            path.write_text(path.read_text(encoding="utf-8") + second + "\n", encoding="utf-8")
        return real_open(*args, **kwargs)

    monkeypatch.setattr(app_module, "open_store", agent_writes_meanwhile)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None
        older = demo / card.paths[0]
        await pilot.press("a")
        await settle(app, pilot)
        older.write_text(older.read_text(encoding="utf-8") + first + "\n", encoding="utf-8")
        writes.append(older)
        await pilot.press("enter")
        await settle(app, pilot)
        changed = app.screen
        assert isinstance(changed, ChangedDialog)
        added = " ".join(lines_of(changed, "-added"))
        assert first in added and second in added  # the version a retry would act on, all of it
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"]


async def test_a_pair_archive_refuses_while_the_successor_changed_unseen(demo: Path) -> None:
    line = "The agent changed its mind about bun."
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        older, newer = (demo / p for p in card.paths)
        await pilot.press("a")  # archive the older, superseded by the newer
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        newer.write_text(newer.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
        app.reload("disk")
        await settle(app, pilot)
        before = head_sha(demo)
        await pilot.press("enter")
        await settle(app, pilot)
        changed = app.screen
        assert isinstance(changed, ChangedDialog) and head_sha(demo) == before and older.exists()
        assert [x for x in lines_of(changed, "-added") if line in x]
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog and line in text_of(screen.query_one("#side-b-text", Static))
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Superseded-By"] == [f"memory/{card.paths[1]}"] and not older.exists()


async def test_the_main_screens_archive_dialog_follows_the_same_rule(make_store: Callable[..., Path]) -> None:
    store = make_store(
        {"feedback_tabs.md": memory("feedback_tabs")}, in_git=True, index="- [t](feedback_tabs.md) — t\n"
    )
    path = store / "feedback_tabs.md"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_tabs.md")
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        rewrite(path, "Rule for feedback_tabs.", "Rule for feedback_tabs, as the agent now puts it.")
        app.reload("disk")  # the watcher reads the store again while the dialog is open
        await settle(app, pilot)
        dialog.query_one(Input).value = "not needed"
        await pilot.press("enter")
        await settle(app, pilot)
        changed = app.screen
        assert isinstance(changed, ChangedDialog)
        # the diff is against the text the dialog was opened on, not the store the app read since
        assert lines_of(changed, "-removed") == ["-Rule for feedback_tabs."]
        assert lines_of(changed, "-added") == ["+Rule for feedback_tabs, as the agent now puts it."]
        dialog.send("Archiving", "tried before the change was shown")
        await settle(app, pilot)
        assert path.exists()  # refused again: nothing acts on a version the person was not shown
        while isinstance(app.screen, ChangedDialog):
            await pilot.press("escape")
            await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert not path.exists() and head(store)["Memtui-Action"] == ["archive"]


# ---------------------------------------------------------------------------------------------- 2


async def test_a_merge_retried_after_a_change_on_disk_never_drops_the_agents_edit(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await skip_to(screen, pilot, lambda c: c.kind == "duplicate" and "feedback_commit_english.md" in c.paths)
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        source = demo / "feedback_commit_english.md"
        old_line = next(x for x in source.read_text(encoding="utf-8").splitlines() if x.startswith("**Why:**"))
        new_line = "**Why:** the agent rewrote this reason while the dialog was open."
        rewrite(source, old_line, new_line)
        before = head_sha(demo)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog
        # the dialog says which source changed and what changed
        assert "feedback_commit_english.md" in dialog.refusal and "ctrl+r" in dialog.refusal
        assert any(new_line in x for x in lines_of(dialog, "-added"))
        assert any(old_line in x for x in lines_of(dialog, "-removed"))
        # the proposal was built from the old text: it is not merged as it is
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head_sha(demo) == before and app.screen is dialog
        await pilot.press("ctrl+r")  # rebuilt from the files as they are now
        await pilot.pause(0.1)
        assert new_line in dialog.query_one("#merged", TextArea).text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["merge"]
        merged = git(demo.parent, "show", "HEAD:memory/feedback_commit_imperative.md")
        assert new_line in merged and old_line not in merged


async def test_rebuilding_a_merge_keeps_the_persons_own_text_within_reach(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.main_screen.open_merge(["feedback_commit_english.md", "feedback_commit_imperative.md"])
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        area = dialog.query_one("#merged", TextArea)
        mine = area.text + "\nMy own closing line.\n"
        area.load_text(mine)
        rewrite(demo / "feedback_commit_english.md", "**Why:**", "**Why (agent):**")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog and area.text == mine  # a refusal keeps the person's text
        await pilot.press("ctrl+r")
        await pilot.pause(0.1)
        assert "**Why (agent):**" in area.text and "My own closing line." not in area.text
        assert "ctrl+z" in dialog.refusal  # said, not silent
        area.focus()
        await pilot.press("ctrl+z")
        await pilot.pause(0.1)
        assert area.text == mine


# ---------------------------------------------------------------------------------------------- 3


async def test_approvals_are_recorded_and_the_review_record_counts_every_commit_of_the_session(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        untyped = screen.current()
        assert untyped is not None and untyped.paths == ("session_notes.md",)
        before = head_sha(demo)
        # no front matter to stamp: the card says so up front and offers no v; v writes nothing, the card stays
        assert "no front matter" in text_of(screen.query_one("#card-explain", Static))
        assert not screen.check_action("approve", ()) and not screen.check_action("accept", ())
        await pilot.press("v")
        await settle(app, pilot)
        assert head_sha(demo) == before and screen.current() == untyped and not screen.looked
        approved = ["project_load_test.md", "project_oncall.md"]
        for path in approved:
            await skip_to(screen, pilot, lambda c, p=path: c.kind == "new" and c.paths == (p,))
            await pilot.press("v")
            await settle(app, pilot)
            assert head(demo)["Memtui-Action"] == ["verify"]
        await pilot.press("escape")
        await settle(app, pilot)
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        agent = [c.paths[0] for c in screen.cards if c.kind == "new"]
        assert "session_notes.md" in agent and not set(approved) & set(agent)
        # approvals live in git, not in the screen: a new start of memtui does not bring them back either
        ws = analyse(open_store(demo, TODAY))
        assert ws.report is not None
        assert not set(approved) & {c.paths[0] for c in build_queue(ws.report, ws.own_repo()) if c.kind == "new"}
        await pilot.press("u")  # the review continues: its last approval can still be undone here
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["undo"]
        await pilot.press("escape")
        await settle(app, pilot)
        screen = await open_review(app, pilot)
        while screen.current() is not None:
            await pilot.press("s")
        await pilot.press("enter")
        await settle(app, pilot)
        record = git(demo.parent, "log", "-1", "--format=%B")
        assert head(demo)["Memtui-Action"] == ["review"]
        assert "Review: 1 verified (1 commit)" in record, record


# ---------------------------------------------------------------------------------------------- 4


async def test_an_agent_card_shows_only_what_the_agent_wrote(demo: Path) -> None:
    ops.merge(demo, ["feedback_small_prs.md", "feedback_small_prs_zh.md"], into="feedback_small_prs_zh.md", today=TODAY)
    assert "merged_from" in (demo / "feedback_small_prs_zh.md").read_text(encoding="utf-8")
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("2")
        await skip_to(screen, pilot, lambda c: c.kind == "new" and c.paths == ("feedback_small_prs_zh.md",))
        shown = text_of(screen.query_one("#single-text", Static))
        assert "400 行以内" in shown  # the agent's own text
        assert "merged_from" not in shown and "Keep pull requests" not in shown  # memtui's merge is not the agent's


# ---------------------------------------------------------------------------------------------- 5


async def test_archiving_a_memory_that_says_it_is_superseded_names_its_successor(
    make_store: Callable[..., Path],
) -> None:
    store = make_store(
        {
            "player_cube.md": memory(
                "player_cube",
                "project",
                updated="2026-11-01",
                description="HISTORICAL — the cube placeholder was replaced by the Tommy model",
                body="The player is temporarily a cube; swap for the real model later. See [[player_model]].",
            ),
            "player_model.md": memory(
                "player_model",
                "project",
                updated="2026-11-20",
                description="The player is the Tommy model, no longer a cube",
                body="The player is now the Tommy model; the cube placeholder is gone.",
            ),
        },
        in_git=True,
        index="- [player_cube](player_cube.md) — cube\n- [player_model](player_model.md) — model\n",
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await skip_to(screen, pilot, lambda c: c.kind == "superseded-loaded")
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        assert dialog.query_one(Input).value == "superseded by player_model"
        await pilot.press("enter")
        await settle(app, pilot)
        trailers = head(store)
        assert trailers["Memtui-Action"] == ["archive"] and trailers["Memtui-Memory"] == ["memory/player_cube.md"]
        assert trailers["Memtui-Superseded-By"] == ["memory/player_model.md"]


# ---------------------------------------------------------------------------------------------- 6


async def test_the_end_is_not_finished_while_groups_were_never_shown(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("9")  # the last group, one card
        await settle(app, pilot)
        assert screen.current() is not None and screen.current().group == "other"  # type: ignore[union-attr]
        await pilot.press("s")
        await settle(app, pilot)
        assert screen.current() is None
        summary = text_of(screen.query_one("#summary-text", Static))
        assert "Review finished" not in summary and "not yet shown" in summary and "g: " in summary
        before = head_sha(demo)
        assert not screen.check_action("finish", ())
        await pilot.press("enter")
        await settle(app, pilot)
        assert head_sha(demo) == before
        await pilot.press("g")  # the offer: the next group with cards never shown
        await settle(app, pilot)
        assert screen.current() is not None and screen.current().group == "pairs"  # type: ignore[union-attr]


async def test_cards_never_shown_that_are_not_agent_writes_may_be_left_for_next_time(
    make_store: Callable[..., Path],
) -> None:
    store = make_store(
        {
            "project_trip.md": memory("project_trip", "project", updated="2026-11-20", expires_at="2026-11-25"),
            "project_launch.md": memory("project_launch", "project", updated="2026-01-05"),
            "feedback_short.md": memory("feedback_short", body="Keep replies short."),
        },
        in_git=True,
        index="- [t](project_trip.md) — t\n- [a](project_launch.md) — a\n- [b](feedback_short.md) — b\n",
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert [c.group for c in screen.cards] == ["expired", "stale", "schema"]
        await pilot.press("8", "s")  # the schema card, then past the end: the stale card was never shown
        await settle(app, pilot)
        summary = text_of(screen.query_one("#summary-text", Static))
        assert "Not finished: 1 card not yet shown" in summary and "4 stale 1" in summary
        assert "enter: mark the review finished anyway" in summary and screen.check_action("finish", ())
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["review"]
