"""Fixing MEMORY.md itself: add the lines of memories it does not list (`index`), drop the lines that link to a
file that does not exist (`drop_link`). Each is one decision and one commit that writes MEMORY.md only, as text:
the lines meant change, every other byte (line endings, a BOM, hand-written notes) stays.

Both refuse, writing nothing, when MEMORY.md changed since the caller read it (`expected_index_hash`: the agent may
have rewritten it). `index` also refuses when the new lines would take MEMORY.md past what Claude Code loads (the
first 200 lines / 25,000 UTF-16 units): a line past the cap is one the agent never sees, and adding it there would
only look like a fix (or, before the cap, would push lines it loads today out). Room is made first, by archiving,
merging or shortening lines; memtui never drops a line to make room.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from memtui.audit.repo import message
from memtui.core import index as idx
from memtui.core.reading import DecodeError, decode
from memtui.ops.index_edit import encode_like, index_hook
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import distinct_names, safe_path
from memtui.ops.transaction import Txn, decision, load


def _read_index(txn: Txn, expected_hash: str | None, verb: str) -> tuple[bytes, str]:
    """MEMORY.md's bytes and text, refused when it is missing, unreadable, or changed since the caller read it."""
    path = txn.layout.index_path
    if not path.is_file():
        raise OpError(f"{txn.layout.root}: no MEMORY.md to {verb}; memtui does not create one")
    data = txn.read(path, expected_hash)
    try:
        return data, decode(data)
    except DecodeError as exc:
        raise OpError(f"MEMORY.md cannot be read ({exc}); fix it by hand first — nothing was changed") from None


def _target(index_dir: Path, link: str) -> Path:
    """The absolute path an index link points at."""
    return Path(os.path.normpath(index_dir / link))


def index(
    store: Path,
    files: Sequence[str],
    *,
    expected_index_hash: str | None = None,
    expected_hashes: Mapping[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Give each memory a MEMORY.md line, `- [name](file.md) — description` (as archive and merge write them),
    after the index's last entry, in one commit; any refusal adds none of them.

    Refused: MEMORY.md missing or changed since read (`expected_index_hash`), a memory changed since read
    (`expected_hashes`), already listed, archived, not parsable (its line would say nothing of it), and lines that
    would take MEMORY.md past Claude Code's load cap."""
    names = distinct_names(files, "index")
    expected = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        index_path = txn.layout.index_path
        data, text = _read_index(txn, expected_index_hash, "add lines to")
        index_dir = index_path.parent
        paths = [safe_path(txn.layout, f) for f in names]
        new, lines, added = text, [], {}
        for path, name in zip(paths, names, strict=True):
            memory, _ = load(txn, path, expected.get(name))
            if memory.is_malformed:
                raise OpError(
                    f"{memory.path} could not be parsed ({memory.error}); fix it first, so its index line can say "
                    "what it holds — nothing was changed"
                )
            listed = next((e for e in idx.entries_of(new.split("\n")) if _target(index_dir, e.target) == path), None)
            if listed is not None:
                raise OpError(f"{memory.path} is already listed in MEMORY.md (line {listed.line}); nothing was changed")
            link = Path(os.path.relpath(path, index_dir)).as_posix()
            line = idx.entry_line(memory.title, link, index_hook(memory.description))
            new = idx.add_entry(new, line)
            lines.append(line)
            added[path] = memory.path
        _refuse_past_cap(text, new, index_dir, added)
        txn.write(index_path, encode_like(new, data), expected=data)
        trailers = [("Memtui-Memory", txn.repo.rel(p)) for p in paths]
        subject = paths[0].name if len(paths) == 1 else f"{len(paths)} memories"
        sha = txn.commit(message("index", subject, "", trailers))
        n = len(lines)
        summary = f"added {n} line{'' if n == 1 else 's'} to MEMORY.md: {', '.join(added.values())}"
        result = txn.result("index", sha, summary, (txn.rel(index_path),))
        return replace(result, shown=tuple(f"added: {line}" for line in lines))


def _refuse_past_cap(old: str, new: str, index_dir: Path, added: Mapping[Path, str]) -> None:
    """Refuse new index lines when MEMORY.md would then be over Claude Code's load cap: naming the memories whose
    new lines it would not load, else the lines it loads today that they would push out."""
    budget = idx.measure(new)
    if not budget.over:
        return
    past = idx.unloaded_entries(idx.entries_of(new.split("\n")), budget)
    mine = [added[t] for e in past if (t := _target(index_dir, e.target)) in added]
    if mine:
        what = f"the agent would not see the lines of {', '.join(mine)}"
    else:
        before = {e.raw for e in idx.unloaded_entries(idx.entries_of(old.split("\n")), idx.measure(old))}
        pushed = [e.target for e in past if e.raw not in before]
        what = "the new lines would push " + (
            f"the lines of {', '.join(pushed)} out of it" if pushed else "lines it loads today out of it"
        )
    raise OpError(
        f"MEMORY.md would be {idx.over_reasons(budget)}: Claude Code would not load line "
        f"{budget.first_unloaded_line} or anything after it, so {what}; nothing was changed — make room first "
        "(archive or merge memories, shorten long index lines), then add them"
    )


def drop_link(
    store: Path,
    links: Sequence[str],
    *,
    expected_index_hash: str | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Remove every MEMORY.md line that links to one of `links` (as MEMORY.md writes them), each a file that does
    not exist (a broken link), in one commit; every other line stays byte for byte.

    Refused: MEMORY.md missing or changed since read, a link to a file that exists (archive that memory instead:
    its line leaves with it), a URL, a link no line holds."""
    names = distinct_names(links, "drop")
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        index_path = txn.layout.index_path
        data, text = _read_index(txn, expected_index_hash, "drop lines from")
        index_dir = index_path.parent
        entries = idx.entries_of(text.split("\n"))
        targets: set[Path] = set()
        for link in names:
            if idx.is_url(link):
                raise OpError(f"{link}: not a link to a file; memtui drops only lines that link to a missing file")
            target = _target(index_dir, link.split("#", 1)[0])
            if not any(_target(index_dir, e.target) == target for e in entries if not idx.is_url(e.target)):
                raise OpError(f"no line of MEMORY.md links to {link}; nothing was changed")
            if target.exists() or target.is_symlink():
                raise OpError(
                    f"{link} exists, so its MEMORY.md line is no broken link; archive the memory to take its line "
                    "out of the index — nothing was changed"
                )
            targets.add(target)
        dropped = [e for e in entries if not idx.is_url(e.target) and _target(index_dir, e.target) in targets]
        new = idx.remove_entries(text, index_dir, targets)
        txn.write(index_path, encode_like(new, data), expected=data)
        trailers = [("Memtui-Link", link) for link in names]
        trailers += [("Memtui-Memory", txn.repo.rel(t)) for t in sorted(targets) if txn.repo.owns(txn.repo.rel(t))]
        subject = f"MEMORY.md line to {names[0]}" if len(names) == 1 else f"MEMORY.md lines to {len(names)} files"
        sha = txn.commit(message("drop-link", subject, "", trailers))
        n = len(dropped)
        summary = f"removed {n} line{'' if n == 1 else 's'} from MEMORY.md, linking to {', '.join(names)} (missing)"
        result = txn.result("drop-link", sha, summary, (txn.rel(index_path),))
        return replace(result, shown=tuple(f"removed line {e.line}: {e.raw}" for e in dropped))
