"""What the workstation shows at one moment: a store, its report and its repository. Never imports Textual.

Loading is split in two so the first screen comes fast on big stores: `open_store` reads the files and
computes badges; `analyse` adds git dates and every finding (it may run later, in a worker).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.analysis.check import FileDates, Report, check_store
from memtui.audit.history import honour_decisions
from memtui.audit.repo import Event, StoreRepo, try_open_repo
from memtui.core.errors import MemtuiError
from memtui.core.freshness import Freshness, assess
from memtui.core.model import Finding, Memory
from memtui.core.store import Store, load_store
from memtui.ops import heal


@dataclass(frozen=True)
class Workspace:
    """A loaded store plus, once analysed, its findings."""

    store: Store
    today: dt.date
    freshness: dict[str, Freshness] = field(hash=False)
    repo: StoreRepo | None = field(hash=False, default=None)
    report: Report | None = field(hash=False, default=None)
    policy: dict[str, int | None] | None = field(hash=False, default=None)
    """Days until stale per memory type (the person's settings); None: the built-in periods."""
    healed: tuple[str, ...] = ()
    """What opening the store finished or rolled back of an interrupted memtui decision (`ops.heal`'s notes)."""

    @property
    def analysed(self) -> bool:
        """Whether findings are known."""
        return self.report is not None

    def findings_for(self, path: str) -> list[Finding]:
        """Findings naming a memory (empty until analysed)."""
        return self.report.for_path(path) if self.report else []

    def partners(self, memory: Memory, kind: str) -> list[tuple[Finding, str]]:
        """(finding, other path) for each contradiction or duplicate the memory is part of."""
        out = []
        for f in self.findings_for(memory.path):
            if f.kind == kind and len(f.paths) == 2:
                out.append((f, f.paths[1] if f.paths[0] == memory.path else f.paths[0]))
        return out

    def own_repo(self) -> StoreRepo | None:
        """A repository handle for one thread's use: each worker (queue, preview history, history screen) reads
        git through its own, so no cache or state is shared across threads."""
        return try_open_repo(self.store.layout) if self.repo is not None else None

    def history(self, memory: Memory, limit: int = 20) -> list[Event]:
        """memtui's events about one memory, newest first."""
        return self.history_in_context(memory, limit)[0]

    def history_in_context(self, memory: Memory, limit: int = 20) -> tuple[list[Event], list[Event]]:
        """memtui's events about one memory, newest first, and the store's recent events they were read from
        (to tell which were undone later)."""
        repo = self.own_repo()
        if repo is None:
            return [], []
        rel = repo.rel(memory.abs_path)
        events = repo.history(limit=500)
        mine = [e for e in events if rel in e.memories or any(v == rel for vals in e.trailers.values() for v in vals)]
        return mine[:limit], events


def agent_sessions(ws: Workspace, limit: int = 500) -> dict[str, tuple[str, ...]]:
    """Per store path, the Claude Code sessions that wrote it since the last finished review, newest first.

    Read from the `Memtui-Session` trailer of the hook's agent-write commits; a write recorded without a
    session gives an empty tuple (its path is still a key), a write never recorded is not a key.
    """
    repo = ws.own_repo()
    if repo is None:
        return {}
    root = ws.store.layout.root
    out: dict[str, list[str]] = {}
    for event in repo.history(limit=limit):
        if event.action == "review":
            break
        if event.action != "agent-write":
            continue
        sessions = event.trailers.get("Memtui-Session", [])
        for name in event.memories:
            rel = Path(os.path.relpath(repo.work_tree / name, root)).as_posix()
            seen = out.setdefault(rel, [])
            seen += [s for s in sessions if s not in seen]
    return {path: tuple(sessions) for path, sessions in out.items()}


def open_store(
    path: Path,
    today: dt.date | None = None,
    policy: dict[str, int | None] | None = None,
    *,
    heal_first: bool = True,
) -> Workspace:
    """Read the store and badge every memory (dates from front matter or mtime); no findings yet.

    `policy` is `Settings.policy()` for this store: the days until a memory of each type is stale.
    First heals the store (`ops.heal`): what an interrupted memtui decision left is finished or rolled back.
    `heal_first=False` skips that for a re-read of a store this process already opened (after a decision,
    or when the agent wrote): every decision heals before it acts, so doing it on each re-read is work twice.
    """
    # a decision a kill interrupted is finished or rolled back before anything is shown
    healed = heal(path) if heal_first else ()
    today = today or dt.date.today()
    store = load_store(path)
    badges = {m.path: assess(m, today, policy=policy) for m in store.memories}
    repo = try_open_repo(store.layout)
    return Workspace(store=store, today=today, freshness=badges, repo=repo, policy=policy, healed=healed)


def analyse(ws: Workspace) -> Workspace:
    """Every finding, with git dates for files whose front matter has none; badges and the expired/stale
    findings follow the workspace's freshness policy (one pass of the check). A pair a person kept (keep-both),
    both texts unchanged since, is not flagged, nor a memory accepted as it is (`honour_decisions`)."""
    dates = ws.repo.file_dates_now(ws.today) if ws.repo else FileDates()
    history = ws.repo.lines_written if ws.repo else None
    report = check_store(ws.store, ws.today, dates, policy=ws.policy, line_history=history)
    if ws.repo is not None:
        try:
            report = honour_decisions(report, ws.repo.history(), ws.repo.work_tree)
        except MemtuiError:
            pass  # history unreadable: every pair stays flagged, none is hidden by mistake
    return Workspace(
        store=ws.store,
        today=ws.today,
        freshness=report.freshness,
        repo=ws.repo,
        report=report,
        policy=ws.policy,
        healed=ws.healed,
    )


def signature(path: Path) -> tuple[tuple[str, int, int], ...]:
    """A cheap fingerprint of the store on disk (names, sizes, mtimes) to notice the agent's writes."""
    out = []
    for root in load_signature_roots(path):
        if root.is_file():
            st = os.stat(root)
            out.append((str(root), st.st_size, st.st_mtime_ns))
            continue
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.endswith(".md"):
                    st = os.stat(os.path.join(dirpath, name))
                    out.append((os.path.join(dirpath, name), st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


def load_signature_roots(path: Path) -> list[Path]:
    """The folders whose changes matter: the loaded folder (or typed root) and the archive."""
    from memtui.core.store import detect_layout

    layout = detect_layout(path)
    roots = [layout.scan_root, layout.archive_dir]
    if layout.kind == "typed":
        roots.append(layout.root / "MEMORY.md")
    return roots
