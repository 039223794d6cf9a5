"""Wikilinks between memories: `[[name]]`, `[[name|alias]]`, `[[name#heading]]`, found outside code and resolved as
the agent reads them, and the `broken-wikilink` finding for one that reaches no live memory.

A link resolves by a memory's front-matter `name`, else by its file name without `.md` (47 of the 1,224 links in
the 12 real stores name the file, which the agent opens all the same), else by either written with other case or
other separators (`[[project-incident-gsim-code-drift]]` for `project_incident_gsim_code_drift`: 9 of them, each
one memory only): those near misses reach the memory, so they are no finding, and archive and merge treat them as
links to it. A target that is a path (`[[../plans/ROADMAP.md]]`, `[[notes.md]]` that is no memory) or empty is no
link between memories and is left alone.

A link that reaches no live memory is a finding: a `warning` when it names an archived memory (a person retired
it; its successor, when the archive stamp names one, is the link to write instead), else `info` (the note it
pointed to may never have existed here: the agent lost a pointer, nothing it is told is wrong), with the live
memory it most likely means when only a type prefix tells them apart (`[[harness-design]]` for
`feedback_harness_design`).
"""

from __future__ import annotations

import bisect
import os
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memtui.core.model import INFO, WARNING, Finding, FindingKind, Memory
from memtui.core.store import ARCHIVED_SUFFIX, INDEX_NAME, Store

# Bounded: a memory's name is short, and an unbounded run let hostile `[[[[…` cost quadratic time.
_LINK = re.compile(r"\[\[([^\[\]\n]{0,256})\]\]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TICKS = re.compile(r"`+")
_SEPARATORS = re.compile(r"[-_\s]+")
_TYPE_PREFIX = re.compile(r"^(?:user|feedback|project|projects|reference)-")
SUCCESSOR_KEYS = ("superseded_by", "merged_into")
"""The archive stamps that name what replaced an archived memory (`memtui.ops.archiving.STAMP_KEYS`)."""


@dataclass(frozen=True)
class WikiLink:
    """One `[[…]]` of a text, outside code."""

    line: int
    """1-based line of the text."""
    start: int
    """Offset of the target in the text (after `[[`, leading spaces skipped): what a rewrite replaces."""
    end: int
    """Offset just after the target (before `#`, `|` or `]]`, trailing spaces and a table's `\\` kept out)."""
    target: str
    """The target as written: no alias, no heading."""


def wikilinks(text: str) -> list[WikiLink]:
    """Every wikilink of a text, in order, leaving out those inside fenced code blocks and inline code spans."""
    if "[[" not in text:
        return []
    out: list[WikiLink] = []
    fence = ""
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):  # lines as an editor counts them (CRLF's `\r` stays on)
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif "[[" in line:
            code = _code_spans(line)
            starts = [a for a, _ in code]
            for match in _LINK.finditer(line):
                if _in_code(code, starts, match.start()):
                    continue
                inner = match.group(1)
                cut = min((i for i in (inner.find("|"), inner.find("#")) if i >= 0), default=len(inner))
                head = inner[:cut]
                if head.endswith("\\"):  # `[[name\|alias]]`: a pipe escaped inside a Markdown table
                    head = head[:-1]
                target = head.strip()
                start = match.start(1) + len(head) - len(head.lstrip())
                out.append(WikiLink(number, offset + start, offset + start + len(target), target))
        offset += len(line) + 1
    return out


def _code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span of a line, in order: a run of backticks to the next run of the same
    length (linear: each run's next run of its length is found in one pass from the end)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        size = runs[i][1] - runs[i][0]
        following[i] = last.get(size)
        last[size] = i
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        closing = following[i]
        if closing is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[closing][1]))
        i = closing + 1
    return spans


def _in_code(spans: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    """Whether the offset `at` of a line lies in one of its code spans (`starts`: their starts, in order)."""
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and at < spans[k][1]


def key(text: str) -> str:
    """A name as a link matches it whatever its case and separators: `Project_Incident gsim` → `project-incident-gsim`."""
    return _SEPARATORS.sub("-", text.strip().lower()).strip("-")


def stem(memory: Memory) -> str:
    """A memory's file name without `.md` (and without the archive's `.archived`): what a link by file name says."""
    name = memory.path.rpartition("/")[2].removesuffix(ARCHIVED_SUFFIX)  # (a Path per memory cost check 10%)
    return name[:-3] if name.lower().endswith(".md") else name


def link_name(memory: Memory) -> str:
    """What a link to a memory says: its `name`, or its file name when the name cannot stand in a link."""
    name = memory.name.strip()
    if name and not any(ch in name for ch in "[]|#\n\r"):
        return name
    return stem(memory)


def is_path(target: str) -> bool:
    """A target that is a path (a folder in it, or a Markdown file name), not a memory's name."""
    return "/" in target or target.lower().endswith(".md")


@dataclass(frozen=True)
class Resolution:
    """Where a link goes: the live memory it reaches, else the archived one it names, and the live memory it most
    likely means when it reaches none."""

    live: str | None = None
    archived: str | None = None
    suggestion: str | None = None


class Resolver:
    """Resolves link targets against a store's memories: live ones first (the agent loads only those), then archived
    ones (to say a link names a retired memory)."""

    def __init__(self, store: Store) -> None:
        self.layout = store.layout
        self.by_path = {m.path: m for m in store.memories}
        live = [m for m in store.memories if m.is_active and not m.in_archive]
        gone = [m for m in store.memories if not m.is_active]
        self._live = _table(live)
        self._gone = _table(gone)
        self._bare: dict[str, list[str]] = defaultdict(list)
        for m in live:
            for k in {_bare(key(m.name)), _bare(key(stem(m)))} - {""}:
                self._bare[k].append(m.path)

    def resolve(self, target: str, source: str) -> Resolution | None:
        """Where `[[target]]` written in the memory at `source` goes; None when it is no link between memories
        (empty, or a path that is no memory)."""
        if not target:
            return None
        if is_path(target):
            return self._by_path(target, source)
        exact, near = self._live
        found = exact.get(target) or near.get(key(target))
        if found:
            return Resolution(live=found)
        gone_exact, gone_near = self._gone
        retired = gone_exact.get(target) or gone_near.get(key(target))
        if retired:
            return Resolution(archived=retired, suggestion=self.successor(retired))
        guesses = [p for p in self._bare.get(_bare(key(target)), []) if p != source]
        return Resolution(suggestion=guesses[0] if len(guesses) == 1 else None)

    def _by_path(self, target: str, source: str) -> Resolution | None:
        root = self.layout.root
        folder = (root / source).parent
        for base in (folder, root, self.layout.scan_root):
            rel = self.layout.rel(Path(os.path.normpath(base / target)))
            memory = self.by_path.get(rel)
            if memory is not None:
                return Resolution(live=rel) if memory.is_active and not memory.in_archive else None
        if "/" in target:
            return None
        bare = target[:-3]
        exact, near = self._live
        found = exact.get(bare) or near.get(key(bare))
        return Resolution(live=found) if found else None

    def successor(self, path: str) -> str | None:
        """The live memory that replaced an archived one, following its archive stamps (`superseded_by`,
        `merged_into`) through memories archived since; None when none is named or it is gone too."""
        seen = {path}
        memory = self.by_path.get(path)
        while memory is not None:
            named = next((str(v) for k in SUCCESSOR_KEYS if (v := memory.field_value(k))), "")
            if not named:
                return None
            nxt = self._stamped(named)
            if nxt is None or nxt.path in seen:
                return None
            if nxt.is_active and not nxt.in_archive:
                return nxt.path
            seen.add(nxt.path)
            memory = nxt
        return None

    def _stamped(self, named: str) -> Memory | None:
        """The memory an archive stamp names (a store-relative path, as memtui writes it; for a memory archived
        since, its place in the archive)."""
        memory = self.by_path.get(named)
        if memory is not None:
            return memory
        live = self.layout.resolve(named)
        try:
            archived = self.layout.rel(self.layout.archived_path(live))
        except ValueError:
            return None
        return self.by_path.get(archived)


def _table(memories: Iterable[Memory]) -> tuple[dict[str, str], dict[str, str]]:
    """(exact name or file name → path, the same by `key` → path); a name wins over another memory's file name."""
    exact: dict[str, str] = {}
    near: dict[str, str] = {}
    listed = list(memories)
    for m in listed:
        if m.name:
            exact.setdefault(m.name.strip(), m.path)
    for m in listed:
        exact.setdefault(stem(m), m.path)
    for m in listed:
        for k in (key(m.name), key(stem(m))):
            if k:
                near.setdefault(k, m.path)
    return exact, near


def _bare(k: str) -> str:
    return _TYPE_PREFIX.sub("", k)


@dataclass(frozen=True)
class Source:
    """A text of the store that holds links: a live memory, or MEMORY.md."""

    path: str
    text: str


def sources(store: Store) -> list[Source]:
    """The texts the agent loads that can link to memories: each live, readable memory and MEMORY.md."""
    out = [Source(m.path, m.text) for m in store.memories if m.is_active and not m.in_archive and not m.error]
    if store.index is not None and not store.index.error:
        out.append(Source(INDEX_NAME, store.index.text))
    return out


def links_to(
    store: Store, paths: Sequence[str], resolver: Resolver | None = None, *, skip: Collection[str] = ()
) -> dict[str, list[WikiLink]]:
    """The links that reach any of the memories at `paths`, by the text that holds them (a memory's path, or
    MEMORY.md), in store order; the memories at `paths` themselves, and those in `skip`, left out."""
    wanted = set(paths)
    resolver = resolver or Resolver(store)
    out: dict[str, list[WikiLink]] = {}
    for source in sources(store):
        if source.path in wanted or source.path in skip:
            continue
        hits = [
            link
            for link in wikilinks(source.text)
            if (r := resolver.resolve(link.target, source.path)) is not None and r.live in wanted
        ]
        if hits:
            out[source.path] = hits
    return out


def linked_from(store: Store, path: str, *, skip: Collection[str] = ()) -> str:
    """What archiving the memory at `path` leaves behind, in words: the memories that link to it (how many, named;
    those in `skip`, archived with it, left out), and MEMORY.md when it does; "" when nothing does."""
    found = links_to(store, [path], skip=skip)
    if not found:
        return ""
    memories = [p for p in found if p != INDEX_NAME]
    n = len(memories)
    who = f"{n} {'memory links' if n == 1 else 'memories link'} to {path}: {', '.join(memories)}" if n else ""
    if INDEX_NAME in found:
        who = f"{who} (and {INDEX_NAME})" if who else f"{INDEX_NAME} links to {path}"
    return f"{who} — archived, it is a memory the agent no longer loads: the links stay, and the review lists them"


def links_left(store: Store, paths: Sequence[str]) -> list[str]:
    """For each memory at `paths` about to be archived together, what `linked_from` says of it (those said)."""
    retired = set(paths)
    return [said for path in paths if (said := linked_from(store, path, skip=retired))]


def broken_wikilinks(store: Store) -> list[Finding]:
    """One finding per text and link target that reaches no live memory (`broken-wikilink`)."""
    linking = [
        (source, found) for source in sources(store) if "[[" in source.text and (found := wikilinks(source.text))
    ]
    if not linking:
        return []  # most stores: no table of names to build
    resolver = Resolver(store)
    out: list[Finding] = []
    for source, found in linking:
        grouped: dict[str, list[WikiLink]] = {}
        resolved: dict[str, Resolution] = {}
        for link in found:
            r = resolver.resolve(link.target, source.path)
            if r is None or r.live is not None:
                continue
            grouped.setdefault(key(link.target), []).append(link)
            resolved[key(link.target)] = r
        for k, links in grouped.items():
            out.append(_finding(resolver, source.path, links, resolved[k]))
    return out


def _finding(resolver: Resolver, source: str, links: list[WikiLink], r: Resolution) -> Finding:
    target = links[0].target
    lines = sorted({link.line for link in links})
    where = f"{source}:{lines[0]}"
    times = f" ({len(links)} times, lines {', '.join(map(str, lines))})" if len(links) > 1 else ""
    itself = r.suggestion == source  # merged into the very memory that links to it: its text is here now
    suggestion = resolver.by_path.get(r.suggestion) if r.suggestion and not itself else None
    to = link_name(suggestion) if suggestion is not None else None
    if r.archived is not None:
        archived = resolver.by_path[r.archived]
        how = f", {_verb(archived)} this memory (edit the link out)" if itself else _replaced_how(archived, suggestion)
        message = (
            f"{where}: [[{target}]]{times} links to archived memory {r.archived}{how}: the agent no longer loads it"
        )
        severity, cue = WARNING, target
    else:
        message = f"{where}: [[{target}]]{times} links to no memory (none is named {target})"
        if suggestion is not None:
            message += f"; probably [[{to}]] ({suggestion.path})"
        severity, cue = INFO, target
    return Finding(
        FindingKind.BROKEN_WIKILINK,
        severity,
        (source,),
        message,
        line=lines[0],
        cue=cue,
        details={
            "target": target,
            "lines": lines,
            "archived": r.archived,
            "suggestion": suggestion.path if suggestion is not None else None,
            "suggested_link": to,
        },
    )


def _replaced_how(archived: Memory, successor: Memory | None) -> str:
    if successor is None:
        return ""
    return f", {_verb(archived)} {successor.path} (link [[{link_name(successor)}]] instead)"


def _verb(archived: Memory) -> str:
    return "merged into" if archived.field_value("merged_into") else "superseded by"
