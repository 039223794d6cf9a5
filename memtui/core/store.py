"""Loading a store: its layout, its memories (live and archived) and its indexes."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.errors import EXIT_USAGE, MemtuiError
from memtui.core.index import parse_index
from memtui.core.model import Index, Memory
from memtui.core.reading import read_memory

INDEX_NAME = "MEMORY.md"
ARCHIVE_INDEX = "ARCHIVE.md"
IN_STORE_ARCHIVE_INDEX = "MEMORY_ARCHIVED.md"
IN_REPO_ARCHIVE = ".memtui-archive"
ARCHIVED_SUFFIX = ".archived"
TYPED_FOLDERS = ("user", "feedback", "project", "projects", "reference")
# Files that live beside memories but are not memories (duyet/kb's generated bundle files and templates).
NOT_MEMORIES = {INDEX_NAME, ARCHIVE_INDEX, IN_STORE_ARCHIVE_INDEX, "index.md", "log.md", "_TEMPLATE.md"}


class StoreError(MemtuiError):
    """A store that cannot be opened; the message names the folder and the reason."""

    title = "Store cannot be opened"
    exit_code = EXIT_USAGE


@dataclass(frozen=True)
class StoreLayout:
    """Where a store's parts are on disk."""

    root: Path
    """The folder holding MEMORY.md (or that would): paths are relative to it."""
    scan_root: Path
    """The folder the agent loads memories from (root, or root/memory for the typed layout)."""
    archive_dir: Path
    """memtui's archive: beside the loaded folder, never inside it."""
    kind: str
    """`flat` or `typed`."""
    archive_suffix: str = ""
    """Added to every file name in the archive: `.archived` when the archive sits inside the loaded folder
    (a store that is the root of its own repository), so Claude Code, which loads every `*.md` under the
    memory folder, never loads an archived memory."""

    @property
    def index_path(self) -> Path:
        """The MEMORY.md of the store (it may not exist)."""
        return self.root / INDEX_NAME

    @property
    def archive_index_path(self) -> Path:
        """The ARCHIVE.md of the archive (it may not exist)."""
        return self.archive_dir / (ARCHIVE_INDEX + self.archive_suffix)

    def archived_path(self, live: Path) -> Path:
        """Where a live memory goes in the archive (before any `-2` numbering)."""
        dest = self.archive_dir / live.relative_to(self.scan_root)
        return dest.with_name(dest.name + self.archive_suffix)

    def live_path(self, archived: Path) -> Path:
        """Where an archived memory goes back to in the loaded folder."""
        dest = self.scan_root / archived.relative_to(self.archive_dir)
        if self.archive_suffix and dest.name.endswith(self.archive_suffix):
            dest = dest.with_name(dest.name[: -len(self.archive_suffix)])
        return dest

    def rel(self, path: Path) -> str:
        """A path relative to the store root, POSIX separators (`../memory.archive/x.md` for the archive)."""
        text, root = str(path), str(self.root)
        if text.startswith(root + os.sep) and os.sep == "/" and "/../" not in text:
            return text[len(root) + 1 :]  # the common case, without relpath's cost
        return Path(os.path.relpath(path, self.root)).as_posix()

    def resolve(self, rel_path: str) -> Path:
        """The absolute path of a store-relative path."""
        return Path(os.path.normpath(self.root / rel_path))


@dataclass(frozen=True)
class Store:
    """A memory store as read from disk at one moment."""

    layout: StoreLayout
    memories: tuple[Memory, ...]
    index: Index | None
    archive_index: Index | None
    in_store_archive_index: Index | None = None
    by_path: dict[str, Memory] = field(default_factory=dict, hash=False, compare=False, repr=False)

    @property
    def root(self) -> Path:
        """The folder holding MEMORY.md."""
        return self.layout.root

    @property
    def active(self) -> tuple[Memory, ...]:
        """Memories the agent loads and that are not archived."""
        return tuple(m for m in self.memories if m.is_active)

    def count_text(self) -> str:
        """ "44 memories + 2 archived": what `memtui check` and the TUI's header both say of the store. The first number
        is the live memories, so it never counts the archived ones too (in the archive folder, or marked archived and
        still in the loaded folder, which Claude Code loads: their own `archived-but-loaded` finding says so)."""
        live, archived = len(self.active), len(self.memories) - len(self.active)
        return f"{live} {'memory' if live == 1 else 'memories'}" + (f" + {archived} archived" if archived else "")

    def get(self, rel_path: str) -> Memory | None:
        """The memory at a store-relative path, if any."""
        return self.by_path.get(rel_path)


def detect_layout(path: Path) -> StoreLayout:
    """Work out the layout of the store at `path` (the memory folder, or the root of a typed store)."""
    path = path.resolve()
    if not path.exists():
        raise StoreError(f"{path}: no such folder")
    if not path.is_dir():
        raise StoreError(f"{path}: not a folder (point memtui at the folder holding MEMORY.md)")
    if path.name.endswith(".archive"):
        raise StoreError(f"{path}: this is a memtui archive; open the memory folder beside it")
    if (path / INDEX_NAME).exists() and _is_typed(path / "memory"):
        return _typed(path)
    if (
        not (path / INDEX_NAME).exists()
        and path.name == "memory"
        and _is_typed(path)
        and (path.parent / INDEX_NAME).exists()
    ):
        return _typed(path.parent)
    if not (path / INDEX_NAME).exists() and (path / "memory" / INDEX_NAME).is_file():
        return detect_layout(path / "memory")  # a project (or repository) root holding its memory folder
    if (path / ".git").exists():
        # the memory folder is the root of its own repository: a sibling archive would be outside git, so the
        # archive lives inside, hidden, with file names Claude Code does not load (DESIGN §1)
        return StoreLayout(
            root=path, scan_root=path, archive_dir=path / IN_REPO_ARCHIVE, kind="flat", archive_suffix=ARCHIVED_SUFFIX
        )
    return StoreLayout(root=path, scan_root=path, archive_dir=path.parent / f"{path.name}.archive", kind="flat")


def _typed(root: Path) -> StoreLayout:
    scan = root / "memory"
    return StoreLayout(root=root, scan_root=scan, archive_dir=root / "memory.archive", kind="typed")


def _is_typed(folder: Path) -> bool:
    return folder.is_dir() and any((folder / name).is_dir() for name in TYPED_FOLDERS)


def memory_files(folder: Path, suffix: str = "") -> list[Path]:
    """Every memory file under a folder: `*.md` (plus `suffix`, for an in-repository archive) at any depth,
    hidden folders and index files excluded."""
    found: list[Path] = []
    if not folder.is_dir():
        return found
    ending = ".md" + suffix
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not d.endswith(".archive"))
        base = Path(dirpath)
        for name in sorted(filenames):
            if (
                name.endswith(ending)
                and name[: len(name) - len(suffix)] not in NOT_MEMORIES
                and not name.startswith(".")
                and not (name[: len(name) - len(suffix)].lower() == "readme.md" and _no_front_matter(base / name))
            ):
                found.append(base.joinpath(name))
    return found


def _no_front_matter(path: Path) -> bool:
    """Whether a file does not open with front matter. A README without it is a person's note about the folder (a
    store mirrored into a repository has one), not a memory the agent wrote; as a memory it was two cards every
    week (no front matter, not indexed)."""
    try:
        with path.open("rb") as f:
            return f.read(3) != b"---"
    except OSError:
        return False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a batch that only allocates (YAML nodes, tokens).

    Reading 10,000 memories creates millions of short-lived objects and the collector would walk them over
    and over; nothing here makes reference cycles worth collecting, so it runs once, after the batch.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_store(path: Path) -> Store:
    """Read a whole store: live memories, archived ones, MEMORY.md and ARCHIVE.md. Never writes."""
    with gc_paused():
        return _load_store(path)


def _load_store(path: Path) -> Store:
    layout = detect_layout(path)
    index = parse_index(layout.index_path) if layout.index_path.is_file() else None
    in_store_archive = layout.scan_root / IN_STORE_ARCHIVE_INDEX
    archived_inside: set[str] = set()
    in_store_index = None
    if in_store_archive.is_file():
        in_store_index = parse_index(in_store_archive)
        for entry in in_store_index.entries:
            archived_inside.add(layout.rel(in_store_archive.parent / entry.target))
    memories: list[Memory] = []
    for file in memory_files(layout.scan_root):
        rel = layout.rel(file)
        memories.append(read_memory(file, rel, in_archive=False, archived_hint=rel in archived_inside))
    for file in memory_files(layout.archive_dir, layout.archive_suffix):
        memories.append(read_memory(file, layout.rel(file), in_archive=True))
    archive_index = parse_index(layout.archive_index_path) if layout.archive_index_path.is_file() else None
    return Store(
        layout=layout,
        memories=tuple(memories),
        index=index,
        archive_index=archive_index,
        in_store_archive_index=in_store_index,
        by_path={m.path: m for m in memories},
    )
