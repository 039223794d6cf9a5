"""How long a scripted review of the demo store takes through Pilot, from the app's start to "review finished".

Issue #11's yardstick is a person's ten-minute review; this measures the machine's side of it: every card is
decided with the key a person would use (pairs kept, the agent's writes approved, expired and retired memories
archived, stale ones verified, list cards marked whole and verified in one commit), dialogs confirmed, and the
review marked finished in git. Cards about MEMORY.md itself have no memory to decide and are skipped.
It also times the diffs of the review's agent-write cards on a synthetic store whose every file the agent wrote
(before the first finished review all of them are new writes): one `git diff` a file, as it was, against one for
them all (`StoreRepo.diffs_since`), in the same run and checked to say the same.
Usage: python benchmarks/review_timing.py [--runs N] [--agent-files N]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_store  # noqa: E402

from memtui import ops  # noqa: E402
from memtui.audit.repo import open_repo  # noqa: E402
from memtui.core.store import detect_layout  # noqa: E402
from memtui.demo import make_demo_store  # noqa: E402
from memtui.review import Card  # noqa: E402
from memtui.tui.app import MemtuiApp  # noqa: E402
from memtui.tui.dialogs import ArchiveDialog, ConfirmDialog, FixDateDialog  # noqa: E402
from memtui.tui.pilot import settle  # noqa: E402
from memtui.tui.review import ReviewScreen  # noqa: E402

TODAY = dt.date(2026, 11, 30)
ARCHIVED = frozenset({"expired", "archived-but-loaded", "superseded-loaded", "secret"})


def keys_for(card: Card, screen: ReviewScreen) -> tuple[str, ...]:
    """The key(s) a person would press to decide this card."""
    if screen.is_pair(card):
        return ("b",)
    if card.is_bulk:
        return ("x", "v")
    if card.kind in ARCHIVED:
        return ("a",)
    if not card.paths or screen.memory(card.paths[0]) is None:
        return ("s",)  # about MEMORY.md or a missing file: nothing in the store to decide
    return ("v",)


async def review(store: Path, size: tuple[int, int] = (140, 40)) -> dict[str, object]:
    """Run the review of `store` start to finish; the wall time and what was pressed."""
    start = time.perf_counter()
    app = MemtuiApp(store, today=TODAY, watch_interval=0)
    pressed: Counter[str] = Counter()
    skipped: list[str] = []
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, limit=3000)
        await pilot.press("r")
        await settle(app, pilot, limit=3000)
        screen = app.screen
        assert isinstance(screen, ReviewScreen), type(screen)
        cards = len(screen.cards)
        for _ in range(4 * cards + 10):  # bounded: every card moves on after its key, a refusal is skipped
            card = screen.current()
            if card is None:
                break
            before = (screen.index, card)
            for key in keys_for(card, screen):
                await pilot.press(key)
                pressed[key] += 1
            for _ in range(3):  # the dialog the key opened, then a secret's explicit yes
                await settle(app, pilot, limit=3000)
                if isinstance(app.screen, ArchiveDialog | FixDateDialog):
                    await pilot.press("enter")
                elif isinstance(app.screen, ConfirmDialog):
                    await pilot.press("y")
                else:
                    break
            await settle(app, pilot, limit=3000)
            if app.screen is not screen:
                raise RuntimeError(f"stuck on {type(app.screen).__name__} at {card.kind} {card.paths}")
            if (screen.index, screen.current()) == before:
                skipped.append(f"{card.kind} {' '.join(card.paths)}: {screen.refusal}"[:120])
                await pilot.press("s")  # refused: a person would read why and move on
                pressed["s"] += 1
        await pilot.press("enter")
        await settle(app, pilot, limit=3000)
        finished = screen.finished and "Review finished" in str(screen.query_one("#summary-text").render())
        wall = time.perf_counter() - start
        return {
            "wall_s": round(wall, 2),
            "cards": cards,
            "commits": screen._commit_count(),
            "looked": len(screen.looked),
            "finished": finished,
            "keys": dict(pressed),
            "skipped": skipped,
        }


def agent_diffs(count: int) -> dict[str, object]:
    """The agent-write cards' diffs of `count` files the agent wrote: one git call a file against one in all."""
    with tempfile.TemporaryDirectory() as tmp:
        store = make_store(Path(tmp), count)
        ops.init(store)
        files = sorted(p for p in store.glob("*.md") if p.name != "MEMORY.md")
        for path in files:
            path.write_text(path.read_text(encoding="utf-8") + "\nThe agent added this.\n", encoding="utf-8")
        ops.record_agent_write(store)
        repo = open_repo(detect_layout(store))
        base = repo.first_commit()
        assert base is not None
        paths = [repo.rel(p) for p in files]
        start = time.perf_counter()
        one_by_one = {p: d for p in paths if (d := repo.diff_since(base, p))}
        middle = time.perf_counter()
        one_call = repo.diffs_since(base, paths)
        end = time.perf_counter()
        if one_call != one_by_one:
            raise RuntimeError("one git diff for all the files said something else than one a file")
        return {
            "agent_files": count,
            "git_calls_before": len(paths),
            "git_calls_after": 1,
            "one_by_one_s": round(middle - start, 3),
            "one_call_s": round(end - middle, 3),
            "ratio": round((middle - start) / max(end - middle, 1e-9), 1),
        }


def main() -> None:
    """Time the agent-write diffs both ways, then the scripted review a few times on fresh demo stores (median)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--agent-files", type=int, default=500, help="files in the agent-write diff timing (0: skip)")
    args = parser.parse_args()
    if args.agent_files:
        print(json.dumps(agent_diffs(args.agent_files)))
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(asyncio.run(review(make_demo_store(TODAY, parent=Path(tmp)))))
            print(json.dumps(runs[-1]))
    walls = [float(str(r["wall_s"])) for r in runs]
    if walls:
        print(json.dumps({"median_wall_s": round(statistics.median(walls), 2), "max_wall_s": max(walls)}))


if __name__ == "__main__":
    main()
