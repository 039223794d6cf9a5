"""Decisions that change a memory in place: edit, verify (one or several), fix a relative date."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from memtui.analysis import dates as reldates
from memtui.analysis.check import writing_dates
from memtui.audit.repo import message
from memtui.core import frontmatter
from memtui.core.freshness import to_date
from memtui.core.model import Memory
from memtui.ops.index_edit import encode_like
from memtui.ops.merging import bump_change_dates, validate_text, with_final_newline
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import safe_path
from memtui.ops.transaction import Txn, decision, load


def edit(
    store: Path,
    file: str,
    new_text: str,
    *,
    expected_hash: str | None = None,
    reason: str = "",
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Replace a memory's text with the person's edit, validated first: front matter must parse and keep a type."""
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = load(txn, path, expected_hash)
        if memory.is_malformed and memory.error and "UTF-8" in memory.error:
            raise OpError(f"{memory.path}: {memory.error}; memtui will not rewrite a file it cannot decode")
        validate_text(new_text, memory.path, require_type=memory.type is not None)
        nl = frontmatter.newline_of(memory.text) if memory.text else "\n"
        if nl == "\r\n" and "\r\n" not in new_text:
            new_text = new_text.replace("\n", "\r\n")
        # an editor widget drops the final newline; the file keeps the one it had
        new_text = with_final_newline(new_text, memory.text or None)
        if new_text != memory.text:
            new_text = bump_change_dates(new_text, [memory], txn.today)
        new_data = encode_like(new_text, data)
        if new_data == data:
            return txn.result("edit", None, f"{memory.path}: no change")
        txn.write(path, new_data, expected=data)
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("edit", path.name, reason, trailers))
        return txn.result("edit", sha, f"edited {memory.path}", (memory.path,))


def verify(
    store: Path,
    file: str,
    *,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Mark a memory as still true: stamp `last_verified` with today's date."""
    return verify_many(
        store,
        [file],
        expected_hashes={file: expected_hash} if expected_hash else None,
        today=today,
        allow_secret=allow_secret,
    )


def verify_many(
    store: Path,
    files: Sequence[str],
    *,
    expected_hashes: Mapping[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Mark several memories as still true in one decision (one commit naming each); any refusal verifies none."""
    if not files:
        raise OpError("name at least one memory to verify")
    if len(set(files)) != len(files):
        twice = next(f for f in files if list(files).count(f) > 1)
        raise OpError(f"{twice} is named twice; name each memory to verify once")
    expected = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        stamp = txn.today.isoformat()
        plans = [_verified(txn, safe_path(txn.layout, f), expected.get(f)) for f in files]
        changed = [(path, memory, data, text) for path, memory, data, text in plans if text != memory.text]
        if not changed:
            what = plans[0][1].path if len(plans) == 1 else f"all {len(plans)} memories"
            return txn.result("verify", None, f"{what}: already verified today")
        for path, _, data, text in changed:
            txn.write(path, encode_like(text, data), expected=data)
        trailers = [("Memtui-Memory", txn.repo.rel(path)) for path, *_ in changed]
        trailers.append(("Memtui-Verified", stamp))
        subject = changed[0][0].name if len(changed) == 1 else f"{len(changed)} memories"
        sha = txn.commit(message("verify", subject, "", trailers))
        done = [memory.path for _, memory, _, _ in changed]
        return txn.result("verify", sha, f"verified {', '.join(done)} ({stamp})", done)


def _verified(txn: Txn, path: Path, expected_hash: str | None) -> tuple[Path, Memory, bytes, str]:
    """A memory's path, parsed form, bytes, and its text with `last_verified` stamped today (refusing what cannot be)."""
    memory, data = load(txn, path, expected_hash)
    if memory.is_malformed:
        raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
    if not memory.has_frontmatter:
        raise OpError(
            f"{memory.path} has no front matter; memtui does not add one (Claude Code's rule) — edit it instead"
        )
    expires = to_date(memory.field_value("expires_at"))
    if expires is not None and expires < txn.today:
        raise OpError(
            f"{memory.path} expired on {expires.isoformat()} (expires_at); verifying would not make it current — "
            "edit its expires_at if it still holds, or archive it"
        )
    under = "metadata" if memory.generation == "B" and "last_verified" not in memory.frontmatter else None
    base_text, dropped = _drop_shadowed_duplicates(memory.text, "last_verified")
    if dropped:
        txn.notes.append(
            f"{memory.path}: `last_verified` appeared {dropped + 1} times; YAML reads only the last, "
            "so the earlier lines were removed and the last one stamped"
        )
    return path, memory, data, frontmatter.set_keys(base_text, {"last_verified": txn.today.isoformat()}, under=under)


def _drop_shadowed_duplicates(text: str, key: str) -> tuple[str, int]:
    """Remove top-level `key:` lines of the front matter that a later one shadows (YAML keeps the last)."""
    try:
        block, end = frontmatter.split_block(text)
    except frontmatter.FrontMatterError:
        return text, 0
    if block is None:
        return text, 0
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    head = text[: text.index(block)] if block else ""
    lines = block.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if pattern.match(line)]
    if len(hits) < 2:
        return text, 0
    keep = [line for i, line in enumerate(lines) if i not in hits[:-1]]
    return head + "".join(keep) + text[len(head) + len(block) :], len(hits) - 1


def fix_date(
    store: Path,
    file: str,
    *,
    phrase: str | None = None,
    date: dt.date | None = None,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Replace a relative date ("tomorrow", "下周四") with the absolute date it meant (or the one given).

    The date it meant is the one `check` offers (`dates.dated_phrases`): counted from a dated heading above the
    phrase, a date in the memory's name, its front-matter dates, else its first commit. When that day is not known
    (a file memtui's init put under git, a copy with only its mtime), or it is only the file's first commit and the
    date would be after today, nothing is written unless `date` is given. The summary says which day it was
    counted from; `OpResult.shown` holds the line before and after.
    """
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = load(txn, path, expected_hash)
        if memory.is_malformed:
            raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
        known = writing_dates(memory, txn.repo.file_dates())
        proposals = reldates.dated_phrases(
            memory.description + "\n" + memory.body,
            known,
            txn.today,
            name=memory.name or "",
            file_name=path.name,
        )
        wanted = [p for p in proposals if phrase is None or p.phrase.lower() == phrase.lower()]
        key = wanted[0].phrase.lower() if wanted else ""
        found = [h for h in reldates.find_relative_dates(memory.text, None) if h.phrase.lower() == key]
        if not found:
            raise OpError(f"{memory.path}: no relative date{f' {phrase!r}' if phrase else ''} to fix")
        hit = wanted[0]
        base = hit.base
        replacement = date.isoformat() if date else hit.replacement
        if replacement is None:
            if hit.withheld:
                why = (
                    f"counted from {base.date} ({base.source}, perhaps the day it was copied) it is {hit.withheld}, "
                    "after today"
                    if base
                    else ""
                )
            else:
                why = f"when it was written is not known: {base.source}" if base else "when it was written is not known"
            raise OpError(f"{memory.path}: no date for {hit.phrase!r} ({why}); give the date it meant with --date")
        # every place the same phrase appears (a description and its body often repeat it) gets the same text
        lines = memory.text.split("\n")
        before_after: list[str] = []
        for number in sorted({h.line for h in found}):
            old = new = lines[number - 1]
            for h in found:
                if h.line == number:
                    new = new.replace(h.phrase, replacement, 1)
            lines[number - 1] = new
            before_after += [f"line {number}: - {old.strip()}", f"line {number}: + {new.strip()}"]
        new_text = "\n".join(lines)
        txn.write(path, encode_like(new_text, data), expected=data)
        if date is not None:
            counted = "the date given"
        else:
            assert base is not None and base.date is not None
            counted = f"counted from {base.date.isoformat()}, {base.source}"
        reason = f'"{hit.phrase}" → {replacement} ({counted})'
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("fix-date", path.name, reason, trailers))
        result = txn.result("fix-date", sha, f"{memory.path}: {reason}", (memory.path,))
        return replace(result, shown=tuple(before_after))
