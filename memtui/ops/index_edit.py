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


def index_retarget(txn: Txn, memory_paths: set[Path], new_path: Path) -> None:
    """Point the first index line of any of `memory_paths` at `new_path` instead, where it stands, unless
    `new_path` has a line already: a merge into a new file, or into a memory the index does not list, takes the
    place of the first merged memory's line (title and hook kept) rather than a new line at the end, which may
    fall past the lines Claude Code loads."""
    index_dir = txn.layout.index_path.parent
    _edit_index(txn, new_path, lambda text, target: idx.retarget_first(text, index_dir, memory_paths, target))


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
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


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
