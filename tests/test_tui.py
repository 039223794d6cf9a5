"""The workstation through Pilot: every flow ends in real commits in a real repository."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import git, hold_history_reads, said
from textual.app import App
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Label, TextArea

from memtui import ops
from memtui.audit.repo import parse_trailers
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import (
    ArchiveDialog,
    ChangedDialog,
    EditDialog,
    FixDateDialog,
    HelpScreen,
    KeptEditDialog,
    MergeDialog,
)
from memtui.tui.history import HistoryDetail, HistoryScreen
from memtui.tui.main_screen import MainScreen
from memtui.tui.pilot import select_memory, settle
from memtui.tui.review import ReviewScreen
from memtui.tui.widgets import MemoryPane

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


async def select(app: MemtuiApp, pilot, path: str) -> MemoryPane:  # type: ignore[no-untyped-def]
    """Put the cursor on a memory, focusing its pane, and check the app agrees."""
    pane = await select_memory(app, pilot, path)
    assert app.main_screen.selected() is not None and app.main_screen.selected().path == path  # type: ignore[union-attr]
    return pane


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def make_app(store: Path, **kw) -> MemtuiApp:  # type: ignore[no-untyped-def]
    return MemtuiApp(store, today=TODAY, watch_interval=kw.pop("watch_interval", 0), **kw)


async def test_main_screen_panes_badges_and_budget(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        panes = {p.group: p for p in app.query(MemoryPane)}
        assert panes["user"].row_count == 5 and panes["user"].border_title == "[1] User (5)"
        assert panes["other"].row_count == 3  # untyped, no front matter, malformed
        header = str(app.query_one("#header").render())
        assert "MEMORY.md 220/200 lines" in header and "line 201" in header
        row = panes["project"].get_row("project_merge_freeze.md")
        assert row[0].plain.strip() == "expired"
        await pilot.press("3")
        assert app.focused is panes["project"]
        await pilot.press("0")
        assert app.focused is app.query_one("#preview")


async def test_archive_dialog_prefills_successor_and_commits(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_use_npm.md")
        await pilot.press("a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ArchiveDialog)
        assert app.screen.query_one(Input).value == "superseded by feedback_use_bun"
        await pilot.press("enter")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["archive"]
        assert trailers["Memtui-Superseded-By"] == ["memory/feedback_use_bun.md"]
        assert not (demo / "feedback_use_npm.md").exists()
        assert app.ws is not None and app.ws.store.get("feedback_use_npm.md") is None


async def test_a_typed_reason_naming_the_successor_records_it_as_a_suggested_one_does(demo: Path) -> None:
    """A trial typed "superseded by game-slice2-built": no `Memtui-Superseded-By`, no "→" in history, no `l` on
    the wikilink cards that followed — where the same words pre-filled recorded the successor."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "user_timezone.md")
        await pilot.press("a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ArchiveDialog)
        app.screen.query_one(Input).value = "Superseded by feedback_use_bun"
        await pilot.press("enter")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["archive"]
        assert trailers["Memtui-Superseded-By"] == ["memory/feedback_use_bun.md"]
        # a reason naming no memory is only a reason
        await select(app, pilot, "feedback_use_npm.md")
        await pilot.press("a")
        await pilot.pause(0.2)
        app.screen.query_one(Input).value = "replaced by the wiki page"
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"] and "Memtui-Superseded-By" not in head(demo)


async def test_escape_cancels_an_archive(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = git(demo.parent, "rev-parse", "HEAD")
        await select(app, pilot, "user_timezone.md")
        await pilot.press("a", "escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, ArchiveDialog)
        assert git(demo.parent, "rev-parse", "HEAD") == before and (demo / "user_timezone.md").exists()


async def test_mark_and_merge_in_the_side_by_side_dialog(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_commit_english.md")
        await pilot.press("space")
        await select(app, pilot, "feedback_commit_imperative.md")
        await pilot.press("space", "m")
        await pilot.pause(0.3)
        assert isinstance(app.screen, MergeDialog)
        area = app.screen.query_one("#merged", TextArea)
        assert "Commit messages are written in English" in area.text and "Add retry to webhook sender" in area.text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["merge"]
        assert not (demo / "feedback_commit_english.md").exists()
        assert "merged_from" in (demo / "feedback_commit_imperative.md").read_text()


async def test_edit_in_app_and_in_an_external_editor(demo: Path) -> None:
    edited: list[Path] = []

    def editor(path: Path) -> None:
        edited.append(path)
        path.write_text(path.read_text().replace("Shanghai (UTC+8)", "Berlin (UTC+1)"))

    app = make_app(demo, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "user_timezone.md")
        await pilot.press("E")
        await settle(app, pilot)
        assert edited and "Berlin (UTC+1)" in (demo / "user_timezone.md").read_text()
        assert head(demo)["Memtui-Action"] == ["edit"]
        await select(app, pilot, "user_timezone.md")
        await pilot.press("e")
        await pilot.pause(0.3)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("10:00", "09:30")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "09:30" in (demo / "user_timezone.md").read_text()
        assert git(demo.parent, "log", "-2", "--format=%s").splitlines() == [
            "memtui: edit user_timezone.md",
            "memtui: edit user_timezone.md",
        ]


async def test_verify_fix_date_and_undo(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "reference_linear.md")
        await pilot.press("v")
        await settle(app, pilot)
        assert f"last_verified: {TODAY.isoformat()}" in (demo / "reference_linear.md").read_text()
        await select(app, pilot, "project_deploy_freeze.md")
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)  # shows the phrase and the date, writes nothing yet
        assert "next Thursday" in (demo / "project_deploy_freeze.md").read_text().split("---")[2]
        # the description says it too and is rewritten with the body: both lines are shown, before and after
        before = str(dialog.query_one("#fix-phrase").render())
        after = str(dialog.query_one("#fix-after").render())
        assert before.count("next Thursday") == 2 and "description:" in before, before
        assert "next Thursday" not in after and after.count("2026-") == 2, after
        await pilot.press("enter")
        await settle(app, pilot)
        assert "next Thursday" not in (demo / "project_deploy_freeze.md").read_text()
        assert head(demo)["Memtui-Action"] == ["fix-date"]
        # memtui's proposal accepted as offered is recorded as counted, not as a date the person gave
        assert "counted from" in head(demo)["Memtui-Reason"][0], head(demo)["Memtui-Reason"]
        await pilot.press("u")
        await settle(app, pilot)
        assert "next Thursday" in (demo / "project_deploy_freeze.md").read_text().split("---")[2]
        assert head(demo)["Memtui-Action"] == ["undo"]


async def test_fix_date_reads_history_off_the_ui_thread_and_keys_pressed_meanwhile_count(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`f` on a long history froze the screen while git read it (ops.fix_date_preview ran on the UI thread). The
    dialog now opens at once and reads in a worker: with git held, it is already up, escape closes it, and a
    second one takes the date typed and the enter pressed while git is still reading; once the lines are read the
    date is written, with every line the preview names (the description too), as one commit. The first dialog's
    late answer acts on nothing. (The preview reuses the file dates the store's analysis read while HEAD stays
    where it is: here the hook records the agent's write first, so they are read again, as when it records while
    memtui is open.)"""
    gate, entered = hold_history_reads(tmp_path, monkeypatch)
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:

        async def held(count: int) -> None:  # until that many previews are inside git, waiting at the gate
            for _ in range(3000):
                if entered.exists() and len(entered.read_text().splitlines()) >= count:
                    return
                await pilot.pause(0.02)
            raise TimeoutError("the preview never reached git")

        await settle(app, pilot)
        assert ops.record_agent_write(demo).commit  # HEAD moves, no file changes: no reload, no new analysis
        before = git(demo.parent, "rev-parse", "HEAD").strip()
        await select(app, pilot, "project_deploy_freeze.md")
        gate.touch()
        await pilot.press("f")
        await held(1)
        first = app.screen
        assert isinstance(first, FixDateDialog) and first.reading  # up while git is still reading
        assert "reading history" in str(first.query_one("#fix-status").render())
        assert "next Thursday" in str(first.query_one("#fix-phrase").render())  # the finding's own line meanwhile
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await pilot.press("f")
        await held(2)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog) and dialog is not first and dialog.reading
        await pilot.press(*["backspace"] * len(dialog.query_one(Input).value), *"2026-11-26", "enter")
        await pilot.pause()
        assert app.screen is dialog and dialog.query_one(Input).value == "2026-11-26"  # typed, not lost
        assert "written once" in str(dialog.query_one("#fix-status").render())  # enter waits for the lines
        assert git(demo.parent, "rev-parse", "HEAD").strip() == before  # nothing written on an unread preview
        gate.unlink()
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        text = (demo / "project_deploy_freeze.md").read_text()
        assert "next Thursday" not in text and text.count("2026-11-26") == 2, text  # description and body
        # one decision, one commit (the demo's agent write was recorded before, on its own)
        assert git(demo.parent, "log", "--format=%s", f"{before}..HEAD").splitlines() == [
            "memtui: fix-date project_deploy_freeze.md",
        ]
        assert head(demo)["Memtui-Action"] == ["fix-date"]
        told = [s.message for s in said(app) if s.title == "Fix date"]
        assert len(told) == 1 and "→ 2026-11-26" in told[0], told  # the decision's report, and nothing else


async def test_filter_keeps_and_clears(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"bun")
        await pilot.pause(0.3)
        panes = {p.group: p for p in app.query(MemoryPane)}
        assert panes["feedback"].row_count == 1 and panes["user"].row_count == 0
        assert "(1/21)" in str(panes["feedback"].border_title)
        await pilot.press("enter")
        assert app.main_screen.filter_text == "bun" and isinstance(app.focused, MemoryPane)
        await pilot.press("slash", "escape")
        await pilot.pause(0.2)
        assert app.main_screen.filter_text == "" and panes["feedback"].row_count == 21
        # a filter kept with enter is cleared by escape in its pane too (it needed / first)
        await pilot.press("slash", *"bun", "enter")
        await pilot.pause(0.2)
        assert app.main_screen.filter_text == "bun" and isinstance(app.focused, MemoryPane)
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert app.main_screen.filter_text == "" and panes["feedback"].row_count == 21


async def test_the_palette_offers_put_under_git_only_for_a_store_not_in_git(demo: Path, tmp_path: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "store: Put under git" not in [name for name, _, _ in app.main_screen.palette_commands()]
    plain = tmp_path / "plain" / "memory"
    plain.mkdir(parents=True)
    (plain / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (plain / "a.md").write_text("---\nname: a\ndescription: a\ntype: user\n---\n\nA.\n")
    loose = make_app(plain)
    async with loose.run_test(size=SIZE) as pilot:
        await settle(loose, pilot)
        while loose.screen is not loose.main_screen:  # the offer to put it under git: not now
            await pilot.press("escape")
            await settle(loose, pilot)
        assert "store: Put under git" in [name for name, _, _ in loose.main_screen.palette_commands()]


async def test_review_queue_decides_with_one_key_and_marks_the_review(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        kinds = [c.kind for c in screen.cards]
        assert kinds[:7].count("contradiction") == 4 and kinds.index("new") > kinds.index("duplicate")
        assert "1 / " in str(screen.query_one("#card-header").render())
        first = screen.cards[0]
        await pilot.press("a")  # archive the older as superseded by the newer: asks why, like everywhere
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        assert app.screen.query_one(Input).value.startswith("superseded by ")
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"]
        assert head(demo)["Memtui-Memory"] == [f"memory/{first.paths[0]}"]
        second = screen.cards[1]
        await pilot.press("b")  # keep both: remembered in git
        await settle(app, pilot)
        kept = head(demo)
        assert kept["Memtui-Action"] == ["keep-both"] and len(kept["Memtui-Memory"]) == 2
        await pilot.press("u")  # undo the keep-both: the card comes back
        await settle(app, pilot)
        assert screen.current() == second and head(demo)["Memtui-Action"] == ["undo"]
        await pilot.press("b")
        await settle(app, pilot)
        for _ in range(len(screen.cards)):
            await pilot.press("s")
        await pilot.pause(0.2)
        assert screen.current() is None
        await pilot.press("enter")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["review"]
        body = git(demo.parent, "log", "-1", "--format=%B")
        assert "1 archived" in body and "1 kept both" in body
        await pilot.press("escape")
        await settle(app, pilot)
        # the kept pair does not come back next time, the archived one is gone
        await pilot.press("r")
        await pilot.pause(0.3)
        again = app.screen
        assert isinstance(again, ReviewScreen)
        assert second.paths not in [c.paths for c in again.cards]
        assert first.paths not in [c.paths for c in again.cards]


async def test_history_revoked_toggle_filter_and_detail(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one(DataTable)
        assert table.row_count > 20
        await pilot.press("t")
        assert table.row_count == 1
        assert table.get_row_at(0)[2].plain == "feedback_writing_polite.md"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryDetail)
        assert "polite, formal tone" in app.screen.before and "direct style" in app.screen.event.reason
        await pilot.press("escape", "t", "slash", *"verify")
        await pilot.pause(0.2)
        assert table.row_count == 1 and table.get_row_at(0)[1].plain == "verify"


async def test_a_decision_on_a_memory_changed_underneath_shows_the_new_text(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "user_role.md")
        before = git(demo.parent, "log", "--format=%s").count("memtui: verify")
        (demo / "user_role.md").write_text((demo / "user_role.md").read_text() + "User now leads the platform team.\n")
        await pilot.press("v")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        assert "leads the platform team" in str(app.screen.query_one("#changed-text Static").render())
        assert git(demo.parent, "log", "--format=%s").count("memtui: verify") == before
        assert "last_verified" not in (demo / "user_role.md").read_text()


async def test_the_agent_keeps_writing_and_the_app_reloads(demo: Path) -> None:
    app = make_app(demo, watch_interval=0.1)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        (demo / "user_new_hobby.md").write_text(
            "---\nname: user_new_hobby\ndescription: Climbs\ntype: user\n---\nUser climbs.\n"
        )
        for _ in range(30):
            await pilot.pause(0.1)
            if app.ws and app.ws.store.get("user_new_hobby.md") and app.ws.analysed:
                break
        await settle(app, pilot)
        assert app.ws is not None and app.ws.store.get("user_new_hobby.md") is not None
        assert app.query_one("#pane-user", MemoryPane).row_count == 6
        assert any("changed on disk" in n.message for n in said(app))


async def test_memtuis_own_decisions_are_not_reported_as_the_disk_changing(demo: Path) -> None:
    """The watcher polls fast here; a verify and an archive from the review are memtui's own writes."""
    from memtui.tui.review import ReviewScreen

    app = make_app(demo, watch_interval=0.05)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select_memory(app, pilot, "user_role.md")
        await pilot.press("v")
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.press(*"retired in test", "enter")
        await settle(app, pilot)
        for _ in range(10):  # several polls after the writes
            await pilot.pause(0.05)
        await settle(app, pilot)
        actions = git(demo.parent, "log", "--format=%s")
        assert "memtui: verify" in actions and "memtui: archive" in actions
        assert not any("changed on disk" in n.message for n in said(app))


async def test_asks_to_reload_while_a_read_runs_make_one_more_read_not_a_pile(demo: Path) -> None:
    """An agent writing in a loop asks for many reloads: one read runs at a time and one follows it, on the
    store as it is after the last write (a thread per ask made a burst of 25 take minutes under load)."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = app.reads_started
        for i in range(12):
            (demo / f"user_burst_{i}.md").write_text(
                f"---\nname: user_burst_{i}\ndescription: Burst {i}\ntype: user\n---\nUser fact {i}.\n"
            )
            app.reload("disk")
        await settle(app, pilot)
        assert app.reads_started - before == 2
        assert app.ws is not None and app.ws.analysed and not app.reading
        assert all(app.ws.store.get(f"user_burst_{i}.md") is not None for i in range(12))


async def test_a_re_read_of_an_unchanged_store_redraws_no_pane(demo: Path) -> None:
    """The watcher and reloads re-read often; a pane whose rows are the same is not cleared and refilled."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        panes = {p.group: p for p in app.query(MemoryPane)}
        fills = {g: getattr(p, "_generation", 0) for g, p in panes.items()}
        app.reload("manual")
        await settle(app, pilot)
        assert {g: getattr(p, "_generation", 0) for g, p in panes.items()} == fills
        (demo / "user_new_hobby.md").write_text("---\nname: user_new_hobby\ndescription: Climbs\ntype: user\n---\nX\n")
        app.reload("manual")
        await settle(app, pilot)
        assert panes["user"]._generation > fills["user"] and panes["user"].row_count == 6
        assert panes["feedback"]._generation == fills["feedback"]


async def test_text_from_memory_files_is_never_markup(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    store.mkdir()
    (store / "evil.md").write_text(
        "---\nname: '[bold red]boom[/] $x'\ndescription: d\ntype: user\n---\n\x1b[2J[link=x]y[/link]\n"
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = app.query_one("#pane-user", MemoryPane)
        assert pane.get_row_at(0)[2].plain == "[bold red]boom[/] $x"
        await pilot.press("1")
        await settle(app, pilot)
        fields = str(app.query_one("#preview-fields").render())
        assert "[bold red]boom[/]" in fields and "\x1b" not in fields


async def test_malformed_memory_is_read_only_and_help_and_palette_open(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_broken_yaml.md")
        await pilot.press("e")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, EditDialog)
        assert any("read-only" in n.message for n in said(app))
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"History")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)


async def test_themes_load_and_a_broken_theme_file_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo: Path
) -> None:
    themes = tmp_path / "cfg" / "memtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        assert {"memtui-dark", "memtui-light", "memtui-contrast"} <= set(app.available_themes)
        assert "broken" not in app.available_themes
        assert any("broken.toml" in n.message for n in said(app))
        for name in ("memtui-light", "memtui-contrast"):
            app.theme = name
            await pilot.pause()
            assert app.theme_variables["badge-fresh"] != ""
        assert app.theme_variables["badge-fresh"].lower() == "#009e73"


async def test_a_store_outside_git_is_offered_a_repository(tmp_path: Path) -> None:
    from memtui.tui.dialogs import ConfirmDialog

    top = tmp_path / "projects" / "-home-me-app"
    (top / "memory").mkdir(parents=True)
    (top / "memory" / "user_a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nx\n")
    (top / "session.jsonl").write_text("{}\n")
    app = make_app(top / "memory")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert (top / ".git").is_dir() and app.ws is not None and app.ws.repo is not None
        assert git(top, "ls-files").split() == [".gitignore", "memory/user_a.md"]


# ---------------------------------------------------------------------------------------------- issue 11 item 5


def _keys(pane: MemoryPane) -> list[str]:
    return [str(k.value) for k in pane.rows]


async def test_s_cycles_the_sort_and_the_header_says_which(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        project = app.query_one("#pane-project", MemoryPane)
        assert app.ws is not None
        ws = app.ws
        by_name = _keys(project)
        assert "sort:" not in str(app.query_one("#header").render())
        seen = {}
        for mode in ("age", "freshness", "findings", "name"):
            await pilot.press("s")
            await pilot.pause()
            header = str(app.query_one("#header").render())
            assert (f"sort: {mode}" in header) == (mode != "name"), header
            seen[mode] = _keys(project)
        ages = [ws.freshness[p].age_days for p in seen["age"]]
        assert ages == sorted(ages, reverse=True) and seen["age"] != by_name
        assert ws.freshness[seen["freshness"][0]].badge == "expired"  # the worst badge first
        counts = [len(ws.findings_for(p)) for p in seen["findings"]]
        assert counts == sorted(counts, reverse=True) and counts[0] > 0
        assert seen["name"] == by_name


async def test_n_and_shift_n_jump_between_memories_with_findings(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        ws = app.ws
        assert ws is not None
        flagged = [p for _, p in app.main_screen._order if ws.findings_for(p)]
        assert 2 < len(flagged) < len(app.main_screen._order)  # some memories have none: n skips them
        await pilot.press("n")
        await pilot.pause()
        first = app.main_screen.selected()
        assert first is not None and ws.findings_for(first.path)
        visited = [first.path]
        for _ in range(len(flagged) - 1):
            await pilot.press("n")
            await pilot.pause()
            current = app.main_screen.selected()
            assert current is not None
            visited.append(current.path)
        assert sorted(visited) == sorted(flagged)  # each one once, across panes, in the order shown
        assert [p for p in flagged if p in visited] == visited
        await pilot.press("n")  # wraps around
        await pilot.pause()
        assert app.main_screen.selected().path == visited[0]  # type: ignore[union-attr]
        await pilot.press("N")
        await pilot.pause()
        assert app.main_screen.selected().path == visited[-1]  # type: ignore[union-attr]


async def test_a_standing_note_is_said_once_not_after_every_decision(demo: Path) -> None:
    app = make_app(demo)
    shown: list[str] = []
    notify = app.notify

    def record(message: str, **kw) -> None:  # type: ignore[no-untyped-def]
        shown.append(message)  # a slow machine may expire a 4 s toast before the assertion reads it
        notify(message, **kw)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        for name in ("reference_linear.md", "user_editor.md"):
            await select(app, pilot, name)
            await pilot.press("v")
            await settle(app, pilot)
        said = [m for m in shown if "holds a secret" in m]
        assert len(said) == 1, shown


# ---------------------------------------------------------------------------------------------- issue 11 item 7


async def _edit_while_the_agent_writes(app: MemtuiApp, pilot: Pilot[None], agent: Callable[[str], str]) -> Path:
    """Edit user_timezone.md (10:00 → 09:30) while the agent rewrites it (`agent`: old text → new), then save."""
    await settle(app, pilot)
    await select(app, pilot, "user_timezone.md")
    await pilot.press("e")
    await pilot.pause(0.3)
    assert isinstance(app.screen, EditDialog)
    area = app.screen.query_one(TextArea)
    area.text = area.text.replace("10:00", "09:30")
    path = app.store_path / "user_timezone.md"
    path.write_text(agent(path.read_text()))
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    return path


async def test_an_edit_refused_because_the_file_changed_keeps_the_typed_text_to_save_again(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        path = await _edit_while_the_agent_writes(app, pilot, lambda text: text + "Moved to a 4-day week.\n")
        dialog = app.screen
        assert isinstance(dialog, KeptEditDialog)
        diff = [str(line.render()) for line in dialog.query("#kept-diff .diff-line")]
        assert "+Moved to a 4-day week." in diff, "what changed on disk is shown as a diff"
        typed = dialog.query_one("#kept-typed", TextArea)
        # the person's change, applied to the text on disk now: the agent's new line is kept
        assert "09:30" in typed.text and "4-day week" in typed.text
        assert "applied to the text on disk now" in str(dialog.query_one(".dialog-message").render())
        assert "09:30" not in path.read_text()  # nothing overwritten yet
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        text = path.read_text()
        assert "09:30" in text and "4-day week" in text
        assert head(demo)["Memtui-Action"] == ["edit"]


async def test_an_edit_of_the_lines_the_agent_changed_meanwhile_is_kept_as_typed_beside_the_change(
    demo: Path,
) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        # the agent changes the same line meanwhile
        path = await _edit_while_the_agent_writes(app, pilot, lambda text: text.replace("10:00", "11:00"))
        dialog = app.screen
        assert isinstance(dialog, KeptEditDialog)
        typed = dialog.query_one("#kept-typed", TextArea)
        assert "09:30" in typed.text and "11:00" not in typed.text, "nothing guessed: the person's text as typed"
        assert "touch the same lines" in str(dialog.query_one(".dialog-message").render())
        assert "11:00" in path.read_text()


async def test_E_opens_a_malformed_memory_in_the_editor_and_the_fix_is_committed_and_shown(demo: Path) -> None:
    def editor(path: Path) -> None:
        fixed = path.read_text().replace('"Retry webhooks" three times: then alert', "Retry webhooks 3x")
        path.write_text(fixed + "---\nRetry webhooks three times, then alert.\n")  # the closing line was missing

    app = make_app(demo, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_broken_yaml.md")
        assert app.main_screen.selected().is_malformed  # type: ignore[union-attr]
        await pilot.press("E")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["edit"]
        assert app.ws is not None
        fixed = app.ws.store.get("feedback_broken_yaml.md")
        assert fixed is not None and not fixed.is_malformed and fixed.type == "feedback"
        panes = {p.group: p for p in app.query(MemoryPane)}
        assert "feedback_broken_yaml.md" in [str(k.value) for k in panes["feedback"].rows]


async def test_an_external_edit_that_still_does_not_parse_is_offered_again_not_lost(demo: Path) -> None:
    def editor(path: Path) -> None:
        path.write_text(path.read_text() + "still: [unclosed\n")

    app = make_app(demo, editor_runner=editor)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "feedback_broken_yaml.md")
        before = git(demo.parent, "log", "--format=%s").count("memtui: edit")
        await pilot.press("E")
        await settle(app, pilot)
        assert isinstance(app.screen, KeptEditDialog)
        assert "still: [unclosed" in app.screen.query_one("#kept-typed", TextArea).text
        assert git(demo.parent, "log", "--format=%s").count("memtui: edit") == before
        assert "still: [unclosed" not in (demo / "feedback_broken_yaml.md").read_text()


# ---------------------------------------------------------------------------------------------- issue 11 items 3–5


async def test_marks_feed_archive_and_verify_one_commit_each_and_the_header_counts_them(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for name in ("user_role.md", "user_editor.md"):
            await select(app, pilot, name)
            await pilot.press("space")
        await pilot.pause(0.2)
        assert "2 marked" in str(app.query_one("#header").render())
        await pilot.press("v")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["verify"]
        assert sorted(trailers["Memtui-Memory"]) == ["memory/user_editor.md", "memory/user_role.md"]
        assert "marked" not in str(app.query_one("#header").render())  # a committed decision clears the marks
        for name in ("project_invoice_v2.md", "project_merge_freeze.md"):
            await select(app, pilot, name)
            await pilot.press("space")
        await pilot.press("a")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ArchiveDialog)
        questions = [str(label.render()) for label in app.screen.query(Label)]
        assert any("Why are these 2 retired?" in q for q in questions), questions  # not "this memory"
        await pilot.press(*"done and shipped", "enter")
        await settle(app, pilot)
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["archive"] and trailers["Memtui-Reason"] == ["done and shipped"]
        assert len(trailers["Memtui-Memory"]) == 2
        assert not (demo / "project_invoice_v2.md").exists() and not (demo / "project_merge_freeze.md").exists()
        subjects = git(demo.parent, "log", "-2", "--format=%s").splitlines()
        assert subjects == ["memtui: archive 2 memories", "memtui: verify 2 memories"]  # one commit per bulk decision


async def test_history_restores_a_revoked_rule_with_R_and_redo_follows_undo(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "user_editor.md")
        await pilot.press("a")
        await pilot.pause(0.3)
        await pilot.press(*"switched to helix", "enter")
        await settle(app, pilot)
        assert not (demo / "user_editor.md").exists()
        await pilot.press("H")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("t")
        await pilot.pause(0.2)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryDetail) and app.screen.event.action == "archive"
        await pilot.press("R")
        await settle(app, pilot)
        assert (demo / "user_editor.md").exists()
        assert head(demo)["Memtui-Action"] == ["restore"]
        assert any(n.title == "Restore" for n in said(app))
        assert isinstance(app.screen, HistoryScreen)
        assert app.screen.events and app.screen.events[0].action == "restore"  # the list shows the new commit
        await pilot.press("escape")
        await pilot.pause(0.2)
        await pilot.press("u")  # undo the restore: archived again
        await settle(app, pilot)
        assert not (demo / "user_editor.md").exists()
        await pilot.press("U")  # redo: restored again
        await settle(app, pilot)
        redo = head(demo)  # recorded as the restore it applies again
        assert (demo / "user_editor.md").exists() and redo["Memtui-Action"] == ["restore"]
        assert redo["Memtui-Reapplies"] and "redo" in git(demo.parent, "log", "-1", "--format=%s")


async def test_at_80x24_one_pane_fills_the_body_and_every_footer_key_is_on_the_key_line(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.main_screen
        assert screen.has_class("-short") and screen.has_class("-narrow")
        shown = [p for p in app.query(MemoryPane) if p.display and p.styles.display != "none"]
        assert [p.group for p in shown] == [screen.current_pane().group]
        assert shown[0].size.height - 2 >= 10  # rows, not 2
        keys = str(app.query_one("#keys").render())
        assert all(len(line) <= 80 for line in keys.splitlines())
        assert app.query_one("#keys").size.height == len(keys.splitlines())  # every line on screen
        for b in screen.BINDINGS:
            if b.show:  # type: ignore[union-attr]
                assert b.description.lower() in keys.lower(), b  # type: ignore[union-attr]
        for word in ("mark", "redo", "sort", "next finding", "quit"):  # hidden before: a new user never found them
            assert word in keys.lower(), word
        await pilot.press("4")
        await pilot.pause(0.2)
        assert screen.current_pane().group == "reference" and app.focused is screen.current_pane()
        assert "reference" in [p.group for p in app.query(MemoryPane) if p.styles.display != "none"]
        assert "4 Reference (8)" in str(app.query_one("#pane-tabs").render())


async def test_every_main_key_is_named_at_120_columns_and_the_footer_only_where_they_all_fit(demo: Path) -> None:
    """Below 120 columns the footer hid mark, sort, redo and next finding, and with them shown it cuts its last keys
    below 150: the key line stands in for it until every key fits on the footer's one line."""
    from textual.widgets._footer import FooterKey

    for width in (120, 149, 150, 170):
        app = make_app(demo)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(app, pilot)
            narrow = app.main_screen.has_class("-narrow")
            assert narrow is (width < 150), width
            if narrow:
                keys = str(app.query_one("#keys").render()).lower()
                assert all(w in keys for w in ("mark", "redo", "sort", "next finding", "quit", "palette")), keys
            else:
                shown = list(app.main_screen.query(FooterKey))
                assert len(shown) == 16 and all(0 < k.region.right <= width for k in shown), width


async def test_enter_opens_the_selected_memory_in_the_preview_and_escape_comes_back(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = await select(app, pilot, "feedback_use_bun.md")
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is app.query_one("#preview")
        assert app.main_screen.selected().path == "feedback_use_bun.md"  # type: ignore[union-attr]
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is pane and app.main_screen.selected().path == "feedback_use_bun.md"  # type: ignore[union-attr]


async def test_over_120_columns_panes_show_age_and_description(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=(250, 50)) as pilot:
        await settle(app, pilot)
        pane = app.query_one("#pane-feedback", MemoryPane)
        assert [str(c.key.value) for c in pane.ordered_columns] == ["badge", "flags", "name", "age", "description"]
        row = pane.get_row("feedback_use_bun.md")
        assert row[3].plain.strip() == "45d" and row[4].plain == "Front end switched to bun; no longer use npm"
        assert pane.region.right <= 250
        await pilot.press("s")  # the sort still cycles and says so
        await pilot.pause(0.2)
        assert "sort: age" in str(app.query_one("#header").render())
    narrow = make_app(demo)
    async with narrow.run_test(size=(100, 40)) as pilot:
        await settle(narrow, pilot)
        pane = narrow.query_one("#pane-feedback", MemoryPane)
        assert [str(c.key.value) for c in pane.ordered_columns] == ["badge", "flags", "name"]


def test_the_main_screens_help_names_every_key_it_binds() -> None:
    from memtui.tui.dialogs import HELP
    from memtui.tui.main_screen import MainScreen

    names = {"question_mark": "?", "slash": "/"}
    tokens = set(HELP.replace("/", " / ").split()) | {"1", "2", "3", "4", "5"}
    for b in [*MainScreen.BINDINGS, *MemtuiApp.BINDINGS]:
        for key in b.key.split(","):  # type: ignore[union-attr]
            assert names.get(key, key) in tokens, f"main help does not name {key}"


async def test_marks_in_history_restore_several_revoked_rules_in_one_commit(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for name in ("user_editor.md", "user_role.md"):
            await select(app, pilot, name)
            await pilot.press("a")
            await pilot.pause(0.3)
            await pilot.press(*"retired", "enter")
            await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("t")  # revoked rules: the two archives first, newest first
        await pilot.pause(0.2)
        await pilot.press("space", "down", "space")
        await pilot.pause(0.2)
        assert len(app.screen.marked) == 2
        assert "2 marked" in str(app.screen.query_one("#history-header").render())
        await pilot.press("R")
        await settle(app, pilot)
        assert (demo / "user_editor.md").exists() and (demo / "user_role.md").exists()
        trailers = head(demo)
        assert trailers["Memtui-Action"] == ["restore"]
        assert sorted(trailers["Memtui-Memory"]) == ["memory/user_editor.md", "memory/user_role.md"]


async def test_a_refusal_is_shown_in_one_place_with_its_title_and_message(demo: Path, tmp_path: Path) -> None:
    from memtui.audit.lock import store_lock

    app = make_app(demo)
    shown: list[tuple[str, str]] = []
    notify = app.notify

    def record(message: str, **kw) -> None:  # type: ignore[no-untyped-def]
        shown.append((str(kw.get("title", "")), message))
        notify(message, **kw)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "user_role.md")
        before = git(demo.parent, "rev-parse", "HEAD")
        with store_lock(tmp_path / "held.lock"):  # another action of this process holds the store
            await pilot.press("v")
            await settle(app, pilot)
        title, message = shown[-1]
        assert title == "Verify refused · Store busy" and "try again" in message
        assert app.last_error == f"{title}: {message}" and app.last_result is None  # what scripts driving it read
        assert git(demo.parent, "rev-parse", "HEAD") == before
        await pilot.press("v")  # the lock is free again
        await settle(app, pilot)
        assert app.last_result is not None and app.last_result.action == "verify"
        assert app.last_result.commit == git(demo.parent, "rev-parse", "HEAD").strip()


async def test_a_pane_filled_before_it_handled_its_mount_gets_its_columns_first() -> None:
    """A store read can finish before a pane has handled its own Mount (a run under load crashed with "More values
    provided than there are columns"); the fill adds the columns, and the late Mount keeps them and the title."""

    class Host(App[None]):
        pass

    app = Host()
    async with app.run_test() as pilot:
        pane = MemoryPane("user", "User", "1")
        mounting = app.screen.mount(pane)
        pane.fill([("user_editor.md", (Content("fresh"), Content(""), Content("user-editor")))], 1, None)
        await mounting
        await pilot.pause()
        assert pane.row_count == 1 and len(pane.columns) == 3
        assert pane.border_title == "[1] User (1)"


async def test_a_main_screen_told_of_the_store_before_it_composed_fills_its_panes_once_it_has(demo: Path) -> None:
    """The default screen composes in its own task, after the app's Mount has started the store read; a read (or a
    failed read's header) that comes first on a busy machine must not crash on widgets that do not exist yet, and the
    panes fill once they do."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        late = MainScreen()
        pushed = app.push_screen(late)
        late.update_header()
        late.store_changed(first=True)
        await pushed
        await pilot.pause()
        panes = {p.group: p for p in late.query(MemoryPane)}
        assert panes["user"].row_count == 5 and panes["user"].border_title == "[1] User (5)"


async def test_putting_a_store_with_a_secret_under_git_goes_ahead_when_the_person_says_yes(tmp_path: Path) -> None:
    """The TUI offered 'Commit it anyway? y' when init met a secret, and y refused again: the init ignored the
    answer. It now goes through the same ops path as `memtui init --allow-secret`."""
    from conftest import memory, write_files

    from memtui.tui.dialogs import ConfirmDialog, ConfirmRisky

    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "- [A](a.md) — a\n", "memory/a.md": memory("a", body="key " + "9f" * 20)})
    app = make_app(top / "memory")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert type(app.screen) is ConfirmDialog  # not in git: put it under git?
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmRisky) and not (top / ".git").exists()
        await pilot.press("y")
        await settle(app, pilot)
        assert (top / ".git").is_dir()
        assert git(top, "ls-files").split() == [".gitignore", "memory/MEMORY.md", "memory/a.md"]
        assert app.last_outcome is not None and app.last_outcome.status == "committed"


async def test_the_preview_says_the_age_of_a_memory_only_just_put_under_git_is_unknown(tmp_path: Path) -> None:
    """The TUI and `check --json` agree: an undated memory committed by memtui init has no age to claim."""
    from conftest import memory, write_files

    from memtui import ops

    top = tmp_path / "p"
    write_files(
        top, {"memory/MEMORY.md": "- [R](user_role.md) — r\n", "memory/user_role.md": memory("user_role", "user")}
    )
    ops.init(top / "memory")
    app = make_app(top / "memory")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.query_one("#pane-user", MemoryPane).get_row_at(0)[0].plain.strip() == "undated"
        await pilot.press("1")
        await settle(app, pilot)
        fields = str(app.query_one("#preview-fields").render())
        assert "age unknown" in fields and "memtui init put it under git" in fields and " days since" not in fields


async def test_fix_date_shows_the_line_before_and_after_and_proposes_no_date_it_cannot_know(tmp_path: Path) -> None:
    """On a store memtui init just put under git the day a phrase was written is unknown: the dialog says so, shows
    the line before, proposes no date (enter alone writes nothing), and once a date is typed shows the line after."""
    from conftest import memory, write_files

    from memtui import ops

    top = tmp_path / "p"
    body = "Deploy freeze starts tomorrow.\n\n**Why:** QA\n\n**How to apply:** wait"
    write_files(top, {"memory/project_f.md": memory("project_f", "project", body=body)})
    ops.init(top / "memory")
    before = git(top, "rev-parse", "HEAD")
    app = make_app(top / "memory")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "project_f.md")
        await pilot.press("f")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FixDateDialog)
        assert str(dialog.query_one("#fix-phrase").render()) == "before  Deploy freeze starts tomorrow."
        assert "not known" in str(dialog.query_one("#fix-base").render())
        assert dialog.query_one(Input).value == ""
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is dialog and git(top, "rev-parse", "HEAD") == before  # nothing proposed, nothing written
        dialog.query_one(Input).value = "2026-11-02"
        await pilot.pause()
        assert str(dialog.query_one("#fix-after").render()) == "after   Deploy freeze starts 2026-11-02."
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Deploy freeze starts 2026-11-02." in (top / "memory" / "project_f.md").read_text()
        assert head(top / "memory")["Memtui-Action"] == ["fix-date"]


async def test_after_an_archive_the_cursor_stays_in_place_on_the_next_memory(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = await select(app, pilot, "feedback_use_npm.md")
        keys = _keys(pane)
        row = keys.index("feedback_use_npm.md")
        assert 0 < row < len(keys) - 1
        await pilot.press("a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert not (demo / "feedback_use_npm.md").exists()
        assert pane.cursor_row == row and app.main_screen.selected().path == keys[row + 1]  # type: ignore[union-attr]
        assert str(app.query_one("#preview-fields").render()).startswith(keys[row + 1])
        # the last one archived: the one before it takes the cursor
        await select(app, pilot, keys[-1])
        await pilot.press("a")
        await pilot.pause(0.2)
        await pilot.press(*"gone", "enter")
        await settle(app, pilot)
        assert not (demo / keys[-1]).exists()
        assert app.main_screen.selected().path == keys[-2] and pane.cursor_row == len(keys) - 3  # type: ignore[union-attr]


async def test_a_store_read_before_the_panes_are_mounted_is_drawn_once_they_are(demo: Path) -> None:
    """The panes mount in their container's own turn, after the screen's header: a read finishing in between asked
    for a pane that was not there yet, and the error ended the app (seen under load in the full suite)."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.main_screen
        pane = screen.query_one("#pane-project", MemoryPane)
        await pane.remove()
        screen.store_changed()  # the read lands while a pane is missing: nothing fails, it waits
        await pilot.pause()
        assert app.is_running and not screen.query("#pane-project")
        await screen.query_one("#panes").mount(MemoryPane("project", "Project", "3"), before=3)
        await pilot.pause()
        await pilot.pause()
        restored = screen.query_one("#pane-project", MemoryPane)
        assert restored.row_count == 8 and restored.border_title == "[3] Project (8)"


async def test_a_key_typed_right_after_a_pane_digit_acts_on_the_new_pane(demo: Path) -> None:
    """`2G` typed quickly sent G to the pane focused before: focus moved a turn later than the digit's key."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        project = await select(app, pilot, "project_deploy_freeze.md")
        row = project.cursor_row
        feedback = app.query_one("#pane-feedback", MemoryPane)
        assert feedback.cursor_row != feedback.row_count - 1
        from textual import events

        # both keys in the app's queue at once, as a terminal delivers them when typed quickly
        app.post_message(events.Key("2", "2"))
        app.post_message(events.Key("G", "G"))
        await pilot.pause()
        await pilot.pause()
        assert app.focused is feedback
        assert feedback.cursor_row == feedback.row_count - 1 and project.cursor_row == row


def typed_at_once(app: MemtuiApp, keys: str) -> None:
    """Every key of `keys` in the app's queue at once, as a terminal delivers a quick typist's keys (Pilot's `press`
    waits for each key to be handled before the next); `\\n` is enter."""
    from textual import events

    names = {"-": "minus", "\n": "enter", " ": "space"}
    for ch in keys:
        app.post_message(events.Key(names.get(ch, ch), None if ch == "\n" else ch))


async def test_a_date_typed_in_the_instant_after_f_is_the_date_written(demo: Path) -> None:
    """The trial typed `f` and a date quickly: the keys after `f` were on their way through the main screen when
    the dialog opened, and were lost there, so enter wrote memtui's own proposal, a date nobody typed. They now go
    into the dialog's date, in order, and enter writes that date."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "project_deploy_freeze.md")
        typed_at_once(app, "f2026-12-03\n")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        text = (demo / "project_deploy_freeze.md").read_text()
        assert "next Thursday" not in text and text.count("2026-12-03") == 2, text
        assert head(demo)["Memtui-Action"] == ["fix-date"]


async def test_a_reason_typed_in_the_instant_after_a_is_the_reason_and_a_refusal_keeps_it_whole(demo: Path) -> None:
    """Keys typed right after `a` reach the reason; after a refusal the reason comes back unselected, so the next
    key adds to it instead of replacing all of it (the trial got a commit whose reason was `a`)."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await select(app, pilot, "reference_linear.md")
        typed_at_once(app, "aold rule")
        await pilot.pause()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog)
        box = dialog.query_one(Input)
        assert box.value == "old rule"
        dialog.refuse("Refused: reference_linear.md changed on disk")
        await pilot.pause()
        await pilot.press("s")
        assert box.value == "old rules"
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"] and head(demo)["Memtui-Reason"] == ["old rules"]


async def test_the_history_filter_finds_every_memory_of_a_batch_decision(demo: Path) -> None:
    ops.archive_many(demo, ["user_editor.md", "feedback_log_fields.md"], reason="both out of date", today=TODAY)
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("H")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one(DataTable)
        await pilot.press("slash", *"log_fields")
        await pilot.pause(0.2)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        archived = [r[2].plain for r in rows if r[1].plain == "archive"]
        assert archived, "the second memory of the batch archive is found too"
        assert archived == ["feedback_log_fields.md (+1)"], "labelled by the memory found, and one more named"
