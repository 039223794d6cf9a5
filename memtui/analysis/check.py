"""The whole check of a store: every finding kind, in one pass, without writing anything."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from memtui.analysis import dates as reldates
from memtui.analysis import lint, wikilinks
from memtui.analysis.relations import MemoryText, find_relations, prepare
from memtui.analysis.written import LineWritten, WritingDates
from memtui.core.errors import MemtuiError
from memtui.core.freshness import Freshness, assess, explicit_date, to_date
from memtui.core.model import WARNING, Finding, FindingKind, Memory
from memtui.core.store import Store, gc_paused

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class FileDates:
    """What git (or the file system) says about when each file was first and last written."""

    first: Mapping[str, dt.date] = field(default_factory=dict)
    last: Mapping[str, dt.date] = field(default_factory=dict)
    source: str = "mtime"
    """`git` when the dates come from commits."""
    added: Mapping[str, dt.date] = field(default_factory=dict)
    """Files memtui's `init` put under git, with that day: written on or before it, nobody knows when. Their
    first commit is no writing date, and the init is not in `last` (a file nothing wrote since has no last day)."""
    pending: Mapping[str, dt.date] = field(default_factory=dict)
    """Files written since the last commit (the agent's write not yet recorded), with the day that is taken for
    it: the day memtui would record it, as the commit it makes before any decision says."""


@dataclass(frozen=True)
class Report:
    """Everything `memtui check` knows about a store on one day."""

    store: Store
    today: dt.date
    freshness: dict[str, Freshness]
    findings: tuple[Finding, ...]
    held_back: tuple[Finding, ...] = ()
    """Weaker contradiction/duplicate candidates, below the precision threshold: not in `findings`, shown on
    request (each has `held_back=True`, a `score` and the same fields as a shown pair), strongest first."""
    kept: tuple[Finding, ...] = ()
    """Contradiction/duplicate findings of pairs a person kept (a keep-both decision, both texts unchanged since):
    not in `findings` nor `held_back`, said apart (`memtui.audit.history.honour_kept_pairs` sets them)."""
    accepted: tuple[Finding, ...] = ()
    """Schema findings of memories a person accepted as they are (a verify that said so, the memory unchanged since
    apart from its stamp): not in `findings`, said apart (`memtui.audit.history.honour_accepted` sets them)."""

    def for_path(self, path: str) -> list[Finding]:
        """Findings that name a memory."""
        return [f for f in self.findings if path in f.paths]

    @property
    def has_errors(self) -> bool:
        """Whether any finding has severity `error` (exit code 1)."""
        return any(f.severity == "error" for f in self.findings)


def memory_text(memory: Memory, date: dt.date | None) -> MemoryText:
    """The comparison form of a memory."""
    return prepare(
        memory.path, memory.name or memory.stem, memory.description, memory.body, date.isoformat() if date else ""
    )


def relation_findings(memories: list[Memory], dates: dict[str, dt.date]) -> list[Finding]:
    """Contradictions and duplicates among active, readable memories, held-back candidates included (flagged),
    and a `superseded-loaded` finding for each memory that says of itself it is historical or superseded."""
    docs = [memory_text(m, dates.get(m.path)) for m in memories]
    out = []
    for rel in find_relations(docs):
        claims = ""
        if rel.older_claim and rel.newer_claim:
            claims = f' "{_cut(rel.older_claim)}" ({rel.older}) vs "{_cut(rel.newer_claim)}" ({rel.newer}).'
        if rel.kind == FindingKind.CONTRADICTION:
            # without two claims to quote, say what the pair shares: the cue is already in the parentheses
            about = f" both about {', '.join(rel.shared[:4])}." if rel.shared else ""
            message = (
                f"{rel.older} and {rel.newer} (newer) may conflict ({rel.cue}):{claims or about} "
                f"If the newer one holds, archive {rel.older} as superseded."
            )
        else:
            message = (
                f"{rel.older} and {rel.newer} say the same thing:{claims or ' ' + rel.explanation + '.'} Merge them."
            )
        out.append(
            Finding(
                FindingKind(rel.kind),
                WARNING,
                (rel.older, rel.newer),
                message,
                score=rel.score,
                cue=rel.cue,
                details={
                    "shared": list(rel.shared),
                    "older": rel.older,
                    "newer": rel.newer,
                    "older_claim": rel.older_claim,
                    "newer_claim": rel.newer_claim,
                },
                held_back=rel.held_back,
            )
        )
    by_name: dict[str, str] | None = None  # built when a memory says it is superseded: nearly never
    for m, d in zip(memories, docs, strict=True):
        if d.superseded:
            if by_name is None:
                by_name = {k: o.path for o in memories for k in (o.stem.lower(), (o.name or "").lower()) if k}
            successor = _successor(m, by_name)
            paths = (d.key, successor) if successor else (d.key,)
            replaced = f" by {successor}" if successor else ""
            out.append(
                Finding(
                    FindingKind.SUPERSEDED_LOADED,
                    WARNING,
                    paths,
                    f'{d.key} says it is superseded{replaced} ("{d.superseded}") but is still loaded: Claude Code '
                    "still recalls it beside what replaced it. Archive it, or, if part of it still holds (a rule kept "
                    "from it), edit out what was superseded.",
                    cue=d.superseded,
                    details={"successor": successor} if successor else {},
                )
            )
    return out


def conflicts_among(memories: Sequence[Memory]) -> list[Finding]:
    """The contradictions memtui would show among these memories, judged as they stand together without the rest
    of the store (so a conflict a big store's crowd holds back can still be named here): what merging them as
    they are would paper over."""
    readable = [m for m in memories if not m.is_malformed]
    days = {m.path: d for m in readable if (d := explicit_date(m)[0] or _created(m)) is not None}
    return [f for f in relation_findings(readable, days) if f.kind == FindingKind.CONTRADICTION and not f.held_back]


STRONG_CONFLICT = 0.8
"""Probability from which a contradiction is strong enough to refuse a merge that would keep both sides."""


def strong_conflict(finding: Finding) -> bool:
    """Whether a contradiction is one to refuse a merge over: it names what conflicts, and quotes the two claims
    or has a probability of at least `STRONG_CONFLICT`."""
    if finding.cue == "same content":
        return False
    d = finding.details
    return bool(d.get("older_claim") and d.get("newer_claim")) or (finding.score or 0.0) >= STRONG_CONFLICT


# Link targets are bounded (a memory's name is short): an unbounded run let `](](](…` cost quadratic time.
_LINK = re.compile(r"\[\[([^\]|#\[]{1,256})|\]\(([^)#\s\]]{1,256}?)(?:\.md)?\)")


def _successor(memory: Memory, by_name: dict[str, str]) -> str:
    """The memory a superseded note points to first (a [[link]] or a Markdown link to another memory)."""
    head = memory.description + "\n" + memory.body[:1500]
    for wiki, md in _LINK.findall(head):
        target = (wiki or md).strip().rsplit("/", 1)[-1].lower()
        target = target[:-3] if target.endswith(".md") else target
        path = by_name.get(target)
        if path and path != memory.path:
            return path
    return ""


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


LineHistory = Callable[
    [Mapping[str, Sequence[reldates.LineQuestion]], Mapping[str, dt.date]],
    Mapping[str, Mapping[reldates.LineQuestion, LineWritten]],
]
"""Git's line history (`StoreRepo.lines_written`): for each memory asked about, when each of its relative dates
asked about was written on its line; given the memories written since the last commit (`FileDates.pending`)."""

PARALLEL_MIN = 2000
"""From this many memories, a command-line check runs the per-file lint in a second process."""

_FORKED: tuple[Store, dict[str, Freshness], Mapping[str, WritingDates], dt.date] | None = None


def check_store(
    store: Store,
    today: dt.date,
    file_dates: FileDates | None = None,
    *,
    policy: Mapping[str, int | None] | None = None,
    parallel: bool = False,
    line_history: LineHistory | None = None,
) -> Report:
    """Run every check on a loaded store.

    `policy` is the person's freshness periods (`Settings.policy()`: days until a memory of each type is
    stale; None: the built-in `POLICY_DAYS`); badges and the stale/expired findings follow it.
    `parallel` (for the command line, never from a thread) runs the per-file lint in a forked process while
    this one pairs memories: on big stores that halves the part that is not reading and parsing.
    `line_history` is asked, once, about the relative dates whose day the file's own dates leave open (a file
    changed after its first commit): the commit that wrote each on its line says (`reldates.line_questions`).
    """
    with gc_paused():
        report = _check_store(
            store, today, file_dates or FileDates(), None if policy is None else dict(policy), parallel
        )
    if line_history is None:
        return report
    return _with_line_history(report, file_dates or FileDates(), line_history)


def _lint(
    store: Store, badges: dict[str, Freshness], known: Mapping[str, WritingDates], today: dt.date
) -> list[Finding]:
    findings: list[Finding] = []
    findings += lint.malformed(store.memories)
    findings += lint.schema(store.memories)
    findings += lint.freshness(store.memories, badges, today)
    findings += lint.relative_dates(store.memories, known, today)
    findings += lint.secret_findings(store.memories, store.index.text if store.index else None)
    findings += lint.index_health(store)
    findings += wikilinks.broken_wikilinks(store)
    findings += lint.archived_but_loaded(store.memories)
    return findings


def _lint_forked() -> list[Finding]:
    assert _FORKED is not None
    return _lint(*_FORKED)


def _check_store(
    store: Store, today: dt.date, file_dates: FileDates, policy: dict[str, int | None] | None, parallel: bool
) -> Report:
    badges: dict[str, Freshness] = {}
    newest: dict[str, dt.date] = {}
    for m in store.memories:
        # a write not committed yet is dated the day memtui records it (before any decision): a memory the agent
        # rewrote today was called stale until then, and fresh after
        fallback = file_dates.pending.get(m.path) or file_dates.last.get(m.path)
        added = None if fallback else file_dates.added.get(m.path)
        badges[m.path] = fresh = assess(m, today, fallback, "git" if fallback else "mtime", policy, added=added)
        newest[m.path] = fresh.since or added or dt.datetime.fromtimestamp(m.mtime or 0).date()
    known = WritingDatesOf(store.memories, file_dates)
    active = [m for m in store.memories if m.is_active and not m.is_malformed]
    if parallel and len(store.memories) >= PARALLEL_MIN and "fork" in multiprocessing.get_all_start_methods():
        global _FORKED
        _FORKED = (store, badges, known, today)  # the forked worker inherits it: nothing is pickled over
        try:
            with multiprocessing.get_context("fork").Pool(1) as pool:
                pending = pool.apply_async(_lint_forked)
                pairs = relation_findings(active, newest)
                findings = pending.get() + pairs
        finally:
            _FORKED = None
    else:
        findings = _lint(store, badges, known, today) + relation_findings(active, newest)
    held = sorted((f for f in findings if f.held_back), key=lambda f: (-(f.score or 0.0), f.paths))
    findings = [f for f in findings if not f.held_back]
    findings.sort(key=_order)
    return Report(store=store, today=today, freshness=badges, findings=tuple(findings), held_back=tuple(held))


def _with_line_history(report: Report, file_dates: FileDates, line_history: LineHistory) -> Report:
    """`report` with the relative dates of the memories whose findings say their day is not known counted again,
    from what git's line history says of each line (one call for all of them); as it was when git cannot say."""
    open_paths = {
        f.paths[0] for f in report.findings if f.kind == FindingKind.RELATIVE_DATE and not f.details.get("base_certain")
    }
    if not open_paths:
        return report
    memories = {m.path: m for m in report.store.memories if m.path in open_paths}
    known = {path: writing_dates(m, file_dates) for path, m in memories.items()}
    hits = {path: reldates.memory_hits(m, known[path], report.today) for path, m in memories.items()}
    asks = {path: asked for path, m in memories.items() if (asked := reldates.line_questions(m, hits[path]))}
    if not asks:
        return report
    try:
        answers = line_history(asks, file_dates.pending)
    except MemtuiError:
        return report  # history unreadable: the findings say the day is not known, as they did
    told = {
        path: reldates.told_by_lines(memories[path], hits[path], known[path], answers.get(path, {})) for path in asks
    }
    again = lint.relative_dates([memories[path] for path in asks], told, report.today)
    kept = [f for f in report.findings if not (f.kind == FindingKind.RELATIVE_DATE and f.paths[0] in asks)]
    return replace(report, findings=tuple(sorted([*kept, *again], key=_order)))


class WritingDatesOf(Mapping[str, WritingDates]):
    """`writing_dates` of each memory, worked out the first time it is asked for: only memories that may hold a
    relative date ask (computing them for all 10,000 memories of a store was a tenth of `check`)."""

    def __init__(self, memories: Sequence[Memory], file_dates: FileDates) -> None:
        self._memories = {m.path: m for m in memories}
        self._file_dates = file_dates
        self._known: dict[str, WritingDates] = {}

    def __getitem__(self, path: str) -> WritingDates:
        if path not in self._known:
            self._known[path] = writing_dates(self._memories[path], self._file_dates)
        return self._known[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._memories)

    def __len__(self) -> int:
        return len(self._memories)


def _order(finding: Finding) -> tuple[int, str, int, tuple[str, ...]]:
    """How a report lists its findings: worst first, then by kind, line and paths."""
    return (SEVERITY_ORDER.get(finding.severity, 3), finding.kind, finding.line or 0, finding.paths)


def _created(memory: Memory) -> dt.date | None:
    return to_date(memory.field_value("created"))


WRITING_KEYS = ("created", "updated", "modified", "timestamp")
"""Front-matter keys that say when a memory was written (`last_verified` says when it was checked, not written)."""


def writing_dates(memory: Memory, file_dates: FileDates) -> WritingDates:
    """What is known about when a memory was written besides its text: front-matter dates, its writing commits
    (memtui's init is none: it only put the file under git), and its mtime."""
    front = tuple((key, day) for key in WRITING_KEYS if (day := to_date(memory.field_value(key))) is not None)
    added = file_dates.added.get(memory.path)
    return WritingDates(
        front=front,
        first_commit=None if added else file_dates.first.get(memory.path),
        last_commit=file_dates.pending.get(memory.path) or file_dates.last.get(memory.path),
        added=added,
        mtime=dt.datetime.fromtimestamp(memory.mtime).date() if memory.mtime else None,
    )
