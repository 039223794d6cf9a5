"""Turning the bytes of one memory file into a Memory, whatever they hold."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from memtui.core import frontmatter
from memtui.core.model import MEMORY_TYPES, Memory

BOM = "\ufeff"


class DecodeError(ValueError):
    """Bytes that are not a UTF-8 text file."""


def sha256(data: bytes) -> str:
    """Hex digest used as a file's content identity."""
    return hashlib.sha256(data).hexdigest()


VERIFY_STAMP = "last_verified"
"""The front-matter key memtui's verify writes: when a person last confirmed the memory, not what it says."""


def unstamped_hash(memory: Memory) -> str:
    """A memory's content identity apart from memtui's verification stamp: the SHA-256 of its text (UTF-8) without
    its `VERIFY_STAMP` lines. For a file without a stamp or a byte-order mark it is its `content_hash`."""
    if not memory.text:
        return memory.content_hash  # undecodable or unreadable: its bytes are all there is
    try:
        text = frontmatter.remove_keys(memory.text, [VERIFY_STAMP], nested=True)
    except frontmatter.FrontMatterError:
        text = memory.text
    return sha256(text.encode("utf-8"))


def decode(data: bytes) -> str:
    """Decode UTF-8 (with or without BOM); raise DecodeError naming the first bad byte."""
    if data.find(b"\x00", 0, 8192) != -1:
        raise DecodeError("binary file (contains NUL bytes), not a Markdown memory")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded") from None
    return text[1:] if text.startswith(BOM) else text


_TEXT_LIMIT = 10_000


def _as_text(value: Any, _depth: int = 0) -> str:
    # Bounded in depth and length: the parser already refuses alias bombs, and this never walks far either way.
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        if _depth >= 8:
            return ""
        parts: list[str] = []
        size = 0
        for item in value:
            part = _as_text(item, _depth + 1)
            parts.append(part)
            size += len(part) + 1
            if size > _TEXT_LIMIT:
                break
        return " ".join(parts)[:_TEXT_LIMIT].strip()
    return str(value).strip()[:_TEXT_LIMIT]


def read_memory(abs_path: Path, rel_path: str, *, in_archive: bool, archived_hint: bool = False) -> Memory:
    """Read one memory file. Never raises for bad content: the error goes into `Memory.error`."""
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read()
            mtime = os.fstat(fh.fileno()).st_mtime
    except OSError as exc:
        return _broken(abs_path, rel_path, f"cannot be read: {exc.strerror or exc}", b"", 0.0, in_archive)
    try:
        text = decode(data)
    except DecodeError as exc:
        return _broken(abs_path, rel_path, str(exc), data, mtime, in_archive)
    try:
        fm = frontmatter.parse(text)
    except frontmatter.FrontMatterError as exc:
        memory = _broken(abs_path, rel_path, str(exc), data, mtime, in_archive)
        return Memory(**{**memory.__dict__, "text": text, "body": text})
    data_map = fm.data
    meta = data_map.get("metadata") if isinstance(data_map.get("metadata"), dict) else {}
    raw_type = data_map.get("type")
    generation = "A" if "type" in data_map else ("B" if isinstance(data_map.get("metadata"), dict) else "none")
    if raw_type is None and meta:
        raw_type = meta.get("type")
    raw_type_text = _as_text(raw_type) or None
    mem_type = raw_type_text.lower() if raw_type_text and raw_type_text.lower() in MEMORY_TYPES else None
    status_value = _as_text(data_map.get("status") or (meta or {}).get("status")).lower()
    archived = status_value == "archived" or in_archive or archived_hint
    return Memory(
        path=rel_path,
        abs_path=abs_path,
        text=text,
        content_hash=sha256(data),
        frontmatter=data_map,
        has_frontmatter=fm.present,
        body=text[fm.block_end :],
        name=_as_text(data_map.get("name")),
        description=_as_text(data_map.get("description")),
        type=mem_type,
        raw_type=raw_type_text,
        status="archived" if archived else "active",
        in_archive=in_archive,
        mtime=mtime,
        retried=fm.retried,
        generation=generation if fm.present else "none",
    )


def _broken(abs_path: Path, rel_path: str, reason: str, data: bytes, mtime: float, in_archive: bool) -> Memory:
    return Memory(
        path=rel_path,
        abs_path=abs_path,
        text="",
        content_hash=sha256(data),
        frontmatter={},
        has_frontmatter=False,
        body="",
        name="",
        description="",
        type=None,
        raw_type=None,
        status="archived" if in_archive else "active",
        in_archive=in_archive,
        mtime=mtime,
        error=reason,
    )
