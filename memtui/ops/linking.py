"""Wikilinks a decision rewrites: a merge points `[[A]]` in other memories at the merged memory, `relink` points one
link target at a live memory, and an archive says which memories still link to what it retires.

Only the link's target changes: `[[A|alias]]` becomes `[[B|alias]]`, `[[A#heading]]` `[[B#heading]]`, and every
other byte of the file (front matter, line endings, a BOM) stays. Each file is read inside the decision's lock and
refused when it changed since the store was read for it (`Txn.read`); the write is atomic and refused when the file
changed after that read (`Txn.write`). A file that cannot be parsed is never rewritten: it is named in a note.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

from memtui.analysis.wikilinks import (
    Resolver,
    WikiLink,
    key,
    link_name,
    links_left,
    links_to,
    sources,
    stem,
    wikilinks,
)
from memtui.audit.repo import message
from memtui.core import frontmatter
from memtui.core.model import Memory
from memtui.core.reading import DecodeError, decode
from memtui.core.store import INDEX_NAME, Store, load_store, memory_files
from memtui.ops.index_edit import encode_like
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import distinct_names, safe_path
from memtui.ops.transaction import Txn, decision, scan_bytes

RELINKED = "Memtui-Relinked"
"""The trailer naming each file a decision rewrote only links in: no new content, so no new age
(`memtui.audit.history.dates_from_log`)."""


def may_link(txn: Txn) -> bool:
    """Whether any text of the store holds a `[[`: a store without one is not read whole for its links."""
    layout = txn.layout
    files = memory_files(layout.scan_root)
    if layout.index_path.is_file():
        files.append(layout.index_path)
    for path in files:
        try:
            if b"[[" in path.read_bytes():
                return True
        except OSError:
            continue
    return False


def read_store(txn: Txn) -> Store | None:
    """The store as it is inside the decision's lock, when any of its texts holds a wikilink; else None."""
    return load_store(txn.layout.root) if may_link(txn) else None


def note_links_to(txn: Txn, store: Store | None, paths: Sequence[str]) -> None:
    """Say, for each memory about to be archived, which memories link to it (the links stay: a warning, no refusal)."""
    if store is not None:
        txn.notes.extend(links_left(store, paths))


def relink_in(
    txn: Txn,
    store: Store,
    found: Iterable[str],
    write: Callable[[WikiLink], str],
    *,
    pick: Callable[[str, WikiLink], bool],
    expected: Mapping[str, str] | None = None,
) -> list[Path]:
    """Rewrite, in each text of `found` (a memory's path or MEMORY.md), the links `pick` chooses as the file is now,
    each to `write(link)`; the files written. Each is refused when it changed since the caller saw it (`expected`,
    its hash) or since `store` was read. A file that cannot be parsed (or would not parse after), or that holds what
    looks like a secret (committing it would commit the secret), is left as it is and named in a note."""
    written: list[Path] = []
    unparsed: list[str] = []
    secret: list[str] = []
    for source in found:
        path = txn.layout.index_path if source == INDEX_NAME else txn.layout.resolve(source)
        seen = (expected or {}).get(source) or _hash_of(store, source)
        data = txn.read(path, None if path in txn.touched else seen)
        try:
            text = decode(data)
        except DecodeError:
            unparsed.append(source)
            continue
        chosen = [link for link in wikilinks(text) if pick(source, link)]
        if not chosen:
            continue
        new = spliced(text, chosen, write)
        if source != INDEX_NAME and not _parses(text, new):
            unparsed.append(source)
            continue
        if not txn.allow_secret and path not in txn.touched and scan_bytes(data):
            secret.append(source)
            continue
        txn.write(path, encode_like(new, data), expected=data)
        written.append(path)
    if unparsed:
        txn.notes.append(f"links left as they are in {', '.join(unparsed)}: it cannot be parsed; fix it by hand")
    if secret:
        txn.notes.append(
            f"links left as they are in {', '.join(secret)}: it holds what looks like a secret, which memtui does "
            "not commit; remove the secret first"
        )
    return written


def _hash_of(store: Store, source: str) -> str | None:
    if source == INDEX_NAME:
        return store.index.content_hash if store.index is not None else None
    memory = store.get(source)
    return memory.content_hash if memory is not None else None


def _parses(before: str, after: str) -> bool:
    """Whether a rewritten memory still parses (a name written into a quoted YAML value), when it did before."""
    try:
        frontmatter.parse(before)
    except frontmatter.FrontMatterError:
        return False
    try:
        frontmatter.parse(after)
    except frontmatter.FrontMatterError:
        return False
    return True


def spliced(text: str, links: Iterable[WikiLink], write: Callable[[WikiLink], str]) -> str:
    """`text` with each link's target replaced by `write(link)`: nothing else of it changes."""
    out: list[str] = []
    at = 0
    for link in sorted(links, key=lambda x: x.start):
        out += [text[at : link.start], write(link)]
        at = link.end
    out.append(text[at:])
    return "".join(out)


def merge_relinks(
    txn: Txn, store: Store | None, away: Collection[str], merged: Collection[str], into: Memory
) -> list[Path]:
    """After a merge: every link to a merged-away memory in the other live memories and MEMORY.md now links to the
    merged memory `into` (a link that named the old memory's file names the merged one's file; else its name); the
    files written."""
    if store is None:
        return []
    resolver = Resolver(store)
    found = links_to(store, list(away), resolver, skip=set(merged))
    if not found:
        return []
    stems = {stem(m) for p in away if (m := store.get(p)) is not None and m.name.strip() != stem(m)}

    def write(link: WikiLink) -> str:
        return stem(into) if link.target in stems else link_name(into)

    def pick(source: str, link: WikiLink) -> bool:
        return (r := resolver.resolve(link.target, source)) is not None and r.live in away

    written = relink_in(txn, store, found, write, pick=pick)
    if written:
        names = ", ".join(txn.rel(p) for p in written)
        txn.notes.append(f"links to the merged memories now link to [[{link_name(into)}]] in {names}")
    return written


def relink(
    store: Path,
    link: str,
    *,
    to: str,
    files: Sequence[str] | None = None,
    expected_hashes: Mapping[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Point `[[link]]` at the live memory `to`: every link of that target (whatever its case and separators; alias
    and heading kept) in `files` (memories, or MEMORY.md; None: every live memory and MEMORY.md holding one) now
    links to it by its name, in one commit. Refused when a file named holds no such link, when `to` is no live
    memory, and when a file changed since it was read (`expected_hashes`, what the person saw)."""
    want = key(link)
    if not want:
        raise OpError("name the link to rewrite (the [[target]] as written)")
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        target = safe_path(txn.layout, to)
        now = load_store(txn.layout.root)
        successor = now.get(txn.rel(target))
        if successor is None or not successor.is_active or successor.is_malformed:
            raise OpError(f"{to} is no live memory to link to; nothing was changed")
        named = None if files is None else distinct_names(files, "relink")
        resolver = Resolver(now)

        def dangling(source: str, hit: WikiLink) -> bool:
            # a link that still reaches a live memory is left alone (the agent may have written it back meanwhile)
            if key(hit.target) != want or source == successor.path:
                return False  # (a memory is never pointed at itself)
            found = resolver.resolve(hit.target, source)
            return found is not None and found.live is None

        holding = [
            source
            for source, hits in _links_by_source(now).items()
            if (named is None or source in named) and any(dangling(source, h) for h in hits)
        ]
        missing = [f for f in named or () if f not in holding]
        if missing or not holding:
            where = ", ".join(missing) if missing else "any live memory or MEMORY.md"
            raise OpError(f"no [[{link}]] reaching no live memory is in {where}; nothing was changed")
        new = link_name(successor)
        written = relink_in(txn, now, holding, lambda _: new, pick=dangling, expected=expected_hashes)
        if not written:
            raise OpError(f"[[{link}]] could not be rewritten anywhere ({'; '.join(txn.notes)}); nothing was changed")
        names = [txn.rel(p) for p in written]
        why = f"[[{link}]] now links to {successor.path}"
        trailers = [("Memtui-Memory", txn.repo.rel(p)) for p in written]
        trailers += [("Memtui-Reason", why), ("Memtui-Relinked-To", txn.repo.rel(target))]
        subject = f"[[{link}]] → [[{new}]] in " + (written[0].name if len(written) == 1 else f"{len(written)} files")
        sha = txn.commit(message("relink", subject, why, trailers))
        return txn.result("relink", sha, f"[[{link}]] → [[{new}]] in {', '.join(names)}", names)


def _links_by_source(store: Store) -> dict[str, list[WikiLink]]:
    return {s.path: hits for s in sources(store) if (hits := wikilinks(s.text))}
