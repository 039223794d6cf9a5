"""Editing the indexes inside a decision: MEMORY.md's line for a memory, and the archive's own index.

Lines are added and removed as text (byte-preserving elsewhere), through the decision's `Txn`, so every edit
is journaled, checked against what was read, and rolled back with the rest.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memtui.core import index as idx
from memtui.core.reading import decode
from memtui.ops.transaction import Txn

ARCHIVE_HEADER = (
    "# Archived memories\n\n"
    "Memories retired with memtui. Claude Code does not load this folder; `git log` says why each one left.\n\n"
)


def index_remove(txn: Txn, targets: set[Path]) -> None:
    index_path = txn.layout.index_path
    if not index_path.is_file():
        return
    data = index_path.read_bytes()
    text = decode(data)
    new = idx.remove_entries(text, index_path.parent, targets)
    if new != text:
        txn.write(index_path, encode_like(new, data), expected=data)


def index_add(txn: Txn, memory_path: Path, title: str, hook: str) -> None:
    """Add `memory_path`'s index line after the last entry, unless it has one."""
    _edit_index(
        txn, memory_path, lambda text, target: idx.add_entry(text, idx.entry_line(title, target, index_hook(hook)))
    )


def index_retarget(txn: Txn, memory_paths: set[Path], new_path: Path, title: str, hook: str) -> None:
    """Give `new_path` (a merged memory) the index line of the first of `memory_paths` the index lists, where it
    stands, rewritten to describe it (`title`, `hook`: its own name and description), unless `new_path` has a
    line already. A merge into a new file, or into a memory the index does not list, takes that place rather
    than a new line at the end, which may fall past the lines Claude Code loads; the old line's title and hook
    described one merged memory, not the merged one."""
    index_dir = txn.layout.index_path.parent

    def edit(text: str, target: str) -> str:
        return idx.replace_first(text, index_dir, memory_paths, idx.entry_line(title, target, index_hook(hook)))

    _edit_index(txn, new_path, edit)


def _edit_index(txn: Txn, memory_path: Path, edit: Callable[[str, str], str]) -> None:
    """Give `memory_path` an index line with `edit(index text, its link target)`, unless it has one already."""
    index_path = txn.layout.index_path
    if not index_path.is_file():
        return
    data = index_path.read_bytes()
    text = decode(data)
    if idx.has_entry(text, index_path.parent, memory_path):
        return
    new = edit(text, Path(os.path.relpath(memory_path, index_path.parent)).as_posix())
    if new != text:
        txn.write(index_path, encode_like(new, data), expected=data)


def index_hook(text: str, limit: int = 110) -> str:
    """`text` on one line, cut to `limit` characters (ending with "…" when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def clause_hook(text: str, limit: int = 110) -> str:
    """Like `index_hook`, but a text too long for it that is made of clauses joined by "; " (a merged memory's
    description, one clause per memory merged) has each clause cut to its share, so the line still names every
    one of them instead of only the first (while each share holds a few words)."""
    flat = " ".join(text.split())
    clauses = flat.split("; ")
    share = (limit - 2 * (len(clauses) - 1)) // len(clauses)
    if len(flat) <= limit or len(clauses) < 2 or share < 16:
        return index_hook(flat, limit)
    return "; ".join(_cut_at_word(c, share) for c in clauses)


def _cut_at_word(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a space (mid-word only when one word is that long), with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:—–-") + "…"


def archive_index_add(txn: Txn, archived: Path, title: str, reason: str) -> None:
    path = txn.layout.archive_index_path
    data = path.read_bytes() if path.exists() else None
    text = decode(data) if data is not None else ARCHIVE_HEADER
    target = Path(os.path.relpath(archived, path.parent)).as_posix()
    line = idx.entry_line(title, target, f"{txn.today.isoformat()} · {index_hook(reason, 140)}")
    new = idx.add_entry(text, line)
    txn.write(path, encode_like(new, data), expected=data if data is not None else None)


def archive_index_remove(txn: Txn, archived: Path) -> None:
    path = txn.layout.archive_index_path
    if not path.is_file():
        return
    data = path.read_bytes()
    text = decode(data)
    new = idx.remove_entries(text, path.parent, {archived})
    if new != text:
        txn.write(path, encode_like(new, data), expected=data)


def encode_like(text: str, original: bytes | None) -> bytes:
    bom = b"\xef\xbb\xbf" if original is not None and original.startswith(b"\xef\xbb\xbf") else b""
    return bom + text.encode("utf-8")
