"""Putting a store under git (`init`) and recording the agent's writes on their own (`record_agent_write`)."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.analysis import secrets
from memtui.audit import repo as gitrepo
from memtui.audit.repo import FileState, NotInGit, escape_path, message, open_repo, run_git
from memtui.core.store import detect_layout
from memtui.ops.outcome import OpError, OpResult, refuse_secrets
from memtui.ops.paths import atomic_write, refuse_links
from memtui.ops.transaction import decision, mode_of, scan_bytes

GITIGNORE = """# memtui: only the memory store and its archive are versioned here.
/*
!/.gitignore
!/{store}/
!/{archive}/
"""


def init(store: Path, *, allow_secret: bool = False) -> OpResult:
    """Put a store that is not in git under git: a repository at the folder holding the store and its archive.

    Every file that would go into the first commit is scanned (any type, decodable or not, and its name); what
    looks like a secret refuses the whole init, unless `allow_secret` (the person checked it is not one, or
    keeps it knowingly): then it is committed and named in a note.
    """
    layout = detect_layout(store)
    refuse_links(layout)
    try:
        gitrepo.open_repo(layout)
    except gitrepo.GitFailed as exc:
        raise OpError(str(exc)) from None
    except NotInGit:
        pass
    else:
        raise OpError(f"{layout.root} is already in a git repository; nothing to do")
    top = layout.root.parent if layout.kind == "flat" else layout.root
    leaks = []
    candidates = [layout.index_path] if layout.index_path.is_file() else []
    for folder in (layout.scan_root, layout.archive_dir):
        if folder.is_dir():
            candidates += sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    for file in candidates:
        rel = Path(os.path.relpath(file, top)).as_posix()
        leaks += [f"{escape_path(rel)}:{h.line} ({h.label})" for h in scan_bytes(file.read_bytes())]
        leaks += [f"the file name {escape_path(rel)} ({h.label})" for h in secrets.scan(file.name)]
    if not allow_secret:
        refuse_secrets(
            leaks,
            what="putting the store under git would commit",
            advice="remove them before memtui puts it under git, or pass --allow-secret if they are not secrets",
        )
    run_git(top, ["init", "-q"])
    ignore = top / ".gitignore"
    if layout.kind == "flat":
        content = GITIGNORE.format(store=layout.root.name, archive=layout.archive_dir.name)
    else:
        content = "# memtui: only the memory store is versioned here.\n/*\n!/.gitignore\n!/MEMORY.md\n!/memory/\n!/memory.archive/\n"
    if not ignore.exists():
        atomic_write(ignore, content.encode())
    srepo = open_repo(layout)
    files: dict[str, FileState | None] = {}
    for rel in [".gitignore", *srepo.changed_paths()]:
        path = srepo.work_tree / rel
        if path.is_symlink():
            files[rel] = FileState(os.fsencode(os.readlink(path)), "120000")
        elif path.is_file():
            files[rel] = FileState(path.read_bytes(), mode_of(path))
    msg = message(
        "init", layout.root.name, "Put the memory store under git.", [("Memtui-Memory", srepo.rel(layout.root))]
    )
    sha = srepo.commit_files(msg, files)
    notes: tuple[str, ...] = (srepo.identity_note,) if srepo.identity_note else ()
    if leaks:
        notes += ("committed although it looks like a secret (allowed): " + ", ".join(leaks),)
    return OpResult("init", sha, f"created a git repository at {top} for {layout.root}", (), None, notes)


# Owned by the "hook" branch: the one public entry the PostToolUse hook uses. Keep it a thin wrapper.


def record_agent_write(store: Path, *, session: str | None = None) -> OpResult:
    """Commit what the agent wrote, on its own (`Memtui-Actor: agent`, plus `Memtui-Session` when known).

    The same recording every decision does first (secrets withheld, the same lock, recovery and git-state
    refusals), with nothing decided after it.
    """
    with decision(store, session=session) as txn:
        pass
    summary = f"recorded the agent's writes: {txn.agent_commit[:8]}" if txn.agent_commit else "nothing to record"
    return txn.result("agent-write", txn.agent_commit, summary)
