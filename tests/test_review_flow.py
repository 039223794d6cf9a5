"""Issue 8, TUI side: every decision exactly as shown (real git, real files, the real app through Pilot).

Each test here failed on the code before this work: decisions recorded before they happened, background
failures nobody saw, cards about archived memories, merges that wrote the wrong memory, `f` writing without
asking, the palette acting on a hidden screen, counts that disagreed.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, said, write_files
from textual.command import CommandPalette
from textual.widgets import DataTable, Input, TextArea

from memtui import ops
from memtui.audit.repo import parse_trailers
from memtui.core.store import load_store
from memtui.review import Card, finding_count
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import (
    ArchiveDialog,
    ChangedDialog,
    ConfirmDialog,
    EditDialog,
    FixDateDialog,
    HelpScreen,
    KeptEditDialog,
    MergeDialog,
)
from memtui.tui.history import COLUMNS, HistoryScreen
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen
from memtui.tui.widgets import MemoryPane

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def head_sha(store: Path) -> str:
    return git(store.parent, "rev-parse", "HEAD").strip()


async def open_review(app: MemtuiApp, pilot) -> ReviewScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def messages(app: MemtuiApp) -> list[str]:
    return [f"{n.title} {n.message}" for n in said(app)]


# ---------------------------------------------------------------------------------------------- item 2


async def test_a_failing_analysis_reaches_the_screen_with_what_to_do(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(ws):  # type: ignore[no-untyped-def]
        raise RuntimeError("git ls-files -- ../memory.archive is outside repository")

    monkeypatch.setattr("memtui.tui.app.analyse", broken)
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        header = str(app.query_one("#header").render())
        assert "analysing" not in header and "analysis failed" in header and "Reload" in header
        assert any("outside repository" in m and "memtui check" in m for m in messages(app))
        await pilot.press("r")  # a key never silently does nothing
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ReviewScreen)
        assert any("analysis failed" in m and "reload" in m.lower() for m in messages(app)[-1:])


async def test_an_unexpected_error_in_an_operation_is_shown(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyError("last_verified")

    monkeypatch.setattr(ops, "verify", broken)
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_linear.md")
        await pilot.press("v")
        await settle(app, pilot)
        assert any("Verify failed" in m and "KeyError" in m for m in messages(app))
        assert app.last_outcome is not None and app.last_outcome.status == "failed"


# ---------------------------------------------------------------------------------------------- item 3


async def test_a_refused_decision_stays_on_its_card_and_is_not_counted(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "user_role.md")
        await pilot.press("v")  # an older decision, made before the review
        await settle(app, pilot)
        verified = head_sha(demo)
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        older = demo / card.paths[0]
        older.write_text(older.read_text() + "\nThe agent added this line a moment ago.\n")  # changed under the person
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        dialog.query_one(Input).value = "the person's own words"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        await pilot.press("escape")
        await settle(app, pilot)
        # the archive dialog is still there under it, with the reason typed and why it was not archived
        assert app.screen is dialog and dialog.query_one(Input).value == "the person's own words"
        assert "changed on disk" in dialog.refusal
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert screen.current() is not None and screen.current().paths == card.paths  # type: ignore[union-attr]
        assert screen.decisions == [] and "changed" in screen.refusal
        assert "Refused" in str(screen.query_one("#card-refusal").render())
        await pilot.press("u")  # nothing of this review to undo: the earlier verify stays
        await settle(app, pilot)
        assert "undo" not in git(demo.parent, "log", f"{verified}..HEAD", "--format=%s")
        assert "last_verified" in (demo / "user_role.md").read_text()
        assert any("Nothing of this review to undo" in m for m in messages(app))
        while screen.current() is not None:
            await pilot.press("s")
        await pilot.press("enter")
        await settle(app, pilot)
        body = git(demo.parent, "log", "-1", "--format=%B")
        assert head(demo)["Memtui-Action"] == ["review"]
        assert "nothing committed (0 commits)" in body and "archived" not in body


async def test_undo_in_the_review_never_reaches_past_this_review(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("b")  # keep both: a commit of this review
        await settle(app, pilot)
        assert len(screen.decisions) == 1 and screen.decisions[0].commit == head_sha(demo)
        ops.verify(demo, "user_role.md", today=TODAY)  # someone else decides meanwhile (the CLI)
        outside = head_sha(demo)
        await pilot.press("u")
        await settle(app, pilot)
        assert head_sha(demo) == outside and "not from this review" in screen.refusal
        assert len(screen.decisions) == 1


async def test_review_undo_still_brings_back_the_card(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        first = screen.current()
        await pilot.press("b")
        await settle(app, pilot)
        assert screen.current() != first and [d.action for d in screen.decisions] == ["kept both"]
        await pilot.press("u")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["undo"] and screen.current() == first and screen.decisions == []


# ---------------------------------------------------------------------------------------------- item 4


async def test_cards_follow_the_store_after_an_archive(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_review(app, pilot)
        gone = "project_stripe_migration.md"
        assert any(c.kind == "stale" and c.paths == (gone,) for c in screen.cards)
        while screen.current() is not None and screen.current().paths[0] != gone:  # type: ignore[union-attr]
            await pilot.press("s")
        await pilot.press("a", "enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"]
        assert not any(gone in c.paths for c in screen.cards[screen.index :])
        while (card := screen.current()) is not None:
            assert gone not in card.paths, card
            await pilot.press("s")


# ---------------------------------------------------------------------------------------------- item 5


@pytest.fixture
def pair_store(make_store: Callable[..., Path]) -> Path:
    a = memory(
        "alpha_rule",
        description="Alpha says use tabs",
        body="Use tabs.\n\n**Why:** alpha reason.\n\n**How to apply:** alpha.",
    )
    b = memory(
        "beta_rule",
        description="Beta says use spaces",
        body="Use spaces.\n\n**Why:** beta reason.\n\n**How to apply:** beta.",
    )
    index = "- [alpha_rule](a.md) — Alpha says use tabs\n- [beta_rule](b.md) — Beta says use spaces\n"
    return make_store({"a.md": a, "b.md": b}, in_git=True, index=index)


async def test_merge_dialog_keeps_the_targets_name_blank_lines_reason_and_final_newline(pair_store: Path) -> None:
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.main_screen.open_merge(["a.md", "b.md"])
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        into = dialog.query_one("#into", Input)
        into.value = "b.md"  # the person picks b as the target
        await pilot.pause(0.2)
        text = dialog.query_one("#merged", TextArea).text
        assert "name: beta_rule" in text and "description: Beta says use spaces" in text and "alpha_rule" not in text
        assert text.index("Use spaces.") < text.index("Use tabs.")
        assert "**How to apply:** beta.\n\nUse tabs.\n\n**Why:** alpha reason." in text
        area = dialog.query_one("#merged", TextArea)
        area.load_text(area.text.rstrip("\n"))  # a text box easily loses the final newline
        reason = dialog.query_one("#merge-reason", Input)
        reason.value = ""
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)
        assert app.screen is dialog  # a reason is required
        reason.value = "same rule twice"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        written = (pair_store / "b.md").read_text()
        assert written.endswith("\n") and "name: beta_rule" in written and not (pair_store / "a.md").exists()
        assert head(pair_store)["Memtui-Reason"] == ["same rule twice"]


async def test_edit_in_the_app_keeps_the_final_newline(pair_store: Path) -> None:
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "a.md")
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.load_text(area.text.replace("Use tabs.", "Use tabs, width 4.").rstrip("\n"))
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        text = (pair_store / "a.md").read_text()
        assert "width 4" in text and text.endswith("\n")


# ---------------------------------------------------------------------------------------------- a refusal keeps the dialog


async def test_a_plain_contradiction_merged_as_suggested_is_refused_in_the_dialog_an_edited_one_goes_ahead(
    demo: Path,
) -> None:
    """The old and the new grafana URL both ended up in one memory, without a word: the CLI refused that merge."""
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_grafana.md")
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        # (the agent's own writes may be recorded first, as their own commit; the merge is not made)
        assert app.screen is dialog and head(demo).get("Memtui-Action") != ["merge"]
        assert (demo / "reference_grafana.md").exists()
        assert "reference_grafana.md and reference_grafana_cloud.md may conflict" in dialog.refusal
        assert "one memory would say both" in dialog.refusal and "--body-file" not in dialog.refusal
        shown = str(dialog.query_one("#dialog-refusal").render())
        assert "one memory would say both" in shown and "ctrl+s" in shown
        assert not any("refused" in m for m in messages(app))  # said in the dialog, not under it
        area = dialog.query_one("#merged", TextArea)
        old_url = "https://grafana.internal.example/d/api-latency"
        assert old_url in area.text  # the text is still there to edit
        area.load_text("\n".join(line for line in area.text.splitlines() if old_url not in line) + "\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, MergeDialog) and head(demo)["Memtui-Action"] == ["merge"]
        merged = (demo / "reference_grafana_cloud.md").read_text()
        assert old_url not in merged and "atlas.grafana.example.net" in merged
        assert not (demo / "reference_grafana.md").exists()


async def test_tab_in_the_merge_dialog_moves_the_focus_and_types_nothing(pair_store: Path) -> None:
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.main_screen.open_merge(["a.md", "b.md"])
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        area = dialog.query_one("#merged", TextArea)
        text = area.text
        assert app.focused is area
        await pilot.press("tab")
        assert app.focused is not area and area.text == text and "\t" not in area.text
        await pilot.press("shift+tab")
        assert app.focused is area and area.text == text


async def test_a_refused_merge_keeps_the_dialog_and_the_text_and_says_what_is_wrong(pair_store: Path) -> None:
    """A space typed before `---` was reported as "must keep a type", and the dialog closed with the text lost."""
    app = make_app(pair_store)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert app.main_screen.open_merge(["a.md", "b.md"])
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        before, into = head_sha(pair_store), dialog.query_one("#into", Input).value
        area = dialog.query_one("#merged", TextArea)
        typed = "  " + area.text.replace("Use tabs.", "Use tabs, not spaces.")
        area.load_text(typed)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is dialog and area.text == typed and head_sha(pair_store) == before, app.last_outcome
        assert "line 1: the opening --- has 2 spaces before it" in dialog.refusal, dialog.refusal
        assert "type" not in dialog.refusal
        area.load_text(typed[2:])
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, MergeDialog), (app.last_outcome, dialog.refusal)
        assert head(pair_store)["Memtui-Action"] == ["merge"]
        assert "Use tabs, not spaces." in (pair_store / into).read_text()


async def test_a_merge_refused_because_a_file_changed_keeps_the_text_and_can_go_ahead(pair_store: Path) -> None:
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.main_screen.open_merge(["a.md", "b.md"])
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        area = dialog.query_one("#merged", TextArea)
        typed = area.text.replace("Use tabs.", "Use tabs; the person's merge.")
        area.load_text(typed)
        into = dialog.query_one("#into", Input).value
        other = "b.md" if into == "a.md" else "a.md"
        (pair_store / other).write_text((pair_store / other).read_text() + "\nThe agent added this.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)  # what is on disk now, over the dialog
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is dialog and area.text == typed and "changed on disk" in dialog.refusal
        await pilot.press("ctrl+s")  # seen: the person's text goes ahead over the file as it is now
        await settle(app, pilot)
        assert not isinstance(app.screen, MergeDialog) and head(pair_store)["Memtui-Action"] == ["merge"]
        assert "the person's merge" in (pair_store / into).read_text() and not (pair_store / other).exists()


async def test_an_archive_without_a_reason_is_refused_in_the_dialog(pair_store: Path) -> None:
    """An empty reason did nothing that a person could see; the rule is ops' (the CLI's too)."""
    app = make_app(pair_store)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "a.md")
        before = head_sha(pair_store)
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        dialog.query_one(Input).value = "   "
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is dialog and head_sha(pair_store) == before
        assert "a reason is required" in dialog.refusal
        assert "a reason is required" in str(dialog.query_one("#dialog-refusal").render())
        assert app.focused is dialog.query_one(Input)
        await pilot.press(*"tabs lost")
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, ArchiveDialog) and head(pair_store)["Memtui-Reason"] == ["tabs lost"]


async def test_a_declined_secret_is_refused_once_in_the_tuis_own_words(pair_store: Path) -> None:
    """A review card said "Refused: refused: …", and the TUI told people to "pass --allow-secret" (a CLI flag)."""
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert screen.current() is not None
        await pilot.press("e")
        await settle(app, pilot)
        area = app.screen.query_one(TextArea)
        area.load_text(area.text + "The staging key is AKIAABCDEFGHIJKLMNOP.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        question = str(app.screen.query_one(".dialog-message").render())
        assert "--allow-secret" not in question and "Commit it anyway? (y" in question
        await pilot.press("n")
        await settle(app, pilot)
        assert isinstance(app.screen, KeptEditDialog)  # the text is kept (tests/test_secret_edit.py)
        assert "--allow-secret" not in str(app.screen.query_one(".dialog-message").render())
        await pilot.press("escape")  # dropped: the card says why it was refused
        await settle(app, pilot)
        assert app.screen is screen
        shown = str(screen.query_one("#card-refusal").render())
        assert shown.startswith("Refused: the change would commit what looks like a secret")
        assert "refused: refused" not in shown.lower() and "--allow-secret" not in shown


# ---------------------------------------------------------------------------------------------- item 6


async def test_fix_date_shows_the_phrase_and_date_and_asks_first(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = head_sha(demo)
        await select_memory(app, pilot, "project_deploy_freeze.md")
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)
        assert "next Thursday" in str(dialog.query_one("#fix-phrase").render())
        assert dt.date.fromisoformat(dialog.query_one(Input).value)  # the proposed date, editable
        await pilot.press("escape")
        await settle(app, pilot)
        assert head_sha(demo) == before  # nothing written without a yes
        await pilot.press("f")
        await settle(app, pilot)
        assert isinstance(app.screen, FixDateDialog)
        app.screen.query_one(Input).value = "2026-11-26"  # the person's own date (never one after today)
        await pilot.pause()
        assert "starts 2026-11-26 and lasts" in str(app.screen.query_one("#fix-after").render())
        await pilot.press("enter")
        await settle(app, pilot)
        assert (
            head(demo)["Memtui-Action"] == ["fix-date"]
            and "2026-11-26" in (demo / "project_deploy_freeze.md").read_text()
        )


# ---------------------------------------------------------------------------------------------- item 7


async def test_the_palette_on_the_review_acts_on_the_card(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "user_timezone.md")  # the hidden main-screen selection
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None
        names = [name for name, _, _ in screen.palette_commands()]
        assert "review: Archive" in names and "review: Keep both" in names
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Archive")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        older = app.ws.store.get(card.paths[0])  # type: ignore[union-attr]
        assert older is not None and older.title in str(app.screen.query_one(".dialog-title").render())
        await pilot.press("escape")
        await settle(app, pilot)
        assert (demo / "user_timezone.md").exists()


# ---------------------------------------------------------------------------------------------- confusing today


async def test_review_help_and_footer_show_only_this_screens_keys(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert "b" in screen.active_bindings and "A" in screen.active_bindings  # a pair card
        while screen.current() is not None and screen.current().kind in ("contradiction", "duplicate"):  # type: ignore[union-attr]
            await pilot.press("s")
        await pilot.pause(0.1)
        keys = screen.active_bindings
        assert "b" not in keys and "A" not in keys and "m" not in keys
        # the first agent write has no front matter, so nothing for v to stamp; the next one has
        assert screen.current().paths == ("session_notes.md",) and "v" not in keys  # type: ignore[union-attr]
        await pilot.press("s")
        await pilot.pause(0.1)
        assert "v" in screen.active_bindings
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HelpScreen)
        assert "Keep both" in app.screen.text and "Skip" in app.screen.text and "focus User" not in app.screen.text


async def test_the_review_help_scrolls_to_its_last_key_at_80_by_24(demo: Path) -> None:
    """README: the help works at 80x24; a list taller than the terminal scrolls with end and the arrows."""
    from textual.containers import VerticalScroll

    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_review(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0  # taller than the terminal
        await pilot.press("end")
        await settle(app, pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("up")
        await settle(app, pilot)
        assert scroll.scroll_y == scroll.max_scroll_y - 1
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, HelpScreen)


async def test_an_undone_archive_puts_the_cards_it_closed_back_in_their_own_groups(demo: Path) -> None:
    """Archiving a pair's older memory closes its stale card too; undo puts that card back among the stale
    ones, not behind the pair, where the next skip would jump over every other stale card."""
    from itertools import groupby

    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        while screen.current() is not None and "project_stripe_migration.md" not in screen.current().paths:  # type: ignore[union-attr]
            await pilot.press("s")
        card = screen.current()
        assert card is not None and card.group == "pairs"
        stale_before = [c.paths for c in screen.cards if c.group == "stale"]
        assert ("project_stripe_migration.md",) in stale_before
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.press(*"replaced by the owner change", "enter")
        await settle(app, pilot)
        assert ("project_stripe_migration.md",) not in [c.paths for c in screen.cards if c.group == "stale"]
        await pilot.press("u")
        await settle(app, pilot)
        assert screen.current() is not None and screen.current().paths == card.paths  # type: ignore[union-attr]
        runs = [group for group, _ in groupby(c.group for c in screen.cards)]
        assert len(runs) == len(set(runs)), runs
        assert sorted(c.paths for c in screen.cards if c.group == "stale") == sorted(stale_before)


async def test_a_card_about_a_missing_file_offers_no_key_that_would_only_refuse(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        while screen.current() is not None and screen.current().kind != "broken-link":  # type: ignore[union-attr]
            await pilot.press("s")
        assert screen.current() is not None
        keys = screen.active_bindings
        assert not {k: keys[k].binding.action for k in {"a", "v", "e", "space"} & set(keys)} and "s" in keys
        while screen.current() is not None and screen.current().kind != "stale":  # type: ignore[union-attr]
            await pilot.press("p")
        assert {"a", "v", "e"} <= set(screen.active_bindings)


async def skip_to(screen: ReviewScreen, pilot, kind: str) -> Card:  # type: ignore[no-untyped-def]
    """Skip cards until the first one of this kind."""
    while screen.current() is not None and screen.current().kind != kind:  # type: ignore[union-attr]
        await pilot.press("s")
    card = screen.current()
    assert card is not None
    return card


async def test_a_duplicate_archived_in_the_review_is_merged_away_not_revoked(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = await skip_to(screen, pilot, "duplicate")
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        assert app.screen.query_one(Input).value.startswith("duplicate of ")
        await pilot.press("enter")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["archive"] and trailers["Memtui-Reason"][0].startswith("duplicate of ")
        assert trailers["Memtui-Superseded-By"] == [f"memory/{card.paths[1]}"]
        await pilot.press("escape", "H")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one(DataTable)
        assert table.get_row_at(0)[1].plain == "archive (duplicate)"
        await pilot.press("t")
        await pilot.pause(0.1)
        assert all(card.paths[0] not in table.get_row_at(i)[2].plain for i in range(table.row_count))


@pytest.mark.parametrize("kind", ["contradiction", "duplicate"])
async def test_merging_a_pair_in_the_review_gives_the_reason_its_kind_says(demo: Path, kind: str) -> None:
    """Two memories that conflict are merged to settle which holds: history must not call them duplicates."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = await skip_to(screen, pilot, kind)
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, MergeDialog)
        reason = app.screen.query_one("#merge-reason", Input).value
        if kind == "contradiction":
            assert reason == f"settles the conflict of {card.paths[0]} and {card.paths[1]}"
            dialog = app.screen
            await pilot.press("ctrl+s")  # the text as suggested says both sides: refused, in the dialog
            await settle(app, pilot)
            # (the agent's own writes may be recorded first, as their own commit; the merge is not made)
            assert app.screen is dialog and head(demo).get("Memtui-Action") != ["merge"]
            assert (demo / card.paths[0]).exists()
            assert "one memory would say both" in dialog.refusal
            area = dialog.query_one("#merged", TextArea)
            area.load_text((demo / card.paths[1]).read_text())  # the person keeps what holds: the newer memory
        else:
            assert reason == f"duplicates of {card.paths[1]}"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head(demo)["Memtui-Reason"] == [reason]


async def test_merging_a_memory_with_its_conflicting_partner_says_it_settles_the_conflict(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "feedback_use_bun.md")  # contradicts feedback_use_npm.md, duplicates nothing
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, MergeDialog)
        reason = app.screen.query_one("#merge-reason", Input).value
        assert reason == "settles the conflict of feedback_use_npm.md and feedback_use_bun.md"


async def test_merging_memories_never_flagged_together_asks_why_instead_of_calling_them_duplicates(
    demo: Path,
) -> None:
    """A trial merged two memories it had marked itself; history said "duplicates of …", a claim memtui never made."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for path in ("user_timezone.md", "feedback_use_bun.md"):
            await select_memory(app, pilot, path)
            await pilot.press("space")
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        reason = dialog.query_one("#merge-reason", Input)
        assert reason.value == "", "no reason put in the person's mouth"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is dialog and "Say why" in dialog.refusal
        reason.value = "one note about the team's tools"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["merge"]
        assert head(demo)["Memtui-Reason"] == ["one note about the team's tools"]


async def test_the_header_and_check_count_the_memories_alike(demo: Path) -> None:
    """The demo holds one memory in the archive and one marked archived but still loaded: both say 44 loaded and 2
    archived (the first number is the live memories, never the archived ones too)."""
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(demo), "--today", TODAY.isoformat()],
        capture_output=True,
        text=True,
    )
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        header = str(app.query_one("#header").render())
        said = load_store(demo).count_text()
    assert said == "44 memories + 2 archived"
    assert f"memtui · {said}" in header and f"\n{said} · " in out.stdout


async def test_one_finding_count_in_header_and_review(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        header = str(app.query_one("#header").render())
        screen = await open_review(app, pilot)
        n = finding_count(screen.cards)
        assert f"{n} findings to review" in header
        new = sum(c.kind == "new" for c in screen.cards)
        assert f"{len(screen.cards)} cards left ({n} findings, {new} new writes)" in str(
            screen.query_one("#card-header").render()
        )
        await pilot.press("s")  # skip: the card is still to decide, and the header says so
        await settle(app, pilot)
        assert f"{len(screen.cards)} cards left ({n} findings, {new} new writes)" in str(
            screen.query_one("#card-header").render()
        )


async def test_history_marks_undone_decisions_says_what_an_undo_reverted_and_cuts_with_an_ellipsis(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        long_reason = "superseded by the new observability stack that the platform team rolled out in November " * 2
        ops.archive(demo, "reference_grafana.md", reason=long_reason, today=TODAY)
        ops.verify(demo, "user_role.md", today=TODAY)
        ops.undo(demo, today=TODAY)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        table = app.screen.query_one(DataTable)
        undo_row, verify_row, archive_row = (table.get_row_at(i) for i in range(3))
        assert undo_row[1].plain == "undo" and undo_row[3].plain.startswith("reverted verify of user_role.md")
        assert verify_row[1].plain == "verify (undone)"
        assert archive_row[3].plain.endswith("…") and len(archive_row[3].plain) == dict(COLUMNS)["reason"]


async def test_the_lint_flag_is_only_for_lint(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        panes = {p.group: p for p in app.query(MemoryPane)}
        expired = panes["project"].get_row("project_merge_freeze.md")[1].plain
        dated = panes["project"].get_row("project_recall_deadline.md")[1].plain
        assert "L" not in expired
        assert "T" in dated and "L" not in dated
        schema = panes["reference"].get_row("reference_staging.md")[1].plain
        assert "L" in schema


async def test_a_secret_refusal_offers_to_proceed_after_an_explicit_yes(pair_store: Path) -> None:
    app = make_app(pair_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "a.md")
        before = head_sha(pair_store)
        await pilot.press("e")
        await settle(app, pilot)
        area = app.screen.query_one(TextArea)
        area.load_text(area.text + "The staging key is AKIAABCDEFGHIJKLMNOP.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog) and "secret" in str(
            app.screen.query_one(".dialog-message").render()
        )
        await pilot.press("enter")  # enter is not a yes here
        await settle(app, pilot)
        assert head_sha(pair_store) == before and "AKIA" not in (pair_store / "a.md").read_text()
        kept = app.screen  # the text is kept, to take the key out or to save again
        assert isinstance(kept, KeptEditDialog) and "AKIA" in kept.query_one("#kept-typed", TextArea).text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert head(pair_store)["Memtui-Action"] == ["edit"] and "AKIA" in (pair_store / "a.md").read_text()


# ---------------------------------------------------------------------------------------------- first run (issue 11 item 8)


async def test_an_empty_folder_outside_git_gets_a_first_run_screen(tmp_path: Path) -> None:
    from memtui.tui.dialogs import WelcomeScreen

    store = tmp_path / "proj" / "memory"
    store.mkdir(parents=True)
    (store / "MEMORY.md").write_text("")  # Claude Code made the index, nothing else yet
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, WelcomeScreen)
        assert "no memory files yet" in app.screen.text and "not in git" in app.screen.text
        await pilot.press("i")
        await settle(app, pilot)
        assert (tmp_path / "proj" / ".git").is_dir() and app.ws is not None and app.ws.repo is not None


async def test_a_folder_that_cannot_be_read_explains_what_to_start_with(tmp_path: Path) -> None:
    from memtui.tui.dialogs import WelcomeScreen

    app = make_app(tmp_path / "nowhere")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, WelcomeScreen)
        assert "no such folder" in app.screen.text and "~/.claude/projects/" in app.screen.text
        await pilot.press("q")
        await pilot.pause(0.2)
    assert app.return_code == 0 or app.return_code is None


async def test_leaving_the_review_while_a_decision_is_written_is_safe(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        shown: list[str] = []
        notify = app.notify

        def record(message: str, **kw) -> None:  # type: ignore[no-untyped-def]
            shown.append(f"{kw.get('title', '')} {message}")  # a slow machine may expire a 4 s toast first
            notify(message, **kw)

        app.notify = record  # type: ignore[method-assign]
        screen = await open_review(app, pilot)
        await pilot.press("b", "escape")  # leave at once, before the keep-both commit answers
        await settle(app, pilot)
        assert not isinstance(app.screen, ReviewScreen) and screen.pending == ""
        assert head(demo)["Memtui-Action"] == ["keep-both"]
        assert any("Keep both" in m for m in shown), shown


async def test_the_preview_history_marks_an_undone_decision(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "reference_linear.md")
        await pilot.press("v")
        await settle(app, pilot)
        await pilot.press("u")
        await settle(app, pilot)
        await select_memory(app, pilot, "user_role.md")
        await select_memory(app, pilot, "reference_linear.md")
        await settle(app, pilot)
        lines = str(app.query_one("#preview-history").render()).splitlines()
        assert any("verify" in line and "(undone)" in line for line in lines)
        assert any(line.split()[1:2] == ["undo"] and "(undone)" not in line for line in lines)


def test_every_screen_help_names_every_key_of_that_screen() -> None:
    from textual.binding import Binding

    from memtui.tui.dialogs import HELP
    from memtui.tui.history import HistoryScreen as History

    names = {"question_mark": "?", "slash": "/", "escape": "esc"}
    tokens = set(HELP.split()) | {"1", "2", "3", "4"} if "1-4" in HELP.split() else set(HELP.split())
    for b in MemtuiApp.BINDINGS:
        assert isinstance(b, Binding)
        for key in b.key.split(","):
            assert names.get(key, key) in tokens, f"main help does not name {key} ({b.description})"
    for screen in (ReviewScreen, History):
        # built from the bindings, so every key and description is in it
        from memtui.tui.dialogs import help_text

        text = help_text(screen.BINDINGS, screen.HELP_NOTES)
        for b in screen.BINDINGS:
            assert isinstance(b, Binding) and b.description in text


# ---------------------------------------------------------------------------------------------- issue 12 item 6


async def test_new_write_cards_name_the_session_and_the_header_shows_the_hook(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtui import claude_settings

    claude = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    (demo / "feedback_from_session.md").write_text(memory("feedback_from_session"), encoding="utf-8")
    session = "5e1f0a9c-7d2b-4c11-9a3e-0123456789ab"
    assert ops.record_agent_write(demo, session=session).commit
    assert head(demo)["Memtui-Session"] == [session]
    (demo / "feedback_after_the_hook.md").write_text(memory("feedback_after_the_hook"), encoding="utf-8")

    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await settle(app, pilot)
        assert "hook: not installed" in str(screen.query_one("#card-header").render())
        news = [c for c in screen.cards if c.kind == "new"]
        mine = next(c for c in news if c.paths == ("feedback_from_session.md",))
        earlier = next(c for c in news if c.paths == ("project_deploy_freeze.md",))  # recorded, no session
        pending = next(c for c in news if c.paths == ("feedback_after_the_hook.md",))  # not committed yet
        screen.index = screen.cards.index(mine)
        screen.show_card()
        await pilot.pause()
        assert "session 5e1f0a9c" in str(screen.query_one("#card-explain").render())
        for card, said in ((earlier, "recorded without a session"), (pending, "not yet recorded in git")):
            screen.index = screen.cards.index(card)  # never a made-up session
            screen.show_card()
            await pilot.pause()
            assert said in str(screen.query_one("#card-explain").render())

    claude_settings.install()
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await settle(app, pilot)
        assert "hook: installed" in str(screen.query_one("#card-header").render())


def test_a_persons_own_decision_is_not_news_from_the_agent(tmp_path: Path) -> None:
    """Since the last review, only the agent's writes become "new" cards — never a verify the person made."""
    from memtui import ops
    from memtui.analysis.check import check_store
    from memtui.audit.repo import try_open_repo
    from memtui.core.store import load_store
    from memtui.review import build_queue

    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n",
            "memory/a.md": memory("a"),
            "memory/b.md": memory("b"),
        },
    )
    init_repo(top)
    store = top / "memory"
    ops.finish_review(store, "weekly review")
    ops.verify(store, "a.md")
    (store / "b.md").write_text(memory("b", body="The agent learned something new."), encoding="utf-8")

    def new_cards() -> list[str]:
        layout_store = load_store(store)
        queue = build_queue(check_store(layout_store, dt.date.today()), try_open_repo(layout_store.layout))
        return sorted(c.paths[0] for c in queue if c.kind == "new")

    assert new_cards() == ["b.md"]  # uncommitted agent write
    ops.verify(store, "a.md")  # records the agent's write first, then the person's verify
    assert new_cards() == ["b.md"]


def test_agent_write_cards_diff_every_file_in_one_git_call_as_each_files_own_diff_did(
    tmp_path: Path, git_calls: list[str]
) -> None:
    """Before the first finished review every file the agent ever wrote is a new write: their diffs come from one
    `git diff` (it was one a file), each exactly what that file's own `git diff` says, names with a space or
    non-ASCII included; a file memtui decided on between the agent's writes keeps its own, narrower diff."""
    from memtui.analysis.check import check_store
    from memtui.audit.repo import try_open_repo
    from memtui.review import agent_diff, build_queue

    top = tmp_path / "p"
    names = ["feedback_a.md", "feedback with space.md", "feedback_规则.md", "feedback_mixed.md"]
    write_files(top, {"memory/MEMORY.md": "".join(f"- [{n}]({n}) — {n}\n" for n in names)})
    write_files(top / "memory", {n: memory(n.removesuffix(".md"), body=f"Rule of {n}.") for n in names})
    init_repo(top)
    store = top / "memory"
    for n in names:
        (store / n).write_text(memory(n.removesuffix(".md"), body=f"Rule of {n}, as the agent has it now."))
    ops.record_agent_write(store)
    ops.verify(store, "feedback_mixed.md")  # memtui's stamp between the agent's writes is not the agent's
    (store / "feedback_mixed.md").write_text(memory("feedback_mixed", body="The agent again."), encoding="utf-8")
    (store / "feedback_a.md").write_text(memory("feedback_a", body="Changed once more."), encoding="utf-8")
    (store / "feedback_new one.md").write_text(memory("feedback_new one", body="Brand new."), encoding="utf-8")
    layout_store = load_store(store)
    repo = try_open_repo(layout_store.layout)
    assert repo is not None
    base = repo.first_commit()
    assert base is not None
    report = check_store(layout_store, TODAY)
    git_calls.clear()
    cards = {c.paths[0]: c.diff for c in build_queue(report, repo) if c.kind == "new"}
    diffs = git_calls.count("diff")

    assert set(cards) == {*names, "feedback_new one.md"}
    assert diffs == 1  # all five files (the mixed one is read with `git show`)
    events = {e.commit: e for e in repo.history()}
    for name in cards:
        rel = f"memory/{name}"
        touching = repo.commits_touching(base, [rel])
        one_by_one = agent_diff(repo, base, rel, touching, events, uncommitted=rel in repo.changed_paths())
        assert cards[name] == one_by_one, name
    assert "+Brand new." in cards["feedback_new one.md"] and "Rule of feedback_规则.md, as" in cards["feedback_规则.md"]
    assert "+The agent again." in cards["feedback_mixed.md"] and "-last_verified" in cards["feedback_mixed.md"]


async def test_a_secret_card_shows_the_key_redacted_never_in_clear(demo: Path) -> None:
    """README: secrets are shown redacted; the card's text and the preview must not print the key."""
    from textual.widgets import Markdown

    from memtui.analysis.secrets import scan

    holder = next(p for p in sorted(demo.glob("*.md")) if scan(p.read_text(encoding="utf-8")))
    key = next(w for w in holder.read_text(encoding="utf-8").split() if w.startswith(("sk-", "AKIA", "ghp_")))
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, holder.name)
        await settle(app, pilot)
        preview = app.screen.query_one("#preview-body", Markdown).source
        assert key not in preview and key[:4] + "…" in preview
        screen = await open_review(app, pilot)
        from memtui.tui.review_card import groups

        number = [g for g, _ in groups(screen.left())].index("secrets") + 1
        await pilot.press(str(number))
        await settle(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "secret"
        shown = str(screen.query_one("#single-text").render())
        assert key not in shown and key[:4] + "…" in shown


async def test_the_header_never_counts_a_negative_number_of_new_writes(tmp_path: Path) -> None:
    """A bulk card counts each of its memories as a finding; it is no agent write taken away."""
    top = tmp_path / "proj"
    names = [f"feedback_rule_{i}" for i in range(6)]
    files = {f"memory/{n}.md": memory(n, body=f"Always do thing {i} the same way.") for i, n in enumerate(names)}
    files["memory/MEMORY.md"] = "".join(f"- [{n}]({n}.md) — {n}\n" for n in names)
    write_files(top, files)
    init_repo(top)
    app = make_app(top / "memory")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert any(c.is_bulk for c in app.cards)
        header = str(app.screen.query_one("#header").render())
        assert "findings to review" in header and "new write" not in header


async def test_a_card_for_an_unreadable_file_or_a_secret_offers_no_approve(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_review(app, pilot)
        for kind in ("malformed", "secret"):
            at = next(i for i, c in enumerate(screen.cards) if c.kind == kind and not c.is_bulk)
            screen.index = at
            screen.show_card()
            await pilot.pause(0.1)
            assert not screen.check_action("approve", ())
            await pilot.press("v")
            await pilot.pause(0.2)
            assert screen.index == at and not screen.looked and not screen.decisions  # still there, nothing recorded


async def test_the_end_of_a_review_warns_before_skipped_agent_writes_are_counted_as_seen(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_review(app, pilot)
        new = sum(c.kind == "new" for c in screen.cards)
        assert new >= 1
        while screen.current() is not None:  # every card shown and skipped
            await pilot.press("s")
        await pilot.pause(0.1)
        summary = str(screen.query_one("#summary-text").render())
        assert f"{new} of the agent's writes were skipped" in summary and "will not come back as new" in summary
        # not finished until enter marks it so; and what the end screen counted is what it says after (a new user
        # read "34 cards" before enter and "33 cards in this review" after: the skipped writes left the queue)
        assert summary.startswith("End of the cards") and "Review finished" not in summary
        counted = re.search(r"(\d+) cards in this review: .*", summary)
        assert counted is not None
        await pilot.press("enter")
        await settle(app, pilot)
        summary = str(screen.query_one("#summary-text").render())
        assert summary.startswith("Review finished") and counted.group(0) in summary, summary


# ---------------------------------------------------------------------------------------------- changed while shown


async def _on_a_stale_card(app: MemtuiApp, pilot) -> tuple[ReviewScreen, Card, Path]:  # type: ignore[no-untyped-def]
    screen = await open_review(app, pilot)
    await pilot.press("4")  # the stale group
    await settle(app, pilot)
    card = screen.current()
    assert card is not None and card.kind == "stale"
    return screen, card, app.store_path / card.paths[0]


def _agent_appends(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


async def test_a_card_whose_memory_changed_on_disk_says_so_and_decides_nothing_until_shown(demo: Path) -> None:
    line = "The agent added this line while the card was open."
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen, card, path = await _on_a_stale_card(app, pilot)
        _agent_appends(path, line)
        app.reload("disk")  # what the watcher does when the agent writes
        await settle(app, pilot)
        assert screen.current() is not None and screen.current().key == card.key  # type: ignore[union-attr]
        assert line not in str(screen.query_one("#single-text").render())  # the text the person saw stays
        notice = str(screen.query_one("#card-refusal").render())
        assert "Changed on disk since shown" in notice and card.paths[0] in notice and "r shows" in notice
        assert screen.check_action("reload_card", ())
        before = head_sha(demo)
        await pilot.press("v")  # approve text the person never saw: refused before anything runs
        await settle(app, pilot)
        assert head_sha(demo) == before and not screen.decisions and not screen.looked
        assert "changed on disk since shown" in screen.refusal
        await pilot.press("r")
        await settle(app, pilot)
        assert line in str(screen.query_one("#single-text").render())
        assert not screen.query_one("#card-refusal").display and not screen.check_action("reload_card", ())
        await pilot.press("v")  # now it verifies the text on screen
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["verify"] and len(screen.decisions) == 1
        assert line in git(demo.parent, "show", f"HEAD:memory/{card.paths[0]}")


async def test_a_decision_refused_because_the_file_changed_is_not_counted_and_commits_nothing(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen, card, path = await _on_a_stale_card(app, pilot)
        left = len(screen.left())
        _agent_appends(path, "Written just before the key, before memtui noticed.")
        before = head_sha(demo)
        await pilot.press("v")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        await pilot.press("escape")
        await settle(app, pilot)
        # no verify and no commit of the agent's write either: the refusal's "nothing was changed" is true
        assert head_sha(demo) == before and "nothing was changed" in screen.refusal
        assert not screen.decisions and not screen.looked and len(screen.left()) >= left
        assert screen.current() is not None and screen.current().key == card.key  # type: ignore[union-attr]


async def test_marked_memories_are_decided_as_they_were_when_marked(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen, card, path = await _on_a_stale_card(app, pilot)
        await pilot.press("space")  # mark it (and move on)
        await settle(app, pilot)
        assert screen.marks == {card.paths[0]}
        _agent_appends(path, "Changed after it was marked.")
        app.reload("disk")
        await settle(app, pilot)
        before = head_sha(demo)
        await pilot.press("v")  # verify the marked: refused, the marked version is not on disk any more
        await settle(app, pilot)
        if isinstance(app.screen, ChangedDialog):
            await pilot.press("escape")
            await settle(app, pilot)
        assert head_sha(demo) == before and not screen.decisions
        assert "changed on disk" in screen.refusal


def test_every_file_of_an_agent_write_past_the_fiftieth_it_names_becomes_a_new_write_card(
    tmp_path: Path, git_calls: list[str]
) -> None:
    """One recording of many agent writes (a first recording of an existing store, a big reorganisation) names at
    most 50 files in its trailers; every file it committed is still a new write, with the session that wrote it,
    and their diffs still come from one `git diff`."""
    from memtui.analysis.check import check_store
    from memtui.audit.repo import try_open_repo
    from memtui.review import build_queue
    from memtui.workspace import agent_sessions, open_store

    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "- [A](feedback_a.md) — a\n", "memory/feedback_a.md": memory("feedback_a")})
    init_repo(top)
    store = top / "memory"
    names = [f"feedback_rule_{i:03}.md" for i in range(70)]
    write_files(store, {n: memory(n.removesuffix(".md"), body=f"Rule {n}.") for n in names})
    recorded = ops.record_agent_write(store, session="sess-big")
    assert recorded.commit
    named = parse_trailers(git(top, "log", "-1", "--format=%B"))["Memtui-Memory"]
    assert len(named) < len(names)  # the trailers name only some: the cap this test is about

    layout_store = load_store(store)
    repo = try_open_repo(layout_store.layout)
    assert repo is not None
    git_calls.clear()
    cards = {c.paths[0]: c for c in build_queue(check_store(layout_store, TODAY), repo) if c.kind == "new"}
    assert sorted(cards) == names
    assert git_calls.count("diff") == 1
    assert all(f"+Rule {n}." in cards[n].diff for n in names)
    sessions = agent_sessions(open_store(store, today=TODAY))
    assert all(sessions.get(n) == ("sess-big",) for n in names)
