"""The review's index cards fix the index (real git, real files, the real app through Pilot): `i` adds the memories
an unindexed card lists to MEMORY.md, `d` drops a broken link's line, each in one commit, and the card settles; the
index-over-cap card names the memories the agent cannot see."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import git, memory
from test_review_flow import SIZE, head, make_app, open_review
from test_review_trial_b import UNLISTED, commits, live
from textual.widgets import SelectionList

from memtui.tui.dialogs import ChangedDialog, HelpScreen
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen

LISTED = {"user_role.md": memory("user_role", "user", body="Mei leads the billing team.")}
INDEX = "- [Role](user_role.md) — billing lead\n"


async def test_i_adds_every_memory_of_the_unindexed_card_in_one_commit_and_the_card_settles(
    make_store: Callable[..., Path],
) -> None:
    store = make_store({**UNLISTED, **LISTED}, in_git=True, index=INDEX)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "unindexed" and len(card.paths) == 3
        assert "index_add" in live(screen) and "drop_link" not in live(screen)
        assert "i adds" in card.explanation  # the card says what its key does
        before = commits(store)
        await pilot.press("i")
        await settle(app, pilot)
        assert commits(store) == before + 1
        trailers = head(store)
        assert trailers["Memtui-Action"] == ["index"]
        assert sorted(trailers["Memtui-Memory"]) == sorted(f"memory/{p}" for p in UNLISTED)
        text = (store / "MEMORY.md").read_text()
        assert text.startswith(INDEX) and all(f"]({p}) — " in text for p in UNLISTED), text
        assert [d.action for d in screen.decisions] == ["indexed"]
        assert not any(c.kind == "unindexed" for c in screen.left()), "the card settled"
        await pilot.press("u")  # the review's own undo takes the lines out again and brings the card back
        await settle(app, pilot)
        assert (store / "MEMORY.md").read_text() == INDEX
        now = screen.current()
        assert now is not None and now.kind == "unindexed" and not screen.decisions


async def test_i_with_some_memories_marked_adds_only_those_and_the_card_stays_for_the_others(
    make_store: Callable[..., Path],
) -> None:
    store = make_store({**UNLISTED, **LISTED}, in_git=True, index=INDEX)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "unindexed"
        listing = screen.query_one("#bulk-list", SelectionList)
        listing.highlighted = card.paths.index("feedback_sql_style.md")
        await pilot.pause(0.1)
        await pilot.press("space")
        await pilot.pause(0.1)
        await pilot.press("i")
        await settle(app, pilot)
        assert head(store)["Memtui-Memory"] == ["memory/feedback_sql_style.md"]
        now = screen.current()
        assert now is not None and now.kind == "unindexed"
        assert sorted(now.paths) == ["feedback_go_errors.md", "feedback_pr_titles.md"]
        assert not screen.marks


async def test_i_is_refused_naming_memory_md_when_it_changed_since_it_was_read(
    make_store: Callable[..., Path],
) -> None:
    store = make_store({**UNLISTED, **LISTED}, in_git=True, index=INDEX)
    app = make_app(store)  # no watcher: the app does not see the agent's write below
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        agent = INDEX + "- [Go errors](feedback_go_errors.md) — the agent listed it itself\n"
        (store / "MEMORY.md").write_text(agent)
        before = commits(store)
        await pilot.press("i")
        await settle(app, pilot)
        assert isinstance(app.screen, ChangedDialog)
        assert (store / "MEMORY.md").read_text() == agent and commits(store) == before
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and not screen.decisions
        assert "MEMORY.md changed on disk" in screen.refusal
        now = screen.current()
        assert now is not None and now.kind == "unindexed"
        assert sorted(now.paths) == ["feedback_pr_titles.md", "feedback_sql_style.md"]  # as the store is now
        await pilot.press("i")  # a new try acts on the index as it is now
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["index"]
        assert (store / "MEMORY.md").read_text().startswith(agent)


async def test_d_drops_the_broken_links_line_in_one_commit(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        while screen.current() is not None and screen.current().kind != "broken-link":  # type: ignore[union-attr]
            await pilot.press("s")
        card = screen.current()
        assert card is not None
        assert "drop_link" in live(screen) and "index_add" not in live(screen)
        link = card.paths[0]
        assert f"]({link})" in (demo / "MEMORY.md").read_text()
        before = git(demo.parent, "rev-parse", "HEAD").strip()
        await pilot.press("d")
        await settle(app, pilot)
        # one decision (the demo's uncommitted agent writes are recorded first, on their own)
        actions = git(demo.parent, "log", "--format=%(trailers:key=Memtui-Action,valueonly)", f"{before}..HEAD")
        assert actions.split() == ["drop-link"], actions
        assert head(demo)["Memtui-Action"] == ["drop-link"] and head(demo)["Memtui-Link"] == [link]
        assert f"]({link})" not in (demo / "MEMORY.md").read_text()
        assert git(demo.parent, "show", "--name-only", "--format=", "HEAD").split() == ["memory/MEMORY.md"]
        assert not any(c.kind == "broken-link" and c.paths == (link,) for c in screen.left())
        assert [d.action for d in screen.decisions] == ["line dropped"]


async def test_the_over_cap_card_lists_the_memories_the_agent_cannot_see(make_store: Callable[..., Path]) -> None:
    files = {f"m{i}.md": memory(f"m{i}") for i in range(202)}
    index = "# Index\n" + "".join(f"- [M{i}](m{i}.md) — hook\n" for i in range(202))
    store = make_store(files, in_git=True, index=index)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        while screen.current() is not None and screen.current().kind != "index-over-cap":  # type: ignore[union-attr]
            await pilot.press("s")
        assert screen.current() is not None
        shown = str(screen.query_one("#single-text").render())
        assert "line 201" in shown and "m199.md" in shown and "line 203" in shown and "m201.md" in shown, shown
        assert "m198.md" not in shown


async def test_the_review_help_names_the_index_keys(make_store: Callable[..., Path]) -> None:
    store = make_store({**UNLISTED, **LISTED}, in_git=True, index=INDEX)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert isinstance(screen, ReviewScreen)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        assert "Add to index" in text and "Drop line" in text, text
        assert "load" in text  # the notes say when i is refused
