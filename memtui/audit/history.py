"""Reading memtui's history back from `git log` output: events (decisions with their trailers) and file dates;
and one `git diff` of many files split back into each file's patch.

Pure parsing of the NUL-separated text `StoreRepo` asks git for; running git and caching live in
`memtui.audit.repo`, the trailer text itself in `memtui.audit.trailers`.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.analysis.check import FileDates, Report
from memtui.analysis.written import LineWritten
from memtui.audit.trailers import AGENT_WRITE_NAMED, PATH_TRAILERS, TRAILER_PREFIX, parse_trailers, unescape_path
from memtui.core.model import Finding, Memory
from memtui.core.reading import unstamped_hash

HISTORY_FORMAT = "--format=%H%x00%aI%x00%an%x00%B"
"""The `git log -z` format `events_from_log` reads: id, author date, author, message."""
DATES_FORMAT = (
    "--format=%x01%cs%x02%H%x02%(trailers:key=Memtui-Action,key=Memtui-Reapplies,valueonly,separator=%x2C)"
    "%x02%(trailers:key=Memtui-Reverts,valueonly,separator=%x2C)"
    "%x03%(trailers:key=Memtui-Relinked,valueonly,separator=%x03)"
)
"""The `git log -z --name-only` format `dates_from_log` reads: a marked commit day, its id, memtui's action and
(on a redo) the commit it re-applies, (on an undo) the commits it reverts, the files it only rewrote links in (a
merge's `Memtui-Relinked`), then the files."""
REVOKING = ("archive", "merge")
"""memtui actions that retire a rule: archived, or merged away into another memory."""
DUPLICATE_PREFIX = "duplicate of "
"""An archive whose reason starts with this retired a duplicate (its twin stays): merged away, not revoked."""
PAIR_KINDS = ("contradiction", "duplicate")
"""The findings about a pair of memories that a keep-both decision answers."""
MOVES = frozenset({"archive", "restore", "undo", "redo"})
"""memtui actions that put back or move a file without writing new content: they do not make it newer (nor
does a redo, which puts back what its decision wrote)."""
SAME_MEANING = frozenset({"fix-date", "relink"})
"""memtui actions that write a file without changing what it says (a relative date written out as the day it
meant, a link pointed at the memory that replaced its target): not a newer writing date either, for its age or for
its other relative dates. A merge's other files, whose links it rewrote, are named in `Memtui-Relinked` trailers and
count the same."""


@dataclass(frozen=True)
class Event:
    """One memtui commit read back from history."""

    commit: str
    date: str
    author: str
    action: str
    memories: tuple[str, ...]
    reason: str
    superseded_by: str
    subject: str
    trailers: dict[str, list[str]] = field(hash=False, compare=False)

    @property
    def reapplies(self) -> str:
        """On a redo, the commit whose decision it applied again (the redo is recorded as that decision); else ""."""
        return self.trailers.get("Memtui-Reapplies", [""])[0]

    @property
    def by(self) -> str:
        """Who made the change, as history says it: `agent` for the agent's writes (memtui or its hook commits them
        under the person's git name, `Memtui-Actor: agent`), else the commit's author."""
        return "agent" if self.trailers.get("Memtui-Actor") == ["agent"] else self.author

    @property
    def memory(self) -> str:
        """The first memory the event is about."""
        return self.memories[0] if self.memories else ""

    def about(self, wanted: Sequence[str]) -> Event:
        """The same event labelled by the first of `wanted` it touched (history of one file names that file)."""
        for path in wanted:
            if path in self.memories and path != self.memory:
                return Event(
                    self.commit,
                    self.date,
                    self.author,
                    self.action,
                    (path, *[m for m in self.memories if m != path]),
                    self.reason,
                    self.superseded_by,
                    self.subject,
                    self.trailers,
                )
        return self

    def to_json(self, undone: Collection[str] = ()) -> dict[str, str | list[str] | bool]:
        """The shape of `memtui history --json`; `undone` are the commits a later undo took back (`undone_commits`),
        so an entry says whether it still stands, and an undo which commits it reverted."""
        return {
            "commit": self.commit,
            "date": self.date,
            "author": self.author,
            "by": self.by,
            "action": self.action,
            "memory": self.memory,
            "memories": list(self.memories),
            "reason": self.reason,
            "superseded_by": self.superseded_by,
            "reapplies": self.reapplies,
            "reverts": list(self.trailers.get("Memtui-Reverts", [])),
            "undone": self.commit in undone,
        }


def events_from_log(raw: str, paths: Sequence[str] = ()) -> list[Event]:
    """memtui's events from `git log -z HISTORY_FORMAT` output, newest first; other commits are left out.

    With `paths`, only events whose `Memtui-*` path trailers name one of them, labelled by that path.
    """
    fields = raw.split("\0")
    events = []
    for i in range(0, len(fields) - 3, 4):
        sha, date, author, body = fields[i].strip("\n"), fields[i + 1], fields[i + 2], fields[i + 3]
        trailers = parse_trailers(body)
        if not any(k.startswith(TRAILER_PREFIX) for k in trailers):
            continue
        events.append(
            Event(
                commit=sha,
                date=date,
                author=author,
                action=_action(trailers),
                memories=tuple(unescape_path(m) for m in trailers.get("Memtui-Memory", [])),
                reason=" ".join(trailers.get("Memtui-Reason", [])),
                superseded_by=" ".join(
                    trailers.get("Memtui-Superseded-By", []) + trailers.get("Memtui-Merged-Into", [])
                ),
                subject=body.splitlines()[0] if body else "",
                trailers=trailers,
            )
        )
    return events_about(events, paths) if paths else events


def events_about(events: Sequence[Event], paths: Sequence[str]) -> list[Event]:
    """The events whose memories or `Memtui-*` path trailers name one of `paths`, each labelled by that path."""
    wanted = list(paths)
    wanted_set = set(wanted)
    out = []
    for event in events:
        named = set(event.memories) | {
            unescape_path(v) for k, vals in event.trailers.items() if k in PATH_TRAILERS for v in vals
        }
        if named & wanted_set:
            out.append(event.about(wanted))
    return out


def agent_writes_named_in_part(events: Sequence[Event]) -> list[str]:
    """The agent-write commits whose trailers may not name every file they wrote (`AGENT_WRITE_NAMED`)."""
    return [e.commit for e in events if e.action == "agent-write" and len(e.memories) >= AGENT_WRITE_NAMED]


def with_files(events: Sequence[Event], files: Mapping[str, Sequence[str]]) -> list[Event]:
    """`events` with each commit in `files` naming every file git says it changed: those its trailers named first,
    in their order, then the rest in git's."""
    out = []
    for event in events:
        extra = [f for f in files.get(event.commit, ()) if f not in event.memories]
        out.append(replace(event, memories=(*event.memories, *extra)) if extra else event)
    return out


def undone_commits(events: Sequence[Event]) -> set[str]:
    """The commits a later memtui undo reverted."""
    return {sha for e in events if e.action == "undo" for sha in e.trailers.get("Memtui-Reverts", [])}


def is_duplicate_archive(event: Event) -> bool:
    """An archive that retired a duplicate whose twin stays (recorded with `duplicate of …` and a successor)."""
    return event.action == "archive" and event.reason.startswith(DUPLICATE_PREFIX) and bool(event.superseded_by)


def revoked_events(events: Sequence[Event], paths: Sequence[str] = ()) -> list[Event]:
    """The decisions that retired a rule (archived or merged away) still in force, each naming only the memories
    it retired that are still retired; `events` newest first, as `events_from_log` gives them (all of them: a
    restore of one memory decides what an archive of several still retires).

    Revoked-ness is per memory, not per commit: a batch archive of a.md and b.md followed by a restore of a.md
    still retired b.md, so it is kept, naming b.md alone. A decision later undone, or whose every memory was
    restored since, is left out; so is a duplicate archived beside its twin (the rule stays, once). A memory is
    matched to a restore by where the archive put it (`Memtui-Archived-To`, the restore's
    `Memtui-Restored-From`), or by its own path when the decision does not say (a merge).

    With `paths` (repository-relative), only the decisions that still retire one of them, or name one as what
    replaced them, labelled by that path (`Event.about`).
    """
    undone = undone_commits(events)
    restored: set[str] = set()
    out = []
    for e in events:
        if e.commit in undone:
            continue
        if e.action == "restore":
            restored.update(unescape_path(p) for p in e.trailers.get("Memtui-Restored-From", []))
            restored.update(e.memories)
        elif e.action in REVOKING and not is_duplicate_archive(e):
            moved_to = [unescape_path(p) for p in e.trailers.get("Memtui-Archived-To", [])]
            if len(moved_to) != len(e.memories):
                moved_to = list(e.memories)  # no archive path per memory: its own path says it was restored
            still = tuple(m for m, where in zip(e.memories, moved_to, strict=True) if where not in restored)
            if not still:
                continue
            if paths and not set(paths) & {*still, *_successors(e)}:
                continue
            kept = e if still == e.memories else replace(e, memories=still)
            out.append(kept.about(paths) if paths else kept)
    return out


def _successors(event: Event) -> set[str]:
    """The paths a decision names as what replaced its memories (`Memtui-Superseded-By`, `Memtui-Merged-Into`)."""
    keys = ("Memtui-Superseded-By", "Memtui-Merged-Into")
    return {unescape_path(v) for k in keys for v in event.trailers.get(k, [])}


@dataclass(frozen=True)
class KeptMemory:
    """One memory of a kept pair as it was when kept."""

    path: str
    """Repository-relative."""
    content_hash: str
    """The start of its `content_hash` (`Memtui-Hashes`)."""
    unstamped_hash: str
    """The start of its hash without memtui's verification stamp (`Memtui-Unstamped-Hashes`); "" when the
    decision predates that trailer."""

    def unchanged(self, memory: Memory) -> bool:
        """Whether `memory` still says what it said when kept: the same bytes, or the same text apart from
        memtui's verification stamp (a `verify` after keeping both is no change). A decision without unstamped
        hashes compares with its content hash, which is the unstamped one of a file that had no stamp then."""
        if memory.content_hash.startswith(self.content_hash):
            return True
        return unstamped_hash(memory).startswith(self.unstamped_hash or self.content_hash)


def kept_pairs(events: Sequence[Event]) -> list[tuple[KeptMemory, KeptMemory]]:
    """The pairs a person kept (keep-both decisions not undone), each memory as it was when kept (`Memtui-Memory`
    twice, `Memtui-Hashes: a,b`, and from later versions `Memtui-Unstamped-Hashes: a,b`)."""
    undone = undone_commits(events)
    out = []
    for e in events:
        if e.action != "keep-both" or e.commit in undone or len(e.memories) != 2:
            continue
        first, _, second = e.trailers.get("Memtui-Hashes", [""])[0].partition(",")
        bare_first, _, bare_second = e.trailers.get("Memtui-Unstamped-Hashes", [""])[0].partition(",")
        if first and second:
            out.append((KeptMemory(e.memories[0], first, bare_first), KeptMemory(e.memories[1], second, bare_second)))
    return out


def honour_kept_pairs(report: Report, events: Sequence[Event], work_tree: Path) -> Report:
    """`report` without the contradiction and duplicate findings of the pairs a person kept, while both memories
    are as they were when kept (an edit to either brings the finding back; memtui's verification stamp is no
    edit, `KeptMemory.unchanged`): they move to `Report.kept`.

    `check`, the main screen's flags and previews, and the review read this, so a kept pair is flagged nowhere.
    `events` are the store's memtui events; `work_tree` the repository's root (trailers name paths from it).
    """
    memories = {m.path: m for m in report.store.memories}

    def store_path(rel: str) -> str:
        return Path(os.path.relpath(work_tree / rel, report.store.root)).as_posix()

    kept: dict[frozenset[str], list[dict[str, KeptMemory]]] = {}
    for x, y in kept_pairs(events):
        pair = {store_path(x.path): x, store_path(y.path): y}
        kept.setdefault(frozenset(pair), []).append(pair)

    def is_kept(finding: Finding) -> bool:
        if finding.kind not in PAIR_KINDS or len(set(finding.paths)) != 2:
            return False
        now = {p: m for p in finding.paths if (m := memories.get(p)) is not None}
        if len(now) != 2:
            return False
        return any(all(was[p].unchanged(m) for p, m in now.items()) for was in kept.get(frozenset(now), []))

    if not kept or not any(is_kept(f) for f in (*report.findings, *report.held_back)):
        return report
    return replace(
        report,
        findings=tuple(f for f in report.findings if not is_kept(f)),
        held_back=tuple(f for f in report.held_back if not is_kept(f)),
        kept=report.kept + tuple(f for f in report.findings if is_kept(f)),
    )


def accepted_memories(events: Sequence[Event]) -> list[tuple[str, str, str]]:
    """(repository-relative path, finding kind, start of its hash without the verification stamp) of each memory a
    person accepted as it is (an accept, or a verify, with `Memtui-Accepted` trailers, not undone): its finding of that kind is
    settled for that version."""
    undone = undone_commits(events)
    out = []
    for e in events:
        if e.action not in ("verify", "accept") or e.commit in undone or "Memtui-Accepted" not in e.trailers:
            continue
        kind = e.trailers.get("Memtui-Accepted-Kind", [""])[0]
        hashes = e.trailers.get("Memtui-Accepted-Hashes", [""])[0].split(",")
        paths = [unescape_path(p) for p in e.trailers["Memtui-Accepted"]]
        out += [(p, kind, h) for p, h in zip(paths, hashes, strict=False) if kind and h]
    return out


def honour_accepted(report: Report, events: Sequence[Event], work_tree: Path) -> Report:
    """`report` without the schema findings of memories a person accepted as they are (`accepted_memories`),
    while each is as it was then apart from memtui's verification stamp: they move to `Report.accepted`. An edit
    brings the finding back."""
    accepted: dict[tuple[str, str], set[str]] = {}
    for rel, kind, bare in accepted_memories(events):
        store_path = Path(os.path.relpath(work_tree / rel, report.store.root)).as_posix()
        accepted.setdefault((store_path, kind), set()).add(bare)
    if not accepted:
        return report
    memories = {m.path: m for m in report.store.memories}

    def is_accepted(finding: Finding) -> bool:
        if len(finding.paths) != 1 or (memory := memories.get(finding.paths[0])) is None:
            return False
        hashes = accepted.get((memory.path, str(finding.kind)), set())
        return bool(hashes) and unstamped_hash(memory)[:16] in hashes

    settled = tuple(f for f in report.findings if is_accepted(f))
    if not settled:
        return report
    return replace(
        report,
        findings=tuple(f for f in report.findings if f not in settled),
        accepted=report.accepted + settled,
    )


def honour_decisions(report: Report, events: Sequence[Event], work_tree: Path) -> Report:
    """`report` without the findings a person's decisions settled while what they decided on is unchanged: pairs
    kept (`honour_kept_pairs`) and memories accepted as they are (`honour_accepted`). `check`, the main screen and
    the review read this."""
    return honour_accepted(honour_kept_pairs(report, events, work_tree), events, work_tree)


def dates_from_log(out: bytes, work_tree: Path, root: Path) -> FileDates:
    """First and last commit day of each file from `git log -z DATES_FORMAT --name-only` output, as paths
    relative to the store's `root`.

    A memory's last day is the last commit that wrote it, not memtui moving it: an archive undone or restored
    today keeps the day its content was written, so it stays as old (and as stale) as it was. Nor is it memtui's
    `init`, which put files under git that were written on some earlier day: those are in `added`, and a file
    nothing wrote since has no last day at all. Nor is it a decision that was undone (and not redone): a verify
    taken back leaves the memory as old as it was before it.
    """
    first: dict[str, dt.date] = {}
    last: dict[str, dt.date] = {}
    moved: dict[str, dt.date] = {}
    added: dict[str, dt.date] = {}
    undone: set[str] = set()
    redone: set[str] = set()
    current: dt.date | None = None
    is_move = is_init = False
    relinked: set[str] = set()
    for item in out.split(b"\0"):
        item = item.strip(b"\n")
        if not item:
            continue
        if item.startswith(b"\x01"):
            head, _, rest = item.partition(b"\n")
            current = dt.date.fromisoformat(head[1:11].decode())
            fields, *links = head[12:].decode(errors="replace").split("\x03")
            relinked = {unescape_path(link.strip()) for link in links if link.strip()}
            commit, _, tail = fields.partition("\x02")
            actions, _, reverts = tail.partition("\x02")
            action, _, reapplies = actions.strip().partition(",")
            # newest first: a redo is read before the undo it answers, an undo before the decision it takes back
            if action == "undo" and commit not in undone:
                undone.update(sha for sha in reverts.strip().split(",") if sha and sha not in redone)
            elif reapplies and commit not in undone:
                redone.add(reapplies.strip())
            is_move = action in MOVES or action in SAME_MEANING or bool(reapplies) or commit in undone
            is_init = action == "init"
            item = rest.strip(b"\n")
            if not item:
                continue
        if current is None:
            continue
        name = os.fsdecode(item)
        rel = Path(os.path.relpath(work_tree / name, root)).as_posix()
        (added if is_init else moved if is_move or name in relinked else last).setdefault(rel, current)
        first[rel] = current
    for rel, day in moved.items():
        if rel not in added:
            last.setdefault(rel, day)  # only ever moved by memtui: the move is all git knows
    return FileDates(first=first, last=last, source="git", added=added)


_PATCH_START = re.compile(rb"^diff --git ", re.MULTILINE)
"""Where each file's patch begins: every line inside a patch (context, `+`, `-`, `\\`, the extended headers)
starts otherwise."""


def patches_by_path(out: bytes) -> dict[str, bytes] | None:
    """Each file's patch in `git diff --patch-with-raw -z --no-renames` output, by its path relative to the work
    tree, exactly as `git diff` of that file alone prints it; None when the output is not the one file list then
    one patch a file, in the same order, that this reads (the caller asks file by file then).

    The raw list names each file verbatim (NUL-separated: spaces, quotes, newlines and non-ASCII as they are); the
    patches follow in the same order, so a patch is matched to its file by place, never by parsing its header line,
    which git quotes and which cannot be split when a name holds a space."""
    names: list[bytes] = []
    pos = 0
    while out.startswith(b":", pos):  # `:<modes> <ids> <status>` NUL `<path>` NUL, one a file
        meta_end = out.find(b"\0", pos)
        name_end = out.find(b"\0", meta_end + 1) if meta_end >= 0 else -1
        if name_end < 0:
            return None
        names.append(out[meta_end + 1 : name_end])
        pos = name_end + 1
    patch = out[pos + 1 :] if names and out[pos : pos + 1] == b"\0" else out[pos:]  # a NUL between list and patches
    starts = [m.start() for m in _PATCH_START.finditer(patch)]
    if not names:
        return None if patch else {}
    if len(starts) != len(names) or starts[0] != 0 or len(set(names)) != len(names):
        return None
    found: dict[str, bytes] = {}
    for name, start, end in zip(names, starts, [*starts[1:], len(patch)], strict=True):
        section = patch[start:end]
        header = section.split(b"\n", 1)[0]
        if not header.endswith(b'"') and not header.endswith(name):  # a quoted header says the name escaped
            return None
        found[os.fsdecode(name)] = section
    return found


def _action(trailers: dict[str, list[str]]) -> str:
    if trailers.get("Memtui-Actor", [""])[0] == "agent":
        return "agent-write"
    return trailers.get("Memtui-Action", ["?"])[0]


LINES_FORMAT = (
    "--format=%x01%cs%x02%H%x02%P%x02%(trailers:key=Memtui-Action,key=Memtui-Reapplies,valueonly,separator=%x2C)"
    "%x02%(trailers:key=Memtui-Reverts,valueonly,separator=%x2C)"
    "%x02%(trailers:key=Memtui-Actor,key=Memtui-Session,separator=%x2C)%x00"
)
"""The `git log -p -U0` format `line_log` reads: a marked commit day, its id, its parents, memtui's action (and on
a redo the commit it re-applies), on an undo the commits it reverts, who wrote it and in which session; the patch
follows."""
_LINE_RECORD = re.compile(rb"(?:^|(?<=\0))\x01", re.MULTILINE)
"""Where a commit of `LINES_FORMAT` output starts: a patch line never does (each starts with its mark)."""
_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MOVED_LINE = 0.6
"""How alike (difflib's ratio) a line a commit took out elsewhere must be to the line it wrote with the same
relative date for the line to be taken as moved there, not written anew."""


@dataclass(frozen=True)
class LineCommit:
    """One commit of a file's history as `lines_written_from` reads it: newest first."""

    day: dt.date
    commit: str
    action: str
    writing: bool
    """Whether it wrote what the file says: not memtui's init, a move (archive, restore, undo, redo), a fix-date
    (`SAME_MEANING`) or a decision later undone — the same rule as `dates_from_log`."""
    merge: bool
    patch: bytes
    recorded: bool = False
    """memtui's recording of what the agent wrote, made before a decision (no session: the hook's recording names
    the session that just wrote): the write was made on this day or before, after the file's commit before."""
    """The file's patch (`-U0`): what the commit changed in it."""


@dataclass(frozen=True)
class _Hunk:
    old_first: int
    removed: list[str]
    new_first: int
    added: list[str]


def line_log(out: bytes, *, many: bool = False) -> dict[str, list[LineCommit]] | None:
    """Each file's commits in `git log -p -U0 LINES_FORMAT` output, newest first, each with that file's patch;
    which of them wrote the file follows memtui's trailers as `dates_from_log` reads them.

    `many`: the output of several files, `--patch-with-raw -z --no-renames`, each patch found by its file's place
    in the raw list (`patches_by_path`), keyed by path relative to the work tree; None when it is not that output
    (ask file by file then). Else one file's (`--follow`), keyed by ""."""
    logs: dict[str, list[LineCommit]] = {}
    undone: set[str] = set()
    redone: set[str] = set()
    for record in _LINE_RECORD.split(out)[1:]:
        head, _, rest = record.partition(b"\0")
        fields = head.decode("utf-8", "replace").split("\x02")
        if len(fields) < 6:
            return None if many else logs
        day, commit, parents, actions, reverts, actor = (f.strip() for f in fields[:6])
        action, _, reapplies = actions.partition(",")
        if action == "undo" and commit not in undone:
            undone.update(sha for sha in reverts.split(",") if sha and sha not in redone)
        elif reapplies and commit not in undone:
            redone.add(reapplies.strip())
        moving = action in MOVES or action in SAME_MEANING or bool(reapplies) or commit in undone
        writing = not moving and action != "init"
        recorded = "Memtui-Actor: agent" in actor and "Memtui-Session" not in actor
        merge = len(parents.split()) > 1
        patches = patches_by_path(rest.lstrip(b"\0\n")) if many else {"": rest}
        if patches is None:
            return None
        for path, patch in patches.items():
            found = LineCommit(dt.date.fromisoformat(day), commit, action, writing, merge, patch, recorded)
            logs.setdefault(path, []).append(found)
    return logs


def _hunks(patch: bytes) -> tuple[str, list[_Hunk]]:
    """The kind of change a `-U0` patch of one file is ("new": the file came into being, "gone", "changed") and its
    hunks, each line read by the counts its header gives (a removed line may itself start with "--")."""
    lines = patch.split(b"\n")
    kind = "changed"
    hunks: list[_Hunk] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not hunks and (line.startswith(b"new file mode") or line == b"--- /dev/null"):
            kind = "new"
        elif not hunks and (line.startswith(b"deleted file mode") or line == b"+++ /dev/null"):
            kind = "gone"
        m = _HUNK.match(line)
        if m is None:
            continue
        a, b, c, d = (int(g) if g is not None else 1 for g in m.groups())
        removed: list[str] = []
        added: list[str] = []
        while (len(removed) < b or len(added) < d) and i < len(lines):
            body = lines[i]
            i += 1
            if body.startswith(b"\\"):
                continue  # "\ No newline at end of file"
            text = body[1:].decode("utf-8", "replace")
            (removed if body.startswith(b"-") and len(removed) < b else added).append(text)
        hunks.append(_Hunk(a if b else a + 1, removed, c if d else c + 1, added))
    return kind, hunks


def _holds(line: str, phrase: str) -> bool:
    return phrase in line.lower()


def _source(hunks: list[_Hunk], at: _Hunk, index: int, phrase: str, *, writing: bool) -> int | None:
    """The line (numbered before the commit) the line `at.added[index]` came from, when it said `phrase` before:
    in its own hunk the line saying it nearest its place (a line changed); in another hunk a line saying it that is
    alike (`MOVED_LINE`: a line moved). A commit that writes no new meaning (a fix-date, an undo) changed the line
    in its place, whatever it said. None: the commit wrote the phrase there."""
    own = [j for j, text in enumerate(at.removed) if _holds(text, phrase)]
    if own:
        return at.old_first + min(own, key=lambda j: (abs(j - index), j))
    if not writing and at.removed:
        return at.old_first + min(index, len(at.removed) - 1)
    from difflib import SequenceMatcher

    written = at.added[index]
    best: tuple[float, int] | None = None
    for hunk in hunks:
        for j, text in enumerate(hunk.removed):
            if hunk is at or not _holds(text, phrase):
                continue
            ratio = SequenceMatcher(None, text, written).ratio()
            if ratio >= MOVED_LINE and (best is None or ratio > best[0]):
                best = (ratio, hunk.old_first + j)
    return best[1] if best else None


def _before(hunks: list[_Hunk], line: int) -> tuple[_Hunk, int] | int:
    """Where a line after a commit stood before it: (hunk, index) when the commit wrote it, else its number then."""
    shift = 0
    for hunk in hunks:
        if line < hunk.new_first:
            break
        if line < hunk.new_first + len(hunk.added):
            return hunk, line - hunk.new_first
        shift += len(hunk.removed) - len(hunk.added)
    return line + shift


def lines_written_from(
    commits: Sequence[LineCommit],
    asked: Sequence[tuple[int, str]],
    *,
    uncommitted: bytes = b"",
    pending: dt.date | None = None,
) -> dict[tuple[int, str], LineWritten | None]:
    """When each asked relative date (its line in the file now, its phrase in lower case) was written on its line:
    the commit that put it there, followed back through `commits` (one file's history, newest first, `line_log`)
    past the commits that changed the line while it said the phrase, and past memtui's commits that write no new
    meaning. `uncommitted` is the file's patch from HEAD to the work tree, `pending` the day memtui would record
    it (`FileDates.pending`; None: its front matter changed too, or it is not known).

    A commit's day is the day of a line it wrote, but for memtui's recording of the agent's writes before a
    decision (`LineCommit.recorded`) and a write not committed yet: the line was written after the file's commit
    before, and is dated only when that commit was made the same day. Not dated either: a line that came with
    the file when memtui's init put it under git (`with_file`: its day is what the file's own dates say), with a
    merge, or with a commit of memtui's that put back text without its history; None for a line of a file memtui
    put back whole (`_answer`)."""
    steps: list[tuple[LineCommit | None, str, list[_Hunk]]] = []
    if uncommitted:
        steps.append((None, *_hunks(uncommitted)))
    steps += [(commit, *_hunks(commit.patch)) for commit in commits]
    days = [commit.day for commit in commits]
    out: dict[tuple[int, str], LineWritten | None] = {}
    for line, phrase in asked:
        at: int = line
        answer: LineWritten | None = LineWritten(unknown="git's history of the file ends before its line was written")
        for step, (commit, kind, hunks) in enumerate(steps):
            if kind == "gone":
                continue  # deleted, then written again: a newer commit already said where the line came from
            place = _before(hunks, at) if kind != "new" else (hunks[0], at - 1) if hunks else at
            if isinstance(place, int):
                at = place
                continue
            hunk, index = place
            if index >= len(hunk.added):
                answer = LineWritten(unknown="git's history does not hold its line")
                break
            # a write not yet committed is matched as any writing: only a line that said the phrase is its source
            moving = commit is not None and not commit.writing
            source = None if kind == "new" else _source(hunks, hunk, index, phrase, writing=not moving)
            if source is not None:
                at = source
                continue
            older = step + 1 - (len(steps) - len(days))  # the file's commit before this one, in `days`
            before = days[older] if older < len(days) else None
            answer = _answer(commit, kind, before, pending, oldest=step == len(steps) - 1)
            break
        out[(line, phrase)] = answer
    return out


def _answer(
    commit: LineCommit | None, kind: str, before: dt.date | None, pending: dt.date | None, *, oldest: bool
) -> LineWritten | None:
    """What the commit (None: the write not committed yet) that wrote a line says of its day; `before` is the day
    of the file's commit before it, `oldest` whether it is the file's first. None: memtui put the whole file back
    (a restore, an undo of an archive), and a log that follows renames may tell where it was before."""
    if commit is not None and (commit.action == "init" or (kind == "new" and oldest and commit.writing)):
        return LineWritten(with_file=True)  # the file's own dates say (its first commit may be a copy's day)
    if commit is None or commit.recorded:
        day = pending if commit is None else commit.day
        if day is not None and day == before:
            return LineWritten(day, uncommitted=commit is None)
        after = f"after the file's commit of {before.isoformat()}" if before else "after the file's last commit"
        if commit is None:
            return LineWritten(unknown=f"its line was written {after}, and is not committed yet")
        return LineWritten(unknown=f"its line was written {after}, on or before {day}")
    if not commit.writing:
        return None if kind == "new" else LineWritten(unknown=_put_back(commit))
    if commit.merge:
        return LineWritten(
            unknown=f"its line came in with a merge on {commit.day.isoformat()}, written on a branch before"
        )
    return LineWritten(commit.day)


def _put_back(commit: LineCommit) -> str:
    return (
        f"its line was written by memtui's {commit.action or 'commit'} on {commit.day.isoformat()}, which put back "
        "or moved text written before"
    )
