"""A new-user trial: "keep both" undone by memtui's own approval stamp (real git, the real app through Pilot)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import git
from test_review_flow import SIZE, TODAY, head, make_app, open_review
from test_review_trial import skip_to

from memtui.tui.pilot import settle

PAIR = ("feedback_small_prs.md", "feedback_small_prs_zh.md")


async def test_approving_a_write_of_a_kept_pair_does_not_bring_the_pair_back(demo: Path) -> None:
    """The person kept both of feedback_small_prs ↔ feedback_small_prs_zh (`b`), then approved the agent's write
    of feedback_small_prs_zh (`v`), which stamps `last_verified`: the pair came back in the review and in
    `check`, as if the text had changed."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await skip_to(screen, pilot, lambda c: c.kind == "duplicate" and set(c.paths) == set(PAIR))
        await pilot.press("b")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["keep-both"]
        await pilot.press("2")
        await settle(app, pilot)
        await skip_to(screen, pilot, lambda c: c.kind == "new" and c.paths == (PAIR[1],))
        await pilot.press("v")
        await settle(app, pilot)
        assert head(demo)["Memtui-Action"] == ["verify"] and "last_verified" in (demo / PAIR[1]).read_text()
        assert not [c for c in app.cards if set(c.paths) == set(PAIR)]  # the queue as the store is now
        assert not [c for c in screen.cards if set(c.paths) == set(PAIR) and c not in screen.decided()]
        await pilot.press("escape")
        await settle(app, pilot)
        screen = await open_review(app, pilot)
        assert not [c for c in screen.cards if set(c.paths) == set(PAIR) and c not in screen.decided()]
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(demo), "--today", TODAY.isoformat()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    kept = [line for line in out.stdout.splitlines() if PAIR[0] in line and PAIR[1] in line]
    assert [line.split()[0] for line in kept] == ["kept"], out.stdout
    assert git(demo.parent, "log", "-1", "--format=%s").startswith("memtui: verify")


async def test_keeping_both_records_what_the_person_did_not_a_verdict(demo: Path) -> None:
    """A new user kept both logs of a true contradiction as history (`b`): the commit said "Both kept: not a
    contradiction." and `memtui history` showed no reason at all."""
    app = make_app(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        await skip_to(screen, pilot, lambda c: c.kind == "duplicate" and set(c.paths) == set(PAIR))
        await pilot.press("b")
        await settle(app, pilot)
    body = git(demo.parent, "log", "-1", "--format=%B")
    assert "not a" not in body and "Kept both as they are (flagged as a duplicate)" in body, body
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "history", str(demo), "--json"], capture_output=True, text=True, timeout=120
    )
    assert json.loads(out.stdout)[0]["reason"] == "kept both as they are (flagged as a duplicate)"
