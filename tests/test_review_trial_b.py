"""What a second new-user trial of the review found (real git, real files, the real app through Pilot).

Each test failed on the code before its fix: a card for a file that cannot be read offered `e` and `v` that did
nothing, `v` on a list card took the whole card out with nothing written, the counts did not add up, an agent write
memtui had committed was said to be not yet recorded, and a refusal stayed on a card after its dialog was closed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import git, memory
from test_review_flow import SIZE, TODAY, head, head_sha, make_app, open_review
from textual.widgets import Input, SelectionList

from memtui.review import finding_count
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ArchiveDialog, MergeDialog
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen

BROKEN = "feedback_broken_yaml.md"


def fix_broken_yaml(path: Path) -> None:
    """An editor session that fixes the demo's malformed file: its quoting, and the closing `---` it lacks."""
    fixed = path.read_text().replace('"Retry webhooks" three times: then alert', "Retry webhooks 3x")
    path.write_text(fixed + "---\nRetry webhooks three times, then alert.\n")


def live(screen: ReviewScreen) -> set[str]:
    """The actions the card's keys offer (footer and key line)."""
    return {str(b.action) for b in screen.live_bindings()}


def commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD").strip())


# ---------------------------------------------------------------------------------------------- 1


async def test_a_card_for_a_file_that_cannot_be_read_edits_it_in_the_editor_and_offers_no_approve(demo: Path) -> None:
    edited: list[Path] = []

    def editor(path: Path) -> None:
        edited.append(path)
        fix_broken_yaml(path)

    app = MemtuiApp(demo, today=TODAY, watch_interval=0, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        for kind in ("new", "malformed"):  # the agent's write of the file, and its malformed card
            screen.index = next(i for i, c in enumerate(screen.cards) if c.kind == kind and c.paths == (BROKEN,))
            screen.show_card()
            await pilot.pause(0.1)
            assert "approve" not in live(screen) and "edit_in_editor" in live(screen), kind
            await pilot.press("v")
            await pilot.pause(0.2)
            assert not screen.looked and not screen.decisions and screen.current().paths == (BROKEN,)  # type: ignore[union-attr]
        before = commits(demo)
        await pilot.press("e")  # on the malformed card: the file opens in the editor
        await settle(app, pilot)
        assert edited, "e opened no editor"
        assert commits(demo) > before and head(demo)["Memtui-Action"] == ["edit"]
        assert app.ws is not None
        fixed = app.ws.store.get(BROKEN)
        assert fixed is not None and not fixed.is_malformed and fixed.type == "feedback"
        assert not any(c.kind == "malformed" for c in screen.left()), "the fixed file's card left the queue"
        assert [d.action for d in screen.decisions] == ["edited"]


# ---------------------------------------------------------------------------------------------- 2

UNLISTED = {
    "feedback_go_errors.md": memory(
        "feedback_go_errors",
        body="Wrap Go errors with %w.\n\n**Why:** callers match sentinels.\n\n**How to apply:** fmt.Errorf.",
    ),
    "feedback_sql_style.md": memory(
        "feedback_sql_style",
        body="Write SQL keywords in upper case.\n\n**Why:** grep finds them.\n\n**How to apply:** in migrations.",
    ),
    "feedback_pr_titles.md": memory(
        "feedback_pr_titles",
        body="PR titles name the ticket first.\n\n**Why:** Linear links them.\n\n**How to apply:** BILL-123: …",
    ),
}


def header(screen: ReviewScreen) -> str:
    return str(screen.query_one("#card-header").render())


async def test_a_decision_on_one_memory_of_a_list_card_leaves_the_card_for_the_others(
    make_store: Callable[..., Path],
) -> None:
    listed = {"user_role.md": memory("user_role", "user", body="Mei leads the billing team.")}
    store = make_store({**UNLISTED, **listed}, in_git=True, index="- [Role](user_role.md) — billing lead\n")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "unindexed" and len(card.paths) == 3, screen.cards
        said = header(screen)
        listing = screen.query_one("#bulk-list", SelectionList)
        listing.highlighted = card.paths.index("feedback_sql_style.md")
        await pilot.pause(0.1)
        before = commits(store)
        # a stamp would not put the memory in the index (the card would stay): `v` is not offered here, `i` is
        assert not screen.check_action("approve", ()) and not screen.check_action("accept", ())
        assert screen.check_action("index_add", ())
        await pilot.press("v")
        await settle(app, pilot)
        assert commits(store) == before, "nothing written"
        now = screen.current()
        assert now is not None and now.kind == "unindexed" and len(now.paths) == 3, "the card stays, with all 3"
        assert now in screen.left() and header(screen) == said, "no count moved"
        # archiving one takes that memory off the card; the others are still listed
        listing.highlighted = list(now.paths).index("feedback_go_errors.md")
        await pilot.pause(0.1)
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["archive"] and not (store / "feedback_go_errors.md").exists()
        now = screen.current()
        assert now is not None and now.kind == "unindexed"
        assert sorted(now.paths) == ["feedback_pr_titles.md", "feedback_sql_style.md"]
        assert len(screen.left()) == 1
        # the end says what was committed, and the `v` that was not offered counted as nothing
        await pilot.press("s")
        await settle(app, pilot)
        summary = str(screen.query_one("#summary-text").render())
        assert "looked at" not in summary and "archived: 1" in summary and "verified" not in summary, summary


# ---------------------------------------------------------------------------------------------- 3


def story(screen: ReviewScreen) -> tuple[int, int, int]:
    """(cards left, findings, new writes) as the review's header says them, checked against its group line and the
    cards it holds."""
    said = re.search(r" (\d+) cards? left \((\d+) findings?, (\d+) new writes?\)", header(screen))
    assert said is not None, header(screen)
    left, findings, new = (int(n) for n in said.groups())
    bar = [int(n) for n in re.findall(r"\d \w+ (\d+)", str(screen.query_one("#card-groups").render()))]
    assert left == len(screen.left()) == sum(bar)
    assert findings == finding_count(screen.left()) and new == sum(c.kind == "new" for c in screen.left())
    return left, findings, new


async def test_the_counts_are_one_story_on_both_screens_after_leaving_and_in_the_reviews_record(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert any(len(c.members) > 1 for c in screen.cards), "a list card: one card, a finding for each memory"
        left, findings, new = story(screen)
        # `v` on a relative date stamps last_verified: the finding stays, a line further down, and is decided
        screen.index = next(i for i, c in enumerate(screen.cards) if c.paths == ("project_recall_deadline.md",))
        screen.show_card()
        await pilot.pause(0.1)
        await pilot.press("v")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["verify"]
        assert story(screen) == (left - 1, findings - 1, new)
        await pilot.press("escape")
        await settle(app, pilot)
        main = str(app.main_screen.query_one("#header").render())
        assert f"{findings - 1} findings to review" in main, main
        screen = await open_review(app, pilot)  # the same review again: the decided card stays decided
        assert story(screen) == (left - 1, findings - 1, new)
        while screen.current() is not None:  # every card shown, so the review may be marked finished
            await pilot.press("s")
        total = len(screen.left()) + 1
        assert f"1 committed · {total} cards" in header(screen), header(screen)
        summary = str(screen.query_one("#summary-text").render())
        assert f"{total} cards in this review: 1 decided" in summary, summary
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["review"]
        assert f"; {total} cards." in git(demo.parent, "log", "-1", "--format=%B"), "the record says the same number"


# ---------------------------------------------------------------------------------------------- 4


async def test_an_agent_write_memtui_recorded_during_the_review_is_no_longer_said_to_be_unrecorded(
    demo: Path,
) -> None:
    written = "feedback_small_prs_zh.md"
    assert written in git(demo.parent, "status", "--porcelain"), "the demo's agent left this write uncommitted"
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)

        def explained() -> str:
            """The explanation on the agent-write card of `written`, drawn now."""
            screen.index = next(i for i, c in enumerate(screen.cards) if c.kind == "new" and c.paths == (written,))
            screen.show_card()
            return str(screen.query_one("#card-explain").render())

        assert "not yet recorded in git (session unknown)" in explained()
        # any decision records the agent's writes first, as their own commit
        screen.index = next(i for i, c in enumerate(screen.cards) if c.kind == "stale")
        screen.show_card()
        await pilot.pause(0.1)
        await pilot.press("v")
        await settle(app, pilot)
        recorded = git(demo.parent, "log", "-2", "--format=%s").splitlines()
        assert recorded[0].startswith("memtui: verify") and recorded[1].startswith("memtui: record agent writes")
        text = explained()
        assert "not yet recorded" not in text and "recorded without a session (not by the hook)" in text, text


# ---------------------------------------------------------------------------------------------- 6


async def test_a_refusal_is_not_left_on_the_card_once_its_dialog_is_cancelled(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        refusal = screen.query_one("#card-refusal")
        for opened, keys in ((MergeDialog, ("ctrl+s",)), (ArchiveDialog, ("ctrl+u", "enter"))):
            before = head_sha(demo)
            await pilot.press("m" if opened is MergeDialog else "a")
            await settle(app, pilot)
            dialog = app.screen
            assert isinstance(dialog, opened)
            await pilot.press(*keys)  # the suggested merge of a plain contradiction; an archive without a reason
            await settle(app, pilot)
            assert app.screen is dialog and dialog.refusal and head_sha(demo) == before, "refused, in the dialog"
            await pilot.press("escape")
            await settle(app, pilot)
            assert app.screen is screen and screen.current() == card
            assert not refusal.display and "Refused" not in str(refusal.render()), str(refusal.render())


# ---------------------------------------------------------------------------------------------- 7


async def test_a_reason_typed_over_the_suggested_one_replaces_it(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        box = dialog.query_one("#reason", Input)
        assert box.value.startswith("superseded by"), "memtui suggests a reason"
        await pilot.press(*"npm is gone", "enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Reason"] == ["npm is gone"], "what was typed, not the suggestion with it"


async def test_a_reason_typed_in_one_burst_with_the_key_that_opens_the_dialog_replaces_the_suggestion(
    demo: Path,
) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await open_review(app, pilot)
        await pilot.press("a", *"npm is gone")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Reason"] == ["npm is gone"]


async def test_E_on_a_pair_edits_the_older_memory(demo: Path) -> None:
    """A new user's pair of daily logs: the outdated default sat in one line of the older log, and `e` edits only
    the newer; `E` edits the older."""
    from textual.widgets import TextArea

    from memtui.tui.dialogs import EditDialog

    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        older = card.paths[0]
        assert "edit_older" in live(screen)
        await pilot.press("E")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, EditDialog)
        area = dialog.query_one(TextArea)
        assert area.text == (demo / older).read_text(encoding="utf-8")
        area.text = area.text.rstrip("\n") + "\nUpdated: superseded by the bun note.\n"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["edit"] and head(demo)["Memtui-Memory"] == [f"memory/{older}"]
        assert "superseded by the bun note" in (demo / older).read_text(encoding="utf-8")


async def test_an_edit_in_the_review_of_a_memory_the_agent_wrote_meanwhile_keeps_the_typed_text(demo: Path) -> None:
    """A new user's `e` edit in the review was lost when the agent appended to the file and the review had seen
    the change before ctrl+s: the card's own refusal showed what changed and dropped the typed text."""
    from textual.widgets import TextArea

    from memtui.tui.dialogs import EditDialog, KeptEditDialog

    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("4")  # stale
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "stale"
        path = demo / card.paths[0]
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("---\n\n", "---\n\nLOSTEDIT: my line.\n\n", 1)
        path.write_text(path.read_text(encoding="utf-8") + "\nThe agent's new line.\n", encoding="utf-8")
        app.reload("disk")  # the review sees the change before the person saves
        await settle(app, pilot)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        kept = app.screen
        assert isinstance(kept, KeptEditDialog), type(kept)
        typed = kept.query_one("#kept-typed", TextArea).text
        assert "LOSTEDIT" in typed and "The agent's new line." in typed
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        text = path.read_text(encoding="utf-8")
        assert "LOSTEDIT" in text and "The agent's new line." in text
        assert head(demo)["Memtui-Action"] == ["edit"]


async def test_a_memory_the_agent_deleted_is_a_card_that_R_brings_back(demo: Path) -> None:
    """A new user's agent deleted a memory while the review was open: its pair card vanished, the broken index
    line was all that said so, and nothing could bring the text back."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        gone = demo / "user_editor.md"
        text = gone.read_text(encoding="utf-8")
        gone.unlink()  # the agent deletes it
        app.reload("disk")
        await settle(app, pilot)
        deleted = [c for c in screen.left() if c.kind == "deleted"]
        assert [c.paths for c in deleted] == [("user_editor.md",)] and deleted[0].group == "agent"
        assert "-User edits in Neovim" in deleted[0].diff.replace("- ", "-")
        screen.index = screen.cards.index(deleted[0])
        screen.show_card()
        assert "bring_back" in live(screen) and "archive_older" not in live(screen) and "approve" not in live(screen)
        await pilot.press("R")
        await settle(app, pilot)
        assert gone.read_text(encoding="utf-8") == text
        assert head(demo)["Memtui-Action"] == ["restore"]
        assert not [c for c in screen.left() if c.kind == "deleted"]


async def test_an_expired_card_does_not_offer_v_which_would_be_refused(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("3")  # expired
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "expired"
        assert "approve" not in live(screen) and "archive_older" in live(screen)
