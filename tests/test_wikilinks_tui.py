"""Wikilinks in the workstation (real git, real files, the real app through Pilot): the archive dialog names the
memories that still link to what it retires, and the review's wikilink card points the links at the successor
with `l`, in one commit that `u` takes back."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import git
from test_review_flow import SIZE, head, make_app, open_review
from test_review_trial_b import commits, live
from test_tui import select
from test_wikilinks import _store, successor_linking_store
from textual.widgets import Input, Static

from memtui import ops
from memtui.tui.dialogs import ArchiveDialog
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen

DAY = dt.date(2026, 11, 30)


async def _to_wikilink_card(screen: ReviewScreen, pilot) -> None:  # type: ignore[no-untyped-def]
    while (card := screen.current()) is not None and card.kind != "broken-wikilink":
        await pilot.press("s")
    assert screen.current() is not None, "no wikilink card in the review"


async def test_the_archive_dialog_names_the_memories_that_link_to_it_and_archives_all_the_same(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "deploy_tooling.md")
        await pilot.press("a")
        await pilot.pause(0.2)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        said = str(dialog.query_one("#archive-linked", Static).render())
        assert "1 memory links to deploy_tooling.md: release_notes.md (and MEMORY.md)" in said
        dialog.query_one(Input).value = "bun does it"
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["archive"] and not (store / "deploy_tooling.md").exists()


async def test_the_archive_dialog_of_a_memory_nobody_links_to_says_nothing_of_links(tmp_path: Path) -> None:
    store = _store(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "release_notes.md")
        await pilot.press("a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ArchiveDialog)
        assert not app.screen.query("#archive-linked")


async def test_l_points_the_links_to_an_archived_memory_at_its_successor_in_one_commit(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ops.archive(store, "deploy_tooling.md", reason="bun does it", superseded_by="feedback_deploy_bun.md", today=DAY)
    before_notes = (store / "release_notes.md").read_bytes()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await _to_wikilink_card(screen, pilot)
        card = screen.current()
        assert card is not None and card.is_bulk  # the two texts that link to it: one card
        assert set(card.paths) == {"release_notes.md", "MEMORY.md"}
        assert card.group == "index"
        assert "relink" in live(screen) and "approve" not in live(screen)  # v would mend no link
        assert "l links the marked (else all of them) to [[feedback_deploy_bun]]" in card.explanation
        before = commits(store)
        await pilot.press("l")
        await settle(app, pilot)
        assert commits(store) == before + 1
        trailers = head(store)
        assert trailers["Memtui-Action"] == ["relink"]
        assert sorted(trailers["Memtui-Memory"]) == ["memory/MEMORY.md", "memory/release_notes.md"]
        notes = (store / "release_notes.md").read_bytes()
        assert notes == before_notes.replace(b"[[deploy-tooling]]", b"[[feedback_deploy_bun]]").replace(
            b"[[deploy_tooling]]", b"[[feedback_deploy_bun]]"
        )
        assert not any(c.kind == "broken-wikilink" for c in screen.left()), "the card settled"
        await pilot.press("u")  # the review's undo puts the links back and the card with them
        await settle(app, pilot)
        assert (store / "release_notes.md").read_bytes() == before_notes
        assert any(c.kind == "broken-wikilink" for c in screen.left())


async def test_a_link_to_no_memory_offers_edit_and_no_relink(tmp_path: Path) -> None:
    from conftest import memory

    ghost = memory("user_tea", "user", body="Tea, see [[tea-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await _to_wikilink_card(screen, pilot)
        card = screen.current()
        assert card is not None and not card.is_bulk and card.paths == ("user_tea.md",)
        assert "edit" in live(screen) and "relink" not in live(screen)
        assert card.explanation.endswith("— e edits it (point the link elsewhere, or drop it)")
        head_before = git(store.parent, "rev-parse", "HEAD")
        await pilot.press("l")  # not offered: nothing happens
        await settle(app, pilot)
        assert git(store.parent, "rev-parse", "HEAD") == head_before


async def test_l_on_a_card_where_the_successor_links_to_itself_leaves_the_card_for_it(tmp_path: Path) -> None:
    """A trial's `l` relinked the one memory offered a link and the card left the review, though the successor's own
    link to what it replaced (offered nothing: it is never offered to itself) was still a finding in `check`."""
    store = successor_linking_store(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await _to_wikilink_card(screen, pilot)
        card = screen.current()
        assert card is not None and sorted(card.paths) == ["aa_successor.md", "zz_other.md"]
        await pilot.press("l")
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["relink"] and "[[aa_successor]]" in (store / "zz_other.md").read_text()
        left = [c for c in screen.left() if c.kind == "broken-wikilink"]
        assert [c.paths for c in left] == [("aa_successor.md",)], left
