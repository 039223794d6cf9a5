"""Merge two or more memories into one: the merged text (`default_merge_text`), then one decision.

The target keeps its name and description and its text comes first (into a new file, the first memory's, with a
description covering them all); the others' bodies follow as their own paragraphs; the merged-away memories are
archived with `merged_into`; the merged memory's index line is built from its own name and description. Also the text rules an edit shares:
validation (front matter parses, a type is kept), the final newline, and `updated`/`modified` dates.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from pathlib import Path

from memtui.analysis.check import conflicts_among, strong_conflict
from memtui.audit.repo import message
from memtui.core import frontmatter
from memtui.core.model import MEMORY_TYPES, Memory
from memtui.core.reading import read_memory
from memtui.ops.archiving import archive_one, refuse_moved_secrets
from memtui.ops.index_edit import clause_hook, index_add, index_retarget
from memtui.ops.linking import RELINKED, merge_relinks, read_store
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import safe_path
from memtui.ops.transaction import decision, load


def default_merge_text(memories: Sequence[Memory], into: str | None = None) -> str:
    """The merged memory a person starts from (the CLI's text, and the TUI's merge dialog's first text).

    The target (`into`, a store-relative path, when it is one of `memories`) keeps its front matter — its `name`
    and `description` — and its body leads. Into a new file (or with no `into`), the first memory leads: its
    front matter, with a `description` that covers every memory merged (each description not already said,
    joined by "; "), so the merged memory's index line, built from it, says what the memory now holds. Each other
    memory's body follows as its own paragraphs after a blank line, without the lines the text already holds,
    so a second **Why:** never runs into the first and no rule is dropped. The result ends with a newline.
    """
    target = next((m for m in memories if into is not None and m.path == into), None)
    base = target or memories[0]
    text = base.text if target is not None else _described_as_all(base, memories)
    nl = frontmatter.newline_of(base.text)
    seen = {line.strip() for code, lines in _segments(base.body) if not code for line in lines if line.strip()}
    seen_code = {_code_key(lines) for code, lines in _segments(base.body) if code}
    blocks: list[str] = []
    for m in memories:
        if m is base:
            continue
        block = _new_paragraphs(m.body, seen, seen_code)
        if block:
            blocks.append(nl.join(block))
    if not blocks:
        return text if text.endswith(("\n", "\r")) or not text else text + nl
    return text.rstrip("\r\n") + nl + nl + (nl + nl).join(blocks) + nl


def _described_as_all(base: Memory, memories: Sequence[Memory]) -> str:
    """`base`'s text with a description covering every memory: its own first, then each other one it does not
    already hold (compared without case, spacing or final punctuation). Unchanged when there is nothing to add
    or `base` has no front matter to hold it."""
    parts: list[str] = []
    for m in (base, *[m for m in memories if m is not base]):
        said = " ".join(m.description.split()).rstrip(" .;。；")
        if said and not any(said.lower() in p.lower() for p in parts):
            parts.append(said)
    if len(parts) < 2 or not base.has_frontmatter or base.is_malformed:
        return base.text
    meta = base.frontmatter.get("metadata")
    nested = "description" not in base.frontmatter and isinstance(meta, dict) and "description" in meta
    under = "metadata" if nested else None
    return frontmatter.set_keys(base.text, {"description": frontmatter.yaml_scalar("; ".join(parts))}, under=under)


def _new_paragraphs(body: str, seen: set[str], seen_code: set[str]) -> list[str]:
    """A body's lines minus those already `seen` (which it adds to), blank runs collapsed, edges trimmed. A fenced
    code block is one piece, kept as it is written unless the same block was already said (`seen_code`): its
    fences and lines are code, not sentences to drop when another memory has one like them."""
    kept: list[str] = []
    for code, lines in _segments(body):
        if code:
            key = _code_key(lines)
            if key not in seen_code:
                seen_code.add(key)
                kept += [line.rstrip("\r") for line in lines]
            continue
        for line in lines:
            stripped = line.strip()
            if stripped and stripped in seen:
                continue
            if stripped:
                seen.add(stripped)
            elif not kept or not kept[-1].strip():
                continue  # no leading blank line, and never two in a row
            kept.append(line.rstrip("\r"))
    while kept and not kept[-1].strip():
        kept.pop()
    return kept


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
"""A Markdown code fence: three or more backticks or tildes, indented at most three spaces."""


def _segments(body: str) -> list[tuple[bool, list[str]]]:
    """A body's lines in runs: (False, prose lines) and (True, a fenced code block with its fences). A block
    closes at a fence of its own character at least as long; one never closed runs to the end."""
    out: list[tuple[bool, list[str]]] = []
    opened = ""
    for line in body.splitlines():
        fence = _FENCE.match(line)
        if opened:
            out[-1][1].append(line)
            if fence and fence.group(1)[0] == opened[0] and len(fence.group(1)) >= len(opened):
                if not line.strip().lstrip(opened[0]):  # a closing fence carries no info string
                    opened = ""
            continue
        if fence:
            opened = fence.group(1)
            out.append((True, [line]))
        elif out and not out[-1][0]:
            out[-1][1].append(line)
        else:
            out.append((False, [line]))
    return out


def _code_key(lines: Sequence[str]) -> str:
    return "\n".join(line.strip() for line in lines)


CHANGE_DATE_KEYS = ("updated", "modified")
"""Front matter keys that say when a memory last changed: an edit or a merge moves them to today."""


def bump_change_dates(text: str, before: Sequence[Memory], today: dt.date) -> str:
    """Set `updated`/`modified` (top level or under `metadata:`) to today where the text has them.

    Only keys the text already carries are touched (memtui adds no key a memory did not have: its last
    commit dates it then), and a value the person typed themselves — one no source memory had — is kept.
    """
    try:
        data = frontmatter.parse(text).data
    except frontmatter.FrontMatterError:
        return text
    stamp = today.isoformat()
    meta = data.get("metadata")
    for key in CHANGE_DATE_KEYS:
        for under, holder in ((None, data), ("metadata", meta if isinstance(meta, dict) else {})):
            if key not in holder:
                continue
            value = holder[key]
            old_values = [(m.frontmatter if under is None else m.frontmatter.get("metadata") or {}) for m in before]
            if str(value) == stamp or (
                before and not any(isinstance(o, dict) and o.get(key) == value for o in old_values)
            ):
                continue
            text = frontmatter.set_keys(text, {key: stamp}, under=under)
    return text


def with_final_newline(text: str, like: str | None = None) -> str:
    """`text` ending with a newline (in the file's convention) when `like` did, or always when `like` is None."""
    if not text or text.endswith(("\n", "\r")):
        return text
    if like is not None and not like.endswith(("\n", "\r")):
        return text
    return text + frontmatter.newline_of(like if like else text)


def merge(
    store: Path,
    files: Sequence[str],
    *,
    into: str,
    text: str | None = None,
    text_edited: bool = True,
    reason: str = "",
    expected_hashes: dict[str, str] | None = None,
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Merge two or more memories into one: write the merged memory, archive the others, one commit.

    Memories that plainly contradict each other are merged only with the person's text (`text`, with
    `text_edited` False when it is a suggested text the person left as it was): merged as they are, one memory
    would say both. Weaker conflicts go ahead with a note.
    """
    if len(set(files)) < 2:
        raise OpError(f"{', '.join(files) or '(none)'}: name at least two different memories to merge")
    expected_hashes = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        layout = txn.layout
        paths = [safe_path(layout, f) for f in files]
        loaded = [load(txn, p, expected_hashes.get(f)) for p, f in zip(paths, files, strict=True)]
        for memory, _ in loaded:
            if memory.is_malformed:
                raise OpError(f"{memory.path} could not be parsed ({memory.error}); fix or archive it before merging")
        into_rel = into if "/" in into else Path(files[0]).with_name(into).as_posix()
        if not into_rel.endswith(".md"):
            into_rel += ".md"
        target = safe_path(layout, into_rel, must_exist=False)
        if target.exists() and target not in paths:
            raise OpError(f"{into_rel} already exists and is not one of the merged memories; choose another name")
        memories = [m for m, _ in loaded]
        before = read_store(txn)  # the links to the merged-away memories, resolved as the store was
        conflicts = conflicts_among(memories) if text is None or not text_edited else []
        said = [f"{f.paths[0]} and {f.paths[1]} may conflict ({f.cue})" for f in conflicts]
        if any(strong_conflict(f) for f in conflicts):
            # two claims that contradict each other would both stand in the merged memory
            raise OpError(
                "; ".join(said) + ". Merged as they are, one memory would say both; archive the one that no "
                "longer holds, or merge with a text that says only what holds; nothing was saved",
                cli_hint="give that text with --body-file",
            )
        txn.notes.extend(f"{s}: the merged memory keeps both texts; read it once" for s in said)
        merged_text = text if text is not None else default_merge_text(memories, into=txn.rel(target))
        typed = merged_text  # the text the person merges (a secret in it is named at its line there)
        merged_text = validate_text(merged_text, into_rel, require_type=any(m.type for m in memories))
        merged_text = with_final_newline(merged_text)
        merged_text = bump_change_dates(merged_text, memories, txn.today)
        others = [p for p in paths if p != target]
        sources = [txn.rel(p) for p in paths if p != target]
        if (
            frontmatter.split_block(merged_text)[0] is not None
            and "merged_from" not in frontmatter.parse(merged_text).data
        ):
            merged_text = frontmatter.set_keys(
                merged_text, {"merged_from": "[" + ", ".join(frontmatter.yaml_scalar(s) for s in sources) + "]"}
            )
        original_target = dict(zip(paths, (d for _, d in loaded), strict=True)).get(target)
        txn.write(target, merged_text.encode("utf-8"), expected=original_target, typed=typed)
        result = read_memory(target, into_rel, in_archive=False)
        hook = clause_hook(result.description)  # a description covering every memory merged names each one
        index_retarget(txn, set(paths), target, result.title, hook)
        why = reason.strip() or f"merged into {into_rel}"
        merged_away = [
            (p, data, archive_one(txn, p, data, memory, why, {"merged_into": into_rel}))
            for p, (memory, data) in zip(paths, loaded, strict=True)
            if p != target
        ]
        refuse_moved_secrets(txn, merged_away, "archived as")
        index_add(txn, target, result.title, hook)
        relinked = merge_relinks(txn, before, sources, [txn.rel(p) for p in paths], result)
        trailers = [("Memtui-Memory", txn.repo.rel(p)) for p in others]
        trailers += [("Memtui-Merged-Into", txn.repo.rel(target)), ("Memtui-Reason", why)]
        trailers += [(RELINKED, txn.repo.rel(p)) for p in relinked]
        sha = txn.commit(message("merge", f"{len(paths)} memories into {target.name}", why, trailers))
        written = [into_rel, *sources, *(txn.rel(p) for p in relinked)]
        return txn.result("merge", sha, f"merged {', '.join(files)} into {into_rel}", written)


def validate_text(text: str, rel: str, *, require_type: bool) -> str:
    try:
        fm = frontmatter.parse(text)
    except frontmatter.FrontMatterError as exc:
        raise OpError(f"{rel}: the new text's {exc}; nothing was saved") from None
    if not fm.present and (misplaced := frontmatter.misplaced_opening(text)):
        raise OpError(f"{rel}: {misplaced}; nothing was saved")
    if not fm.present and require_type:
        # a memory with a type had front matter: the text lost its opening `---` line, which is what to fix
        raise OpError(f"{rel}: {frontmatter.no_opening(text)}; nothing was saved")
    if require_type:
        raw = fm.data.get("type")
        meta = fm.data.get("metadata")
        if raw is None and isinstance(meta, dict):
            raw = meta.get("type")
        if str(raw or "").strip().lower() not in MEMORY_TYPES:
            raise OpError(f"{rel}: the new text must keep a type ({', '.join(MEMORY_TYPES)}); nothing was saved")
    return text


# --------------------------------------------------------------------------------------------- edit / verify / fix-date
