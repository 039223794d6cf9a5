"""Review sessions: the queue of what needs a decision since the last finished review, and revoked rules."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memtui.analysis.check import Report
from memtui.audit.repo import Event, StoreRepo
from memtui.core.model import Finding, Memory

REVOKING = ("archive", "merge")
DUPLICATE_PREFIX = "duplicate of "
"""An archive whose reason starts with this retired a duplicate (its twin stays): merged away, not revoked."""
QUEUE_ORDER = {"contradiction": 0, "duplicate": 0, "new": 1, "expired": 2, "stale": 3, "secret": 4}


def undone_commits(events: Sequence[Event]) -> set[str]:
    """The commits a later memtui undo reverted (the one home of this rule)."""
    return {sha for e in events if e.action == "undo" for sha in e.trailers.get("Memtui-Reverts", [])}


def is_duplicate_archive(event: Event) -> bool:
    """An archive that retired a duplicate whose twin stays (recorded with `duplicate of …` and a successor)."""
    return event.action == "archive" and event.reason.startswith(DUPLICATE_PREFIX) and bool(event.superseded_by)


def revoked_only(events: Sequence[Event]) -> list[Event]:
    """Events that retired a rule (archived or merged away), minus those later undone or restored.

    A duplicate archived beside its twin is not a revoked rule (the rule stays, once). `events` are newest
    first, so a restore seen before an archive of the same memory brought it back.
    """
    undone = undone_commits(events)
    restored: set[str] = set()
    out = []
    for e in events:
        if e.commit in undone:
            continue
        if e.action == "restore":
            restored.update(e.trailers.get("Memtui-Restored-From", []))
            restored.update(e.memories)
        elif e.action in REVOKING and not is_duplicate_archive(e):
            archived_to = set(e.trailers.get("Memtui-Archived-To", []))
            if (archived_to & restored) or (set(e.memories) & restored and e.action == "archive"):
                continue
            out.append(e)
    return out


@dataclass(frozen=True)
class Card:
    """One thing to decide in a review: a finding, or a memory the agent added or changed."""

    kind: str
    """A finding kind, or `new` for what the agent wrote since the last review."""
    paths: tuple[str, ...]
    title: str
    explanation: str
    finding: Finding | None = None
    diff: str = ""
    cue: str = ""
    details: dict[str, object] = field(default_factory=dict, hash=False, compare=False)


def last_review(events: Sequence[Event]) -> Event | None:
    """The newest finished review, if any."""
    return next((e for e in events if e.action == "review"), None)


def kept_pairs(events: Sequence[Event]) -> set[tuple[str, str, str]]:
    """(path, path, hashes) of pairs a person kept; still valid only while both files are unchanged."""
    undone = undone_commits(events)
    out = set()
    for e in events:
        if e.action == "keep-both" and e.commit not in undone and len(e.memories) == 2:
            out.add((e.memories[0], e.memories[1], e.trailers.get("Memtui-Hashes", [""])[0]))
    return out


def _same_file(trailer: str, store_path: str) -> bool:
    """A trailer path (store- or repository-relative) names this store path."""
    return trailer == store_path or trailer.endswith("/" + store_path)


def _pair_kept(finding: Finding, memories: dict[str, Memory], kept: set[tuple[str, str, str]]) -> bool:
    a, b = finding.paths[0], finding.paths[1]
    ma, mb = memories.get(a), memories.get(b)
    if ma is None or mb is None:
        return False
    for x, y, hashes in kept:
        if (_same_file(x, a) and _same_file(y, b)) or (_same_file(x, b) and _same_file(y, a)):
            ha, _, hb = hashes.partition(",")
            want = {ma.content_hash[:16], mb.content_hash[:16]}
            if {ha, hb} == want:
                return True
    return False


def build_queue(report: Report, repo: StoreRepo | None) -> list[Card]:
    """Everything that needs a decision: pairs first, then the agent's new writes, then expired/stale, then the rest."""
    events = repo.history() if repo else []
    kept = kept_pairs(events)
    if repo is not None:  # trailers name files relative to the repository (DESIGN §3); cards use store paths

        def store_rel(p: str) -> str:
            return Path(os.path.relpath(repo.work_tree / p, report.store.root)).as_posix()

        kept |= {(store_rel(x), store_rel(y), h) for x, y, h in kept}
    memories = {m.path: m for m in report.store.memories}
    cards: list[Card] = []
    for f in report.findings:
        if f.kind in ("contradiction", "duplicate"):
            if _pair_kept(f, memories, kept):
                continue
            titles = " ↔ ".join(memories[p].title if p in memories else p for p in f.paths)
            cards.append(Card(f.kind, f.paths, titles, f.message, f, cue=f.cue, details=dict(f.details)))
    review = last_review(events)
    if repo is not None and review is not None:
        for rel, diff in changed_since(repo, review.commit, report):
            m = memories.get(rel)
            if m is None or not m.is_active:
                continue
            cards.append(Card("new", (rel,), m.title, "written by the agent since the last review", diff=diff))
    rest = [f for f in report.findings if f.kind not in ("contradiction", "duplicate")]
    rank = {"expired": 0, "stale": 1, "secret": 2}
    rest.sort(key=lambda f: (rank.get(f.kind, 3), f.severity != "error", f.kind))
    for f in rest:
        if f.kind in ("unindexed", "long-index-line"):
            continue  # index hygiene is shown in the panes, not worth a card each
        title = (
            memories[f.paths[0]].title
            if f.paths and f.paths[0] in memories
            else (f.paths[0] if f.paths else "MEMORY.md")
        )
        cards.append(Card(f.kind, f.paths, title, f.message, f, cue=f.cue, details=dict(f.details)))
    return cards


def finding_count(cards: Sequence[Card]) -> int:
    """The one count of findings that need a decision: the review's cards that come from a finding.

    The header, the review and `check`'s summary use this; index hygiene (unindexed, long index lines) and
    pairs a person already kept are not counted, and the agent's new writes are counted apart.
    """
    return sum(1 for c in cards if c.finding is not None)


def current_card(card: Card, queue: Sequence[Card]) -> Card | None:
    """The card as the store is now (same kind, same memories), or None when it no longer needs a decision."""
    want = set(card.paths)
    same = [c for c in queue if c.kind == card.kind and set(c.paths) == want]
    return next((c for c in same if c.explanation == card.explanation), same[0] if same else None)


def changed_since(repo: StoreRepo, commit: str, report: Report) -> list[tuple[str, str]]:
    """(store path, diff) of memory files the agent changed since a commit, including uncommitted writes.

    Only the agent's writes count: files named by `Memtui-Actor: agent` commits after `commit`, and files changed
    on disk and not yet committed. A person's own decisions (verify, archive, merge…) are not the agent's news.
    """
    names: list[str] = []
    for event in repo.history():
        if event.commit == commit:
            break
        if event.action == "agent-write":
            names += event.memories
    names += repo.changed_paths()
    out = []
    seen = set()
    root = report.store.layout.root
    for name in names:
        if not name.endswith(".md") or name in seen:
            continue
        seen.add(name)
        rel = Path(os.path.relpath(repo.work_tree / name, root)).as_posix()
        diff = repo.diff_since(commit, name) or _untracked_diff(repo.work_tree / name)
        out.append((rel, diff))
    return out


def _untracked_diff(path: Path) -> str:
    try:
        return "\n".join("+" + line for line in path.read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return ""
