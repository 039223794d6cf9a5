"""Path safety and file writing: which paths an action may touch, and how a file is written (atomically).

A memory path is store-relative; `safe_path` refuses anything that leaves the store, links out of it, is
not Markdown, or is an index. `refuse_links` applies the symlink rule to the indexes and the archive folder.
`atomic_write` writes through a temp file and a rename; temp files a killed memtui left are swept by
`remove_temp_files` (only memtui's own names).
"""

from __future__ import annotations

import errno
import os
import re
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from memtui.audit.repo import escape_path
from memtui.core.reading import read_memory
from memtui.core.store import ARCHIVE_INDEX, INDEX_NAME, StoreLayout
from memtui.ops.outcome import DeletedOnDisk, OpError, PathRefused


def atomic_write(
    path: Path, data: bytes, *, tmp_dir: Path | None = None, before_rename: Callable[[], None] | None = None
) -> None:
    """Write a file through a temp file and a rename, keeping its permissions.

    With `tmp_dir` (the git folder) the temp file lives there, so a kill mid-write leaves no debris in the store;
    when that folder is on another file system the temp file goes beside the target instead. `before_rename`
    runs once the temp file is on disk, right before the rename; if it raises, the target is left untouched (a
    last check that nobody else wrote the file, with the least time between the check and the rename).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if tmp_dir is not None and tmp_dir.is_dir():
        try:
            _write_via(tmp_dir / f"memtui-tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}", path, data, before_rename)
            return
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
    tmp = path.with_name(f".{path.name[:80]}.memtui-{os.getpid()}-{uuid.uuid4().hex[:6]}.tmp")
    _write_via(tmp, path, data, before_rename)


def _write_via(tmp: Path, path: Path, data: bytes, before_rename: Callable[[], None] | None) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if before_rename is not None:
            before_rename()
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


SYMLINK_TITLE = "Symlink refused"

TEMP_FILE = re.compile(r"^\..*\.memtui-\d+(-[0-9a-f]+)?\.tmp$")


def temp_files(layout: StoreLayout) -> list[Path]:
    """Temp files a killed memtui left in the store (only memtui's own names)."""
    found = []
    for folder in {layout.root, layout.scan_root, layout.archive_dir}:
        if not folder.is_dir() or folder.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            found += [Path(dirpath) / name for name in filenames if TEMP_FILE.match(name)]
    return found


def remove_temp_files(layout: StoreLayout) -> list[Path]:
    """Delete temp files a killed memtui left in the store (the lock is held); the ones removed."""
    removed = []
    for path in temp_files(layout):
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    return removed


def inside(path: Path, folder: Path) -> bool:
    """Whether `path` lies in `folder` (both absolute, compared as written)."""
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def distinct_names(files: Sequence[str], verb: str) -> list[str]:
    """The files a decision names, refused when there is none or one is named twice."""
    if not files:
        raise OpError(f"name at least one memory to {verb}")
    seen: list[str] = []
    for f in files:
        if f in seen:
            raise OpError(f"{f} is named twice; name each memory to {verb} once")
        seen.append(f)
    return seen


def check_new_name(rel: str) -> None:
    """Refuse a name memtui would create but could not show or name safely: control characters, hidden, empty."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in rel):
        raise PathRefused(
            f"{escape_path(rel)}: a new file name with control characters (newline, tab, escape) is refused"
        )
    name = rel.rstrip("/").rsplit("/", 1)[-1]
    if not name or name.startswith(".") or name in (".md",):
        raise PathRefused(
            f"{escape_path(rel) or repr(rel)}: hidden or empty file names are not memories (memtui's scan skips them)"
        )


def safe_path(
    layout: StoreLayout, rel: str, *, archive: bool = False, must_exist: bool = True, read_for: str | None = None
) -> Path:
    """The absolute path of a store-relative memory path, refusing anything that leaves the store.

    `read_for` is the decision's verb when the caller read the memory first (it names the version it saw): a file
    missing then was deleted since, and is refused as that (`DeletedOnDisk`), not as no such memory.

    Refused: absolute paths, `..` that climbs out, symlinks that point outside, non-Markdown files, and
    (unless `archive`) files in the archive.
    """
    if not rel or "\0" in rel:
        raise PathRefused("no file named")
    if not must_exist:
        check_new_name(rel)
    if os.path.isabs(rel):
        raise PathRefused(f"{rel}: absolute paths are refused; name the file relative to the store")
    candidate = Path(os.path.normpath(layout.root / rel))
    allowed = [layout.scan_root] + ([layout.archive_dir] if archive else [])
    if not any(inside(candidate, a) for a in allowed):
        raise PathRefused(f"{escape_path(rel)}: outside the store {layout.root}")
    in_archive = inside(candidate, layout.archive_dir)
    if in_archive and not archive:
        raise PathRefused(f"{escape_path(rel)}: that memory is archived; restore it first")
    name = candidate.name
    if in_archive and layout.archive_suffix:
        if not name.endswith(layout.archive_suffix):
            raise PathRefused(
                f"{escape_path(rel)}: not an archived memory (archived files end in {layout.archive_suffix})"
            )
        name = name[: -len(layout.archive_suffix)]
    if name in (INDEX_NAME, ARCHIVE_INDEX):
        raise PathRefused(f"{escape_path(rel)}: that is an index, not a memory")
    if not name.endswith(".md"):
        raise PathRefused(f"{escape_path(rel)}: not a Markdown memory file")
    if candidate.exists() or candidate.is_symlink():
        real = candidate.resolve()
        if not any(inside(real, a.resolve()) for a in allowed):
            raise PathRefused(f"{rel}: a symlink pointing outside the store ({real})", title=SYMLINK_TITLE)
    elif must_exist and read_for is not None:
        raise DeletedOnDisk(escape_path(rel), read_for)
    elif must_exist:
        raise PathRefused(f"{rel}: no such memory in {layout.root}")
    return candidate


# --------------------------------------------------------------------------------------------- transaction


def refuse_links(layout: StoreLayout) -> None:
    """The symlink rule for the parts memtui writes besides memories: indexes and the archive folder."""
    parts = [layout.index_path, layout.archive_index_path, layout.archive_dir]
    if layout.kind == "typed":
        parts.append(layout.scan_root)
    for part in parts:
        if part.is_symlink():
            raise PathRefused(
                f"{part} is a symlink; memtui does not write through links (it could write outside "
                "the store) — replace it with the real file or folder",
                title=SYMLINK_TITLE,
            )


def archived_path(layout: StoreLayout, file: str) -> Path:
    """The archived memory a person named (by its archive path, or its name in the archive), refusing anything else."""
    candidates = [file]
    archive_rel = Path(os.path.relpath(layout.archive_dir, layout.root)).as_posix()
    if not Path(os.path.normpath(layout.root / file)).is_relative_to(layout.archive_dir):
        candidates.append(f"{archive_rel}/{file}")
    if layout.archive_suffix:
        candidates += [c + layout.archive_suffix for c in list(candidates) if not c.endswith(layout.archive_suffix)]
    for cand in candidates:
        try:
            path = safe_path(layout, cand, archive=True)
        except PathRefused:
            continue
        if inside(path, layout.archive_dir):
            return path
    live = layout.root / file
    if live.is_file() and inside(live, layout.root) and not inside(live, layout.archive_dir):
        if read_memory(live, file, in_archive=False).status == "archived":
            raise PathRefused(
                f"{file} is marked archived but still sits in the loaded folder, so Claude Code still loads it; "
                "archive it to move it into the archive, or edit out its archived status to keep it",
                title="Not in the archive",
            )
        raise PathRefused(
            f"{file} is not archived: it is already in the store, nothing to restore", title="Not archived"
        )
    raise PathRefused(f"{file}: no such memory in the archive {layout.archive_dir}")
