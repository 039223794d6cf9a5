"""Review sessions: the queue of what needs a decision since the last finished review, and revoked rules."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memtui.analysis.check import Report
from memtui.analysis.lint import NO_FRONT_MATTER
from memtui.audit.history import undone_commits
from memtui.audit.repo import Event, StoreRepo
from memtui.core.model import Finding, Memory
from memtui.core.store import NOT_MEMORIES, Store
from memtui.ops import ACCEPT_DELETION, RESTORED_FROM_GIT, UNDOABLE

GROUPS = ("pairs", "agent", "expired", "stale", "dates", "secrets", "index", "schema", "other", "weaker")
"""The review's groups, in queue order: pairs, the agent's writes since the last review, freshness, relative dates
(days a reader can no longer tell), secrets, index and schema lint, the rest, and (on request) the held-back weaker
pair candidates."""
GROUP_NUMBER = {group: number % 10 for number, group in enumerate(GROUPS, 1)}
"""Each group's digit key (`0` for the tenth): the same in every review, so a group keeps its number while others
empty."""
GROUP_OF = {
    "contradiction": "pairs",
    "duplicate": "pairs",
    "new": "agent",
    "deleted": "agent",
    "expired": "expired",
    "stale": "stale",
    "secret": "secrets",
    "unindexed": "index",
    "broken-link": "index",
    "broken-wikilink": "index",
    "duplicate-entry": "index",
    "index-over-cap": "index",
    "schema": "schema",
    "malformed": "schema",
    "relative-date": "dates",
}
ONE_PER_CUE = frozenset({"relative-date", "broken-wikilink"})
"""Kinds of which one memory may have several cards, one for each phrase or link target (`Card.cue`)."""
BULK_KINDS = frozenset({"schema", "unindexed", "broken-wikilink"})
"""Lint whose findings of one rule become one card listing every memory (decided in bulk), not a card each (a
wikilink's rule is its target: the memories that link to one missing or archived memory)."""
UNCOUNTED = frozenset({"unindexed", "long-index-line"})
"""Index hygiene: shown (unindexed as one card), but not part of the finding count."""
SETTLING = frozenset({"verify", "edit"})
"""A person's decisions that settle what the agent wrote before them: approved (verify stamps it) or rewritten
(edit). A merge, a date fixed or a pair kept leave the agent's write to review."""


@dataclass(frozen=True)
class Card:
    """One thing to decide in a review: a finding, or a memory the agent added or changed."""

    kind: str
    """A finding kind, or `new` for what the agent wrote since the last review, `deleted` for a memory it deleted."""
    paths: tuple[str, ...]
    title: str
    explanation: str
    finding: Finding | None = None
    diff: str = ""
    cue: str = ""
    details: dict[str, object] = field(default_factory=dict, hash=False, compare=False)
    members: tuple[Finding, ...] = ()
    """On a bulk card, every finding of its rule (one per memory, in `paths` order); empty on other cards."""
    weaker: bool = False
    """A held-back pair candidate (below the shown threshold), shown only on request."""
    text: str = ""
    """On a `deleted` card, the memory's text as last committed: what the card shows, and what `R` writes back."""

    @property
    def group(self) -> str:
        """The queue group this card belongs to (one of `GROUPS`)."""
        return "weaker" if self.weaker else GROUP_OF.get(self.kind, "other")

    @property
    def is_bulk(self) -> bool:
        """A card that lists several memories under one rule."""
        return bool(self.members)

    @property
    def key(self) -> tuple[str, frozenset[str], bool]:
        """What the card is about (kind, memories, held back or not), whatever its text says as the store changes."""
        return self.kind, frozenset(self.paths), self.weaker


@dataclass(frozen=True)
class Tally:
    """The review's numbers, every one counted from the same cards: those still to decide, skipped ones included.

    The review's header (`pairs 2 / 5 · 30 cards left (24 findings, 6 new writes)`), its group line (`1 pairs 5 ·
    2 agent 6 …`) and the main screen's header read them here, so they always agree: a skip or a jump moves the
    cursor and changes no count; a decision takes its card (and the cards it made moot) out.
    """

    left: int
    """Cards still to decide."""
    findings: int
    """`finding_count` of those cards."""
    new_writes: int
    """Those that are the agent's writes (the `agent` group)."""
    groups: tuple[tuple[int, str, int], ...]
    """(digit, group, cards left) of each group with a card left, in queue order."""
    place: tuple[str, int, int] | None
    """The current card's group, its place among that group's cards left, and how many those are."""


def tally(cards: Sequence[Card], decided: Collection[Card] = (), current: Card | None = None) -> Tally:
    """The numbers of a review over `cards`, of which `decided` are done, with the cursor on `current`."""
    left = [c for c in cards if c not in decided]
    per_group = Counter(c.group for c in left)
    place = None
    if current is not None:
        same = [c for c in cards if c.group == current.group and (c not in decided or c is current)]
        place = (current.group, same.index(current) + 1 if current in same else 1, len(same))
    return Tally(
        left=len(left),
        findings=finding_count(left),
        new_writes=per_group["agent"],
        groups=tuple((GROUP_NUMBER[g], g, per_group[g]) for g in GROUPS if per_group[g]),
        place=place,
    )


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
    """Everything that needs a decision, in the order of `GROUPS`; one card per lint rule where it flags several."""
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
    # before the first finished review, everything the agent wrote since the repository began is unreviewed
    since = review.commit if review is not None else repo.first_commit() if repo is not None else None
    if repo is not None and since is not None:
        for rel, diff in changed_since(repo, since, report):
            m = memories.get(rel)
            if m is None and _deleted_memory(report, rel):
                # changed_since leaves out what memtui moved away (archive, merge): gone from disk here is the
                # agent's deletion
                why = (
                    "deleted by the agent since the last review (its last committed text is below); R brings it "
                    "back as it was, v accepts the deletion"
                )
                name = repo.rel(report.store.layout.root / rel)
                text = _text(repo.last_version(name))
                cards.append(Card("deleted", (rel,), Path(rel).stem, why, diff=diff, text=text))
                continue
            if m is None or not m.is_active:
                continue
            cards.append(Card("new", (rel,), m.title, _written_explained(m), diff=diff))
    rest = [f for f in report.findings if f.kind not in ("contradiction", "duplicate", "long-index-line")]
    rest.sort(key=lambda f: (f.severity != "error", f.kind))
    by_rule: dict[tuple[str, str], list[Finding]] = {}
    for f in rest:
        if f.kind in BULK_KINDS and f.paths:
            by_rule.setdefault((f.kind, f.cue), []).append(f)
    for f in rest:
        group = by_rule.get((f.kind, f.cue), [])
        if len(group) > 1:
            if f is group[0]:
                cards.append(bulk_card(group))
            continue
        title = memories[f.paths[0]].title if f.paths and f.paths[0] in memories else (f.paths or ("MEMORY.md",))[0]
        cards.append(Card(f.kind, f.paths, title, _explained(f), f, cue=f.cue, details=dict(f.details)))
    order = {g: i for i, g in enumerate(GROUPS)}
    cards.sort(key=lambda c: order[c.group])  # stable: within a group, the order above
    return cards


def _deleted_memory(report: Report, rel: str) -> bool:
    """Whether a path the agent changed is a memory of the loaded folder that is gone from disk."""
    layout = report.store.layout
    path = layout.root / rel
    return not path.exists() and path.resolve().is_relative_to(layout.scan_root) and path.name not in NOT_MEMORIES


def _written_explained(memory: Memory) -> str:
    """What an agent write's card says: written since the last review; and when it cannot be approved (a file
    that cannot be read, or one without front matter to stamp), why, as `memtui check` says it, and what works."""
    said = "written by the agent since the last review"
    if memory.is_malformed:
        return f"{said}; it cannot be read: {memory.error} — e (or E) fixes it in $EDITOR, a archives it"
    if not memory.has_frontmatter:
        return (
            f"{said}; it has no front matter, so it cannot be approved (memtui never adds front matter): e to add "
            "front matter, a archives it"
        )
    return said


def _explained(finding: Finding) -> str:
    """What a single card says: the finding's message; on a schema card, also what settles it (v accepts the
    memory as it is, unless it has no front matter to verify); on a wikilink, the keys that fix it; on
    index-over-cap, also the memories the agent does not see (their index lines are past the cap), the first few by
    name (the card's body lists them all)."""
    if finding.kind == "broken-wikilink":
        return f"{finding.message} — {_relink_keys(finding, 'it')}"
    if finding.kind == "schema":
        if finding.cue.startswith(NO_FRONT_MATTER):
            return (
                f"{finding.message} — it cannot be verified (memtui never adds front matter): e to add front "
                "matter, a archives it"
            )
        return (
            f"{finding.message} — v accepts it as it is (its format, not that it is still true: nothing is stamped; the card comes back only if the memory changes), "
            "e edits it, a archives it"
        )
    names = [target for _, target, _ in unloaded(finding)]
    if not names:
        return finding.message
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    many = "memory" if len(names) == 1 else "memories"
    return f"{finding.message}; the agent does not see the index lines of {len(names)} {many}: {shown}"


def unloaded(finding: Finding | None) -> list[tuple[int, str, str]]:
    """(line, link target, title) of each index line past the load cap, as an index-over-cap finding names them."""
    raw = finding.details.get("unloaded") if finding is not None and finding.kind == "index-over-cap" else None
    return [(int(u["line"]), str(u["target"]), str(u["title"])) for u in raw or [] if isinstance(u, dict)]


def relink_to(finding: Finding | None) -> str:
    """The link a wikilink finding offers to write instead (`[[name]]` of the live memory it most likely means, or
    of the archived memory's successor); "" when it offers none."""
    if finding is None or finding.kind != "broken-wikilink":
        return ""
    return str(finding.details.get("suggested_link") or "")


def successor_named(store: Store, reason: str, archived: str) -> str | None:
    """The live memory an archive reason names as the successor ("superseded by deploy-tooling", "replaced by
    feedback_deploy_bun.md"), by its name or file name; None when it names none (or the memory being archived). A
    reason typed so records the successor as the one memtui suggests does (`Memtui-Superseded-By`)."""
    low = reason.strip().lower()
    said = next((low[len(p) :].strip() for p in ("superseded by ", "replaced by ") if low.startswith(p)), "")
    if not said:
        return None
    for m in store.memories:
        if m.is_active and m.path != archived and said in {m.path.lower(), m.stem.lower(), (m.name or "").lower()}:
            return m.path
    return None


def relinking(card: Card | None) -> Finding | None:
    """The finding of a wikilink card whose suggestion `l` writes: on a list card, the first of its memories that
    offers one (the memory a link names is never offered to itself, so the first listed may offer none)."""
    if card is None:
        return None
    return next((f for f in (card.members or (card.finding,)) if relink_to(f)), None)


def _relink_keys(finding: Finding, which: str) -> str:
    """What fixes a wikilink card: l writes the link it offers, e edits the memory (rewrite or drop the link)."""
    to = relink_to(finding)
    edit = f"e edits {'the one under the cursor' if which != 'it' else 'it'} (point the link elsewhere, or drop it)"
    if not to:
        return edit
    return f"l links {which} to [[{to}]] instead (alias and #heading kept), in one commit; {edit}"


def bulk_card(findings: Sequence[Finding]) -> Card:
    """One card for every memory a lint rule flags (e.g. 12 memories without **How to apply:**)."""
    first = findings[0]
    rule = "not listed in MEMORY.md" if first.kind == "unindexed" else first.cue
    mark = f"{len(findings)} memories break this rule: mark some (space) or all (x), then a archives"
    if first.kind == "broken-wikilink":
        archived = first.details.get("archived")
        rule = f"link to [[{first.cue}]], " + (f"archived ({archived})" if archived else "which no memory is named")
        keys = _relink_keys(next((f for f in findings if relink_to(f)), first), "the marked (else all of them)")
    elif first.kind == "unindexed":  # its own fix: i adds their index lines
        keys = f"{mark} or v verifies the marked in one commit; i adds their lines to MEMORY.md (the marked ones, else all)"
    elif first.cue.startswith(NO_FRONT_MATTER):  # nothing to stamp: memtui never adds front matter
        keys = f"{mark} the marked in one commit; e edits the one under the cursor, to add front matter"
    else:
        keys = (
            f"{mark} the marked in one commit, or v accepts the marked as they are (their format: nothing is stamped; each comes back "
            "only if it changes); e edits the one under the cursor"
        )
    return Card(
        first.kind,
        tuple(f.paths[0] for f in findings),
        f"{len(findings)} memories: {rule}",
        keys,
        first,
        cue=first.cue,
        members=tuple(findings),
    )


def held_back_cards(report: Report) -> list[Card]:
    """The weaker pair candidates (`Report.held_back`), strongest first, as cards of the `weaker` group."""
    memories = {m.path: m for m in report.store.memories}
    out = []
    for f in report.held_back:
        if len(f.paths) != 2 or not all(p in memories for p in f.paths):
            continue
        titles = " ↔ ".join(memories[p].title for p in f.paths)
        score = f" (score {f.score:.2f}, below the shown threshold)" if f.score is not None else ""
        out.append(Card(f.kind, f.paths, titles, f.message + score, f, cue=f.cue, details=dict(f.details), weaker=True))
    return out


def finding_count(cards: Sequence[Card]) -> int:
    """The one count of findings that need a decision: the review's cards that come from a finding.

    The header, the review and `check`'s summary use this; index hygiene (unindexed, long index lines) and
    pairs a person already kept are not counted, and the agent's new writes are counted apart.
    """
    return sum(len(c.members) or 1 for c in cards if c.finding is not None and c.kind not in UNCOUNTED and not c.weaker)


def current_card(card: Card, queue: Sequence[Card]) -> Card | None:
    """The card as the store is now (same kind, same memories), or None when it no longer needs a decision.

    A bulk card follows its rule: it is the rule's card now, with the memories that still break it.
    """
    want = set(card.paths)
    if card.is_bulk:
        rule = [c for c in queue if c.kind == card.kind and c.cue == card.cue and (c.is_bulk or set(c.paths) <= want)]
        return rule[0] if rule else None
    same = [c for c in queue if c.key == card.key]
    if card.kind in ONE_PER_CUE:
        # another phrase of the same memory is another card: fixing "tomorrow" must not take "next Tuesday" with it
        return next((c for c in same if c.cue == card.cue), None)
    return next(
        (c for c in same if c.explanation == card.explanation),
        next((c for c in same if c.cue == card.cue), same[0] if same else None),  # one memory, two schema rules
    )


def date_left(card: Card, queue: Sequence[Card]) -> Card | None:
    """After a relative date of `card` was fixed, the same phrase in the same memory still to fix, as `queue` (the
    store as it is now) has it: said again counted from another day (another dated heading), which `ops.fix_date`
    leaves for its own decision. A fix that leaves one does not close its card: it follows the store, showing the
    occurrence left, until none is."""
    if card.kind != "relative-date" or card.is_bulk:
        return None
    phrase = card.cue.lower()
    return next((c for c in queue if c.key == card.key and c.cue.lower() == phrase), None)


def review_record(events: Sequence[Event], ours: Mapping[str, str], cards: int) -> str:
    """What a finished review records: its own decisions by what they did (`ours`: commit → the review's word for
    it), those still standing (not undone since), then every other decision committed since the last finished
    review (on the panes, from the CLI, in a review memtui was closed in), so the record leaves none out.

    `events` are the store's history as the review ends, newest first."""
    undone = undone_commits(events)
    since: list[Event] = []
    for event in events:
        if event.action == "review":
            break
        if event.commit not in undone:
            since.append(event)
    standing = {e.commit for e in since}
    mine = Counter(action for commit, action in ours.items() if commit in standing)
    other = Counter(e.action for e in since if e.commit not in ours and e.action in UNDOABLE)
    n = sum(mine.values())
    text = "Review: " + (", ".join(f"{k} {a}" for a, k in sorted(mine.items())) or "nothing committed")
    text += f" ({n} commit{'' if n == 1 else 's'}); {cards} card{'' if cards == 1 else 's'}."
    if other:
        m = sum(other.values())
        listed = ", ".join(f"{k} {a}" for a, k in sorted(other.items()))
        text += f" Also decided since the last finished review, outside this review: {m} commit{'' if m == 1 else 's'} ({listed})."
    return text


def changed_since(repo: StoreRepo, commit: str, report: Report) -> list[tuple[str, str]]:
    """(store path, diff) of memory files the agent changed since a commit (the last finished review, else the
    repository's first), including uncommitted writes, and not settled by a person since.

    Only the agent's writes count: every file a `Memtui-Actor: agent` commit after `commit` wrote (`Event.memories`,
    also those its trailers leave unnamed), and files changed on disk and not yet committed; the diff shows only
    what those wrote (`agent_diff`). A write a person approved or rewrote after it (`SETTLING`) is decided: it leaves
    the queue for good, not just for one screen. A file gone from disk is here only when the agent deleted it and no
    person accepted that deletion since (`ops.accept_deletion`, a commit that touches no file, so matched to the
    deletion by its place in history): one memtui moved away (archived, merged away, an undo) is a person's
    decision, whatever the agent wrote before it. A deletion memtui wrote back (`ops.bring_back`) and every undo
    with the decision it took back are as if they never were (`_agent_history`): what is left is what the agent
    wrote before them, if anything.
    """
    events = repo.history()
    undone = undone_commits(events)
    after: dict[str, Event] = {}
    names: list[str] = []
    for event in events:
        if event.commit == commit:
            break
        after[event.commit] = event
        if event.action == "agent-write":
            names += event.memories
    place = {sha: n for n, sha in enumerate(after)}  # newest first
    accepted: dict[str, int] = {}  # file → the newest deletion a person accepted (its place in history)
    for sha, event in after.items():
        if event.action == ACCEPT_DELETION and sha not in undone:
            for name in event.memories:
                accepted.setdefault(name, place[sha])
    uncommitted = repo.changed_paths()
    pending = set(uncommitted)
    out = []
    seen = set()
    root = report.store.layout.root
    by_path = repo.commits_by_path(commit)  # one git call, not one a file: a store may hold hundreds of them
    unsettled: list[tuple[str, list[str]]] = []
    for name in [*names, *uncommitted]:
        if not name.endswith(".md") or name in seen:
            continue
        seen.add(name)
        touching = _agent_history(by_path.get(name, []), after, undone)
        if name not in pending:
            if not any(_by_agent(sha, after) for sha in touching) or _settled(touching, after):
                continue
            gone = not (repo.work_tree / name).exists()
            if gone and not (_by_agent(touching[0], after) and accepted.get(name, len(place)) > place[touching[0]]):
                continue  # moved away by memtui after the agent's write, or a deletion accepted since
        unsettled.append((name, touching))
    # the files only the agent wrote are diffed since `commit` in one git call, as `agent_diff` would one by one
    diffs = repo.diffs_since(commit, [name for name, touching in unsettled if _only_agent(touching, after)])
    for name, touching in unsettled:
        rel = Path(os.path.relpath(repo.work_tree / name, root)).as_posix()
        out.append((rel, agent_diff(repo, commit, name, touching, after, uncommitted=name in pending, diffs=diffs)))
    return out


def _agent_history(touching: Sequence[str], events: Mapping[str, Event], undone: Collection[str]) -> list[str]:
    """The commits that touched a file (newest first) that still say what happened to it: without the decisions
    undone and the undos that took them back (each undo comes right after its decision, as it refuses a file
    written since), and without a deletion by the agent together with the bring-back that wrote the file back as
    it was before it (`ops.bring_back`: `Memtui-Restored-From: git`). Each pair left out changed nothing in the
    end, so the diffs of what is left are still what the agent wrote. An undo of a decision older than these
    commits stays: it changed the file, and it was not the agent."""
    kept: list[str] = []
    dropped: set[str] = set()
    for sha in reversed(touching):  # oldest first: a bring-back cancels the deletion just before it
        event = events.get(sha)
        if sha in undone:
            dropped.add(sha)
            continue
        if event is not None and event.action == "undo" and dropped & set(event.trailers.get("Memtui-Reverts", [])):
            continue
        brought_back = event is not None and event.action == "restore" and _from_git(event)
        if brought_back and kept and _by_agent(kept[-1], events):
            kept.pop()
            continue
        kept.append(sha)
    return kept[::-1]


def _from_git(event: Event) -> bool:
    """A restore that wrote a deleted memory back from git (`ops.bring_back`), not one from the archive."""
    return event.trailers.get("Memtui-Restored-From") == [RESTORED_FROM_GIT]


def _settled(touching: Sequence[str], events: Mapping[str, Event]) -> bool:
    """Whether, of the commits that touched a file (newest first), a person's settling decision came after the
    agent's last write."""
    for sha in touching:
        event = events.get(sha)
        if event is not None and event.action == "agent-write":
            return False
        if event is not None and event.action in SETTLING:
            return True
    return False


def _by_agent(sha: str, events: Mapping[str, Event]) -> bool:
    """Whether a commit is the agent's write (recorded by memtui or its hook)."""
    return (event := events.get(sha)) is not None and event.action == "agent-write"


def _only_agent(touching: Sequence[str], events: Mapping[str, Event]) -> bool:
    """Whether every one of the commits that touched a file is the agent's write (none at all included)."""
    return all(_by_agent(sha, events) for sha in touching)


def agent_diff(
    repo: StoreRepo,
    since: str,
    name: str,
    touching: Sequence[str],
    events: Mapping[str, Event],
    *,
    uncommitted: bool,
    diffs: Mapping[str, str] | None = None,
) -> str:
    """What the agent changed in one file since `since`: its commits (`touching`, newest first, undone ones left
    out) and an uncommitted write. Where only the agent wrote it, that is the diff since `since` (from `diffs`,
    `StoreRepo.diffs_since` of many files at once, when given: a file it leaves out has none); where memtui's own
    decisions (a merge into it, a date fixed…) or other commits came between, each run of the agent's changes is
    diffed on its own, from the version before it, so no text memtui wrote is shown as the agent's."""
    agent = [_by_agent(sha, events) for sha in touching]
    if all(agent):
        diff = diffs.get(name, "") if diffs is not None else repo.diff_since(since, name)
        return diff or _untracked_diff(repo.work_tree / name)
    runs: list[tuple[str, str | None]] = []  # (the commit before the run, the run's last commit; None: on disk)
    start: str | None = None
    end: str | None = None
    for sha, by_agent in reversed(list(zip(touching, agent, strict=True))):
        if by_agent:
            start, end = start or f"{sha}^", sha
        elif start is not None:
            runs.append((start, end))
            start = None
    if uncommitted:
        runs.append((start or "HEAD", None))
    elif start is not None:
        runs.append((start, end))
    parts: list[str] = []
    for before, last in runs:
        old = _text(repo.show(before, name))
        new = _disk_text(repo.work_tree / name) if last is None else _text(repo.show(last, name))
        parts += difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}", lineterm="")
    return "\n".join(parts)


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff") if data is not None else ""


def _disk_text(path: Path) -> str:
    try:
        return _text(path.read_bytes())
    except OSError:
        return ""


def _untracked_diff(path: Path) -> str:
    try:
        return "\n".join("+" + line for line in path.read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return ""
