"""Every action a person takes on a store: the only code in memtui that writes.

Each public function is one decision and one git commit limited to the store's files. Every one of them:
re-reads the file and refuses when it changed since the caller read it (the agent writes while people
curate); commits what the agent wrote since the last commit on its own first (`Memtui-Actor: agent`); writes
atomically (temp file + rename); keeps MEMORY.md and ARCHIVE.md consistent; never rewrites a file it could
not parse except to archive it whole; refuses paths that leave the store; refuses to commit a secret unless
told to; and holds the store's lock while it works. The CLI and the TUI call these same functions.

Where each concern lives: `outcome` (results and refusals), `paths` (path safety, atomic writes),
`transaction` (lock, journal, recovery, the agent's writes, commit or rollback), `index_edit` (MEMORY.md and
the archive's index), and the actions: `archiving`, `merging`, `editing`, `indexing` (MEMORY.md's own lines:
add the unlisted, drop the broken), `linking` (wikilinks a merge or `relink` rewrites), `history` (undo, redo, review markers), `recording` (init, the hook's
agent-write record). Callers use this package's names only.
"""

from __future__ import annotations

from memtui.audit.repo import NotInGit
from memtui.ops.archiving import (
    RESTORED_FROM_GIT,
    STAMP_KEYS,
    archive,
    archive_many,
    bring_back,
    restore,
    restore_many,
)
from memtui.ops.editing import DateFix, LineFix, edit, fix_date, fix_date_preview, verify, verify_many
from memtui.ops.history import ACCEPT_DELETION, UNDOABLE, accept_deletion, finish_review, keep_both, redo, undo
from memtui.ops.index_edit import ARCHIVE_HEADER
from memtui.ops.indexing import drop_link, index
from memtui.ops.linking import relink
from memtui.ops.merging import CHANGE_DATE_KEYS, default_merge_text, merge
from memtui.ops.outcome import ChangedOnDisk, DeletedOnDisk, OpError, OpResult, PathRefused, SecretRefused
from memtui.ops.paths import TEMP_FILE, atomic_write, check_new_name, safe_path
from memtui.ops.recording import GITIGNORE, init, record_agent_write
from memtui.ops.transaction import Txn, heal, recover, scan_bytes
from memtui.ops.transaction import Txn as _Txn  # the name tests and probes patch
from memtui.ops.transaction import decision as _decision

__all__ = [
    "ACCEPT_DELETION",
    "ARCHIVE_HEADER",
    "CHANGE_DATE_KEYS",
    "GITIGNORE",
    "RESTORED_FROM_GIT",
    "STAMP_KEYS",
    "TEMP_FILE",
    "UNDOABLE",
    "ChangedOnDisk",
    "DateFix",
    "DeletedOnDisk",
    "LineFix",
    "NotInGit",
    "OpError",
    "OpResult",
    "PathRefused",
    "SecretRefused",
    "Txn",
    "_Txn",
    "_decision",
    "accept_deletion",
    "archive",
    "archive_many",
    "atomic_write",
    "check_new_name",
    "default_merge_text",
    "drop_link",
    "edit",
    "finish_review",
    "heal",
    "index",
    "fix_date",
    "fix_date_preview",
    "init",
    "keep_both",
    "merge",
    "record_agent_write",
    "recover",
    "redo",
    "relink",
    "bring_back",
    "restore",
    "restore_many",
    "safe_path",
    "scan_bytes",
    "undo",
    "verify",
    "verify_many",
]
