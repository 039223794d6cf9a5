"""`memtui hook pre-commit FILE...`: the git pre-commit hook (`.pre-commit-hooks.yaml`) that checks each store
a commit touches."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def store_for_committed_file(file: Path) -> Path | None:
    """The store a committed memory file belongs to: the nearest folder above it holding MEMORY.md.

    A file in a memtui archive (`memory.archive/`) belongs to the store beside it; a folder without MEMORY.md
    still counts when it is a sub-agent's memory (`.claude/agent-memory[-local]/<agent>/`).
    """
    from memtui.core.locate import AGENT_MEMORY_DIRS

    path = Path(os.path.abspath(file))
    if path.suffix.lower() != ".md":
        return None
    for folder in path.parents:
        if folder.name.endswith(".archive"):
            sibling = folder.with_name(folder.name[: -len(".archive")])
            if sibling.is_dir():
                return sibling
        if (folder / "MEMORY.md").is_file():
            return folder
        if folder.parent.name in AGENT_MEMORY_DIRS and folder.parent.parent.name == ".claude":
            return folder
        if (folder / ".git").exists():
            break
    return None


def pre_commit(files: Sequence[str], check: Any) -> int:
    """`memtui hook pre-commit FILE...`: `memtui check` on each store these files belong to.

    `check(store)` is the check command (it prints every finding and returns 1 when one is an error); this
    returns the worst exit code, so the commit fails on errors only and the rest is reported.
    """
    stores: dict[Path, None] = {}
    for name in files:
        store = store_for_committed_file(Path(name))
        if store is not None:
            stores.setdefault(Path(os.path.normpath(store)), None)
    worst = 0
    for store in stores:
        worst = max(worst, int(check(store)))
        print()
    return worst
