"""Issue 11, the review: groups you can steer, bulk cards and marks, why a card is there, the weaker pairs.

Real stores in temp folders under real git, the real app through Pilot; each test fails on the review as it was
(one flat list of cards, one card per lint finding, no marks, no claim marked, held-back pairs never shown).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

from conftest import git, memory
from textual.binding import Binding
from textual.widgets import Input, SelectionList

from memtui import ops
from memtui.audit.repo import parse_trailers
from memtui.review import GROUP_NUMBER, GROUPS, finding_count
from memtui.tui.app import MemtuiApp
from memtui.tui.dialogs import ArchiveDialog
from memtui.tui.pilot import settle
from memtui.tui.review import ReviewScreen
from memtui.tui.review_card import CLAIM_STYLE

TODAY = dt.date(2026, 11, 30)
SIZE = (140, 40)


def make_app(store: Path) -> MemtuiApp:
    return MemtuiApp(store, today=TODAY, watch_interval=0)


async def open_review(app: MemtuiApp, pilot) -> ReviewScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def text_of(screen: ReviewScreen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def head(store: Path) -> dict[str, list[str]]:
    return parse_trailers(git(store.parent, "log", "-1", "--format=%B"))


def commits(store: Path) -> int:
    return int(git(store.parent, "rev-list", "--count", "HEAD").strip())


# ---------------------------------------------------------------------------------------------- item 1


async def test_the_queue_is_in_groups_with_counts_and_the_header_says_where_you_are(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        seen = [c.group for c in screen.cards]
        order = [g for g in GROUPS if g in seen]
        assert seen == sorted(seen, key=order.index), "cards come group by group, in the order of GROUPS"
        assert order[:8] == ["pairs", "agent", "expired", "stale", "dates", "secrets", "index", "schema"]
        pairs = seen.count("pairs")
        assert text_of(screen, "#card-header").startswith(f"pairs 1 / {pairs} · {len(screen.cards)} cards left")
        bar = text_of(screen, "#card-groups")
        assert bar.startswith(f"1 pairs {pairs} · 2 agent {seen.count('agent')} · 3 expired 1 · 4 stale")
        await pilot.press("s", "s")  # skipped cards are still to decide: no count moves
        assert text_of(screen, "#card-header").startswith(f"pairs 3 / {pairs} · {len(screen.cards)} cards left")
        await pilot.press("p")  # a step back, to the card just skipped
        assert screen.index == 1 and text_of(screen, "#card-header").startswith(f"pairs 2 / {pairs}")
        await pilot.press("n")  # the next group
        assert screen.current().group == "agent"  # type: ignore[union-attr]
        assert text_of(screen, "#card-header").startswith(f"agent 1 / {seen.count('agent')}")
        await pilot.press("4")  # the group numbered 4 in the bar
        assert screen.current().group == "stale"  # type: ignore[union-attr]
        await pilot.press("p")
        assert screen.current().group == "expired"  # type: ignore[union-attr]


async def test_a_kind_filter_shows_one_group_and_cycles_back_to_all(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        stale = [c for c in screen.cards if c.group == "stale"]
        for _ in range(4):  # pairs, agent, expired, stale
            await pilot.press("slash")
        assert screen.only == "stale" and screen.current() == stale[0]
        assert "only stale (/)" in text_of(screen, "#card-header")
        visited = []
        while screen.only == "stale":
            visited.append(screen.current())
            await pilot.press("s")
        assert visited == stale, "skip visits the filtered kind only"
        # the end of one kind is not the end of the review: the filter lifts and every kind is back
        assert screen.only is None and screen.current() == screen.cards[0]
        assert "finish" not in screen.active_bindings


async def test_a_marked_row_differs_from_an_unmarked_one_without_colour(make_store: Callable[..., Path]) -> None:
    """Textual's selection list draws `X` in every box, marked or not, and leaves the difference to colour."""
    files = {f"ref_{n}.md": memory(f"ref_{n}", "reference", body=f"Ask Mia about topic {n}.") for n in range(3)}
    store = make_store(files, in_git=True, index="".join(f"- [ref_{n}](ref_{n}.md) — ref {n}\n" for n in range(3)))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        [card] = [c for c in screen.cards if c.kind == "schema"]
        screen.index = screen.cards.index(card)
        screen.show_card()
        await pilot.pause(0.1)
        listing = screen.query_one("#bulk-list", SelectionList)
        await pilot.press("space")  # marks the first row
        await pilot.pause(0.1)
        rows = [listing.render_line(y).text for y in range(3)]
    assert rows[0].startswith("▐X▌") and all(r.startswith("▐ ▌") for r in rows[1:]), rows


async def test_lint_of_one_rule_is_one_card_listing_every_memory(make_store: Callable[..., Path]) -> None:
    topics = ["billing graphs", "oncall pager", "design reviews", "release calendar", "vendor contracts"]
    files = {f"ref_{n}.md": memory(f"ref_{n}", "reference", body=f"Ask Mia about {t}.") for n, t in enumerate(topics)}
    index = "".join(f"- [ref_{n}](ref_{n}.md) — ref {n}\n" for n in range(5))
    store = make_store(files, in_git=True, index=index)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        [card] = [c for c in screen.cards if c.kind == "schema"]
        assert card.is_bulk and sorted(card.paths) == sorted(files) and "5 memories" in card.title
        assert finding_count([card]) == 5, "a bulk card still counts each memory it lists"
        screen.index = screen.cards.index(card)
        screen.show_card()
        await pilot.pause(0.1)
        listing = screen.query_one("#bulk-list", SelectionList)
        assert listing.option_count == 5 and screen.focused is listing
        await pilot.press("space", "down", "space")
        await pilot.pause(0.1)
        assert len(screen.marks) == 2 and "2 marked" in text_of(screen, "#card-header")
        before = commits(store)
        await pilot.press("a")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ArchiveDialog)
        app.screen.query_one(Input).value = "dashboards moved"
        await pilot.press("enter")
        await settle(app, pilot)
        assert commits(store) == before + 1, "one commit for the bulk decision"
        trailers = head(store)
        assert len(trailers["Memtui-Memory"]) == 2 and trailers["Memtui-Reason"] == ["dashboards moved"]
        assert not screen.marks
        [left] = [c for c in screen.cards if c.kind == "schema" and c not in screen.decided()]
        assert len(left.paths) == 3 and screen.current() == left, "the card follows the store: 3 memories left"
        await pilot.press("x", "v")  # mark the whole list, verify them all at once
        await settle(app, pilot)
        assert commits(store) == before + 2 and len(head(store)["Memtui-Memory"]) == 3
        await pilot.press("u")  # undo only the bulk verify
        await settle(app, pilot)
        assert commits(store) == before + 3 and screen.current() is not None and screen.current().is_bulk


async def test_marks_across_single_cards_decide_in_one_commit(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("4")
        first, second = [c for c in screen.cards if c.group == "stale"][:2]
        await pilot.press("space", "space")  # mark and move on, twice
        assert screen.marks == {first.paths[0], second.paths[0]}
        assert "2 marked" in text_of(screen, "#card-header")
        await pilot.press("space")  # the third is marked, then unmarked
        await pilot.press("p", "space")
        assert len(screen.marks) == 2
        before = commits(demo)
        await pilot.press("v")
        await settle(app, pilot)
        actions = git(demo.parent, "log", f"-{commits(demo) - before}", "--format=%(trailers:key=Memtui-Action)")
        assert actions.split().count("Memtui-Action:") and actions.count("verify") == 1, "one commit verifies both"
        assert sorted(p.rsplit("/", 1)[-1] for p in head(demo)["Memtui-Memory"]) == sorted(
            [first.paths[0], second.paths[0]]
        )
        stale_left = {c.paths[0] for c in screen.cards if c.kind == "stale" and c not in screen.decided()}
        assert first.paths[0] not in stale_left and second.paths[0] not in stale_left and not screen.marks


# ---------------------------------------------------------------------------------------------- item 2


def _filler(n: int) -> str:
    return "\n\n".join(f"Background note {i} about the release train and its owners." for i in range(n))


async def test_a_pair_card_marks_both_claims_and_scrolls_a_long_memory_to_its_claim(
    make_store: Callable[..., Path],
) -> None:
    older = memory(
        "package_manager",
        description="Package manager for the web app",
        body=_filler(40)
        + "\n\nAlways use npm for the web app packages.\n\n**Why:** lockfile.\n\n**How to apply:** ci.",
        updated="2026-10-01",
    )
    newer = memory(
        "package_manager_bun",
        description="Package manager for the web app is now bun",
        body="We moved away from npm: use bun for the web app packages.\n\n**Why:** speed.\n\n**How to apply:** ci.",
        updated="2026-11-20",
    )
    store = make_store({"a.md": older, "b.md": newer}, in_git=True)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and screen.is_pair(card), [c.kind for c in screen.cards]
        await pilot.pause(0.3)
        for side, role in (("a", "older"), ("b", "newer")):
            claim = str(card.details[f"{role}_claim"])
            content = screen.query_one(f"#side-{side}-text").render()
            marked = [content.plain[s.start : s.end] for s in content.spans if s.style == CLAIM_STYLE]
            assert marked and any(claim.split()[1] in m for m in marked), (role, claim, marked)
        assert screen.query_one("#side-a").scroll_y > 20, "the long older memory opens at its claim"
        assert screen.query_one("#side-b").scroll_y == 0


async def test_a_single_card_says_what_rule_raised_it(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("4")
        card = screen.current()
        assert card is not None and card.kind == "stale"
        fresh = screen.ws.freshness[card.paths[0]]
        memory_type = screen.ws.store.get(card.paths[0]).type  # type: ignore[union-attr]
        assert fresh.since is not None
        want = f"why: {memory_type} memory, {fresh.period_days}-day period, last confirmed {fresh.since.isoformat()}"
        explain = text_of(screen, "#card-explain")
        assert want in explain and "from" in explain.split(want)[1], explain


# ---------------------------------------------------------------------------------------------- item 4


async def test_held_back_pair_candidates_are_counted_and_shown_on_request(make_store: Callable[..., Path]) -> None:
    a = memory(
        "a",
        description="Use Jetpack Compose for new screens",
        body="Use Jetpack Compose for all new Android screens.",
        updated="2026-01-01",
    )
    b = memory(
        "b",
        description="Screens are reviewed by design",
        body="New screens are reviewed by the design team before merge.",
        updated="2026-02-01",
    )
    store = make_store({"a.md": a, "b.md": b}, in_git=True)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert not any(c.weaker for c in screen.cards)
        assert "1 weaker pair held back (w)" in text_of(screen, "#card-header")
        assert screen.check_action("weaker", ())  # offered: there is one to add
        await pilot.press("w")
        await pilot.pause(0.1)
        card = screen.current()
        assert card is not None and card.weaker and card.group == "weaker" and screen.is_pair(card)
        assert text_of(screen, "#card-header").startswith("weaker 1 / 1")
        assert "0 weaker 1" in text_of(screen, "#card-groups"), "the tenth group's digit is 0"
        await pilot.press("g", "0")  # to the first card still to decide, and back by the weaker group's digit
        await pilot.pause(0.1)
        assert screen.current() is card
        await pilot.press("b")  # keep both: decided like any pair
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["keep-both"] and screen.current() is None


async def test_with_nothing_held_back_the_weaker_key_is_not_offered(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert screen.ws.report is not None and not screen.ws.report.held_back
        assert not screen.check_action("weaker", ())
        assert "weaker" not in [b.action for b in screen.live_bindings() if isinstance(b, Binding)]


# ---------------------------------------------------------------------------------------------- #11 item 7


async def test_an_edit_in_the_review_refused_because_the_file_changed_keeps_the_typed_text(demo: Path) -> None:
    from textual.widgets import TextArea

    from memtui.tui.dialogs import EditDialog, KeptEditDialog

    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await pilot.press("4")  # a stale card: one memory
        card = screen.current()
        assert card is not None and card.kind == "stale"
        await pilot.press("e")
        await pilot.pause(0.3)
        assert isinstance(app.screen, EditDialog)
        area = app.screen.query_one(TextArea)
        area.text = area.text.rstrip("\n") + "\nStill true in December.\n"
        path = demo / card.paths[0]
        path.write_text(path.read_text() + "The agent adds a line meanwhile.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, KeptEditDialog), type(app.screen)
        assert "Still true in December." in app.screen.query_one("#kept-typed", TextArea).text
        assert "Still true in December." not in path.read_text()


async def test_the_header_counts_one_finding_in_the_singular(make_store: Callable[..., Path]) -> None:
    body = "Merges freeze before each release.\n\n**Why:** releases.\n\n**How to apply:** hold merges."
    stale = memory("project_freeze", "project", description="Merge freeze", body=body, updated="2025-01-01")
    store = make_store({"project_freeze.md": stale}, in_git=True, index="- [Freeze](project_freeze.md) — freeze\n")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        header = text_of(screen, "#card-header")
        assert "1 finding," in header or "1 finding)" in header, header
        assert "1 findings" not in header and "0 new writes" in header


# ---------------------------------------------------------------------------------------------- one story


def counts(app: MemtuiApp, screen: ReviewScreen) -> tuple[int, int, int, dict[str, tuple[int, int]]]:
    """(left, findings, new writes, {group: (digit, cards left)}) as the review shows them, checked to agree with
    each other and with the main screen's header."""
    header = text_of(screen, "#card-header")
    said = re.search(r" (\d+) cards? left \((\d+) findings?, (\d+) new writes?\)", header)
    assert said is not None, header
    left, findings, new = (int(n) for n in said.groups())
    bar = {g: (int(digit), int(n)) for digit, g, n in re.findall(r"(\d) (\w+) (\d+)", text_of(screen, "#card-groups"))}
    assert left == len(screen.left()) == sum(n for _, n in bar.values())
    assert new == bar.get("agent", (2, 0))[1]
    assert all(digit == GROUP_NUMBER[g] for g, (digit, _) in bar.items())
    main = str(app.main_screen.query_one("#header").render())
    assert f"{findings} finding{'s' if findings != 1 else ''} to review" in main
    assert (f"{new} new write" in main) == (new > 0)
    return left, findings, new, bar


async def test_the_counts_tell_one_story_through_skips_jumps_a_decision_and_the_agents_writes(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        start = counts(app, screen)
        assert start[0] == len(screen.cards) and start[3]["pairs"] == (1, 7)
        for keys, where in ((("s", "s"), "pairs 3 / 7"), (("4",), "stale 1 / "), (("n",), "dates 1 / 3")):
            await pilot.press(*keys)  # moving on decides nothing: no count moves, no group is renumbered
            await settle(app, pilot)
            assert text_of(screen, "#card-header").startswith(where) and counts(app, screen) == start
        await pilot.press("3", "a")  # archive the one expired memory
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"]
        left, findings, new, bar = counts(app, screen)
        assert left < start[0] and findings < start[1] and new == start[2]
        assert "expired" not in bar and bar["stale"][0] == 4 and bar["secrets"][0] == 6  # numbers kept
        # the agent writes a memory while the review is open, not committed yet: a new write like the others
        (demo / "feedback_meanwhile.md").write_text(
            memory(
                "feedback_meanwhile",
                body="Name Go test helpers after what they check.\n\n**Why:** x\n\n**How to apply:** y",
            ),
            encoding="utf-8",
        )
        with (demo / "MEMORY.md").open("a", encoding="utf-8") as index:
            index.write("- [Meanwhile](feedback_meanwhile.md) — test helper names\n")
        app.reload("disk")
        await settle(app, pilot)
        after = counts(app, screen)
        assert after[0] == left + 1 and after[2] == new + 1 and after[3]["agent"] == (2, new + 1)
        assert any(c.paths == ("feedback_meanwhile.md",) and c.kind == "new" for c in screen.left())


async def test_before_any_finished_review_the_agents_uncommitted_writes_are_new_writes(tmp_path: Path) -> None:
    from conftest import init_repo, write_files

    top = tmp_path / "proj"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [Rollout](project_rollout.md) — rollout\n- [Tabs](feedback_tabs.md) — tabs\n",
            "memory/project_rollout.md": memory("project_rollout", "project", updated="2026-01-05"),
            "memory/feedback_tabs.md": memory(
                "feedback_tabs", body="Indent Go with tabs.\n\n**Why:** gofmt.\n\n**How to apply:** always."
            ),
        },
    )
    init_repo(top)
    store = top / "memory"
    (store / "user_fresh.md").write_text(memory("user_fresh", "user", body="User reads diffs in a pager."))
    with (store / "MEMORY.md").open("a", encoding="utf-8") as index:
        index.write("- [Fresh](user_fresh.md) — pager\n")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert counts(app, screen)[:3] == (2, 1, 1)
        assert text_of(screen, "#card-groups") == "2 agent 1 · 4 stale 1"
        await pilot.press("4", "v")  # verify the stale memory: the agent's write is recorded first, as its own
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["verify"]
        assert parse_trailers(git(top, "log", "-1", "--format=%B", "HEAD~1"))["Memtui-Actor"] == ["agent"]
        await pilot.press("2")  # back to the agent's write, skipped
        left, findings, new, bar = counts(app, screen)
        assert (left, findings, new) == (1, 0, 1) and bar == {"agent": (2, 1)}  # committed, and still new


async def test_an_approved_write_the_agent_rewrites_during_the_review_comes_back_as_a_card(tmp_path: Path) -> None:
    from conftest import init_repo, write_files

    top = tmp_path / "proj"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [Tabs](feedback_tabs.md) — tabs\n",
            "memory/feedback_tabs.md": memory(
                "feedback_tabs", body="Indent Go with tabs.\n\n**Why:** gofmt.\n\n**How to apply:** always."
            ),
        },
    )
    init_repo(top)
    store = top / "memory"
    fresh = store / "user_fresh.md"
    fresh.write_text(memory("user_fresh", "user", body="User reads diffs in a pager."))
    with (store / "MEMORY.md").open("a", encoding="utf-8") as index:
        index.write("- [Fresh](user_fresh.md) — pager\n")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert [c.paths for c in screen.left() if c.kind == "new"] == [("user_fresh.md",)]
        await pilot.press("2", "v")  # approve the agent's write
        await settle(app, pilot)
        assert head(store)["Memtui-Action"] == ["verify"]
        assert not [c for c in screen.left() if c.kind == "new"]
        # the agent rewrites the memory it wrote, while the review is still open
        fresh.write_text(fresh.read_text(encoding="utf-8") + "\nUser now prefers side-by-side diffs.\n")
        app.reload("disk")
        await settle(app, pilot)
        back = [c for c in screen.left() if c.kind == "new"]
        assert [c.paths for c in back] == [("user_fresh.md",)], "the new write is a card of its own"
        assert "side-by-side" in back[0].diff


async def test_a_pair_archived_in_the_review_and_restored_outside_it_comes_back_as_a_card(demo: Path) -> None:
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        card = screen.current()
        assert card is not None and card.kind == "contradiction"
        pair = set(card.paths)
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["archive"]
        archived = head(demo)["Memtui-Memory"][0].split("/", 1)[1]
        assert not [c for c in screen.left() if set(c.paths) == pair]
        # the person restores it from the history screen (or the CLI) while the review is open
        ops.restore(demo, f"../memory.archive/{archived}")
        app.reload("disk")
        await settle(app, pilot)
        assert [c.kind for c in screen.left() if set(c.paths) == pair] == ["contradiction"], (
            "the conflict is live again"
        )
