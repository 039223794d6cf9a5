"""What a second new-user trial of the review found (real git, real files, the real app through Pilot).

Each test failed on the code before its fix: a card for a file that cannot be read offered `e` and `v` that did
nothing, `v` on a list card took the whole card out with nothing written, the counts did not add up, an agent write
memtui had committed was said to be not yet recorded, and a refusal stayed on a card after its dialog was closed.
"""

from __future__ import annotations

from pathlib import Path

from conftest import git
from test_review_flow import SIZE, TODAY, head, open_review

from memtui.tui.app import MemtuiApp
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
            assert "approve" not in live(screen) and "edit" in live(screen), kind
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
