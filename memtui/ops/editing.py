"""Decisions that change a memory in place: edit, verify (one or several), fix a relative date."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from memtui.analysis import dates as reldates
from memtui.analysis.check import FileDates, writing_dates
from memtui.analysis.written import Base
from memtui.audit.repo import StoreRepo, message, try_open_repo
from memtui.core import frontmatter
from memtui.core.errors import MemtuiError
from memtui.core.freshness import to_date
from memtui.core.model import Memory
from memtui.core.reading import VERIFY_STAMP, read_memory, unstamped_hash
from memtui.core.store import detect_layout
from memtui.ops.index_edit import encode_like
from memtui.ops.merging import CHANGE_DATE_KEYS, bump_change_dates, validate_text, with_final_newline
from memtui.ops.outcome import OpError, OpResult
from memtui.ops.paths import distinct_names, safe_path
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
        path = safe_path(txn.layout, file, read_for="edit" if expected_hash else None)
        memory, data = load(txn, path, expected_hash)
        if memory.is_malformed and memory.error and "UTF-8" in memory.error:
            raise OpError(f"{memory.path}: {memory.error}; memtui will not rewrite a file it cannot decode")
        validate_text(new_text, memory.path, require_type=memory.type is not None)
        nl = frontmatter.newline_of(memory.text) if memory.text else "\n"
        if nl == "\r\n" and "\r\n" not in new_text:
            new_text = new_text.replace("\n", "\r\n")
        # an editor widget drops the final newline; the file keeps the one it had
        new_text = with_final_newline(new_text, memory.text or None)
        typed = new_text
        if new_text != memory.text:
            new_text = bump_change_dates(new_text, [memory], txn.today)
        new_data = encode_like(new_text, data)
        if new_data == data:
            return txn.result("edit", None, f"{memory.path}: no change")
        txn.write(path, new_data, expected=data, typed=typed)
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("edit", path.name, reason, trailers))
        return txn.result("edit", sha, f"edited {memory.path}{_stamped(typed, new_text, txn.today)}", (memory.path,))


def verify(
    store: Path,
    file: str,
    *,
    expected_hash: str | None = None,
    accept_schema: bool = False,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Mark a memory as still true: stamp `last_verified` with today's date (`accept_schema`: and right as it is,
    its schema finding settled for this version, `verify_many`)."""
    return verify_many(
        store,
        [file],
        expected_hashes={file: expected_hash} if expected_hash else None,
        accept_schema=[file] if accept_schema else (),
        today=today,
        allow_secret=allow_secret,
    )


def verify_many(
    store: Path,
    files: Sequence[str],
    *,
    expected_hashes: Mapping[str, str] | None = None,
    accept_schema: Collection[str] = (),
    allow_secret: bool = False,
    today: dt.date | None = None,
) -> OpResult:
    """Mark several memories as still true in one decision (one commit naming each); any refusal verifies none.

    The memories in `accept_schema` (some of `files`) are accepted as they are instead: their schema finding (no
    **Why:**, no location, an unknown type…) is settled for this version, and comes back only when the memory
    changes (`memtui.audit.history.honour_accepted`; memtui's own stamp is no change). Accepting says the format is
    fine, not that the memory is still true: it stamps nothing (its age and stale finding stay as they were). The
    commit records each one's hash without the stamp (`Memtui-Accepted`, `Memtui-Accepted-Hashes`); when nothing
    was stamped it is an `accept` decision, a commit that changes no file."""
    files = distinct_names(files, "verify")
    if stray := [f for f in accept_schema if f not in files]:
        raise OpError(f"{stray[0]} is accepted but not verified; name it among the memories to verify")
    expected = expected_hashes or {}
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        stamp = txn.today.isoformat()

        def path_of(f: str) -> Path:
            return safe_path(txn.layout, f, read_for="verify" if f in expected else None)

        plans = [_verified(txn, path_of(f), expected.get(f)) for f in files if f not in accept_schema]
        accepted = [_accepted(txn, path_of(f), expected.get(f)) for f in files if f in accept_schema]
        changed = [(path, memory, data, text) for path, memory, data, text in plans if text != memory.text]
        if not changed and not accepted:
            what = plans[0][1].path if len(plans) == 1 else f"all {len(plans)} memories"
            return txn.result("verify", None, f"{what}: already verified today")
        for path, _, data, text in changed:
            txn.write(path, encode_like(text, data), expected=data)
        # a verify names what it stamped; the memories only accepted are named by `Memtui-Accepted` alone (in an
        # accept with nothing stamped, they are what the decision is about)
        named = [path for path, *_ in changed] or [p for p, _ in accepted]
        trailers = [("Memtui-Memory", txn.repo.rel(path)) for path in named]
        if changed:
            trailers.append(("Memtui-Verified", stamp))
        if accepted:
            # each without memtui's stamp: a later verify is no change to what was accepted
            bare = [unstamped_hash(m)[:16] for _, m in accepted]
            trailers += [("Memtui-Accepted", txn.repo.rel(p)) for p, _ in accepted]
            trailers += [("Memtui-Accepted-Kind", "schema"), ("Memtui-Accepted-Hashes", ",".join(bare))]
        action = "verify" if changed else "accept"
        subject = named[0].name if len(named) == 1 else f"{len(named)} memories"
        if changed and accepted:
            subject += f"; accept {accepted[0][0].name if len(accepted) == 1 else f'{len(accepted)} memories'}"
        body = ""
        if accepted:
            body = (
                "Accepted as it is: its schema finding is settled until it changes."
                if len(accepted) == 1
                else "Accepted as they are: their schema findings are settled until they change."
            )
        msg = message(action, subject, body, trailers)
        sha = txn.commit(msg) if changed else txn.repo.marker_commit(msg)
        done = [memory.path for _, memory, _, _ in changed]
        summary = f"verified {', '.join(done)} ({stamp})" if done else ""
        if accepted:
            names = ", ".join(m.path for _, m in accepted)
            summary += (
                "; " if summary else ""
            ) + f"accepted as {'it is' if len(accepted) == 1 else 'they are'} (not stamped verified): {names}"
        return txn.result(action, sha, summary, done or [m.path for _, m in accepted])


def _accepted(txn: Txn, path: Path, expected_hash: str | None) -> tuple[Path, Memory]:
    """A memory to accept as it is: its path and parsed form (refusing a file that cannot be parsed)."""
    memory, _ = load(txn, path, expected_hash)
    if memory.is_malformed:
        raise OpError(f"{memory.path} could not be parsed ({memory.error}); there is no schema to accept")
    if not memory.has_frontmatter:
        # as the review's `v`: a memory without front matter is fixed by giving it some (memtui never adds it)
        raise OpError(f"{memory.path} has no front matter to accept; edit it to add some, or archive it")
    return path, memory


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
    under = "metadata" if memory.generation == "B" and VERIFY_STAMP not in memory.frontmatter else None
    base_text, dropped = _drop_shadowed_duplicates(memory.text, VERIFY_STAMP)
    if dropped:
        txn.notes.append(
            f"{memory.path}: `last_verified` appeared {dropped + 1} times; YAML reads only the last, "
            "so the earlier lines were removed and the last one stamped"
        )
    return path, memory, data, frontmatter.set_keys(base_text, {VERIFY_STAMP: txn.today.isoformat()}, under=under)


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


@dataclass(frozen=True)
class LineFix:
    """One line of a memory file that a date fix rewrites."""

    number: int
    """1-based line number in the file."""
    text: str
    """The line as it is now."""
    phrase: str
    columns: tuple[int, ...]
    """Where each occurrence of `phrase` it replaces starts (0-based); no other occurrence is touched."""

    def after(self, replacement: str) -> str:
        """The line with the phrase replaced by `replacement` at `columns`."""
        out, at = [], 0
        for column in sorted(self.columns):
            out += [self.text[at:column], replacement]
            at = column + len(self.phrase)
        return "".join(out) + self.text[at:]


@dataclass(frozen=True)
class DateFix:
    """What `fix_date` will write for one relative date, worked out without writing (`fix_date_preview`).

    `lines` are every line it changes: each line of the body and of the description that says the phrase counted
    from the same day as the finding's (the same date, however often a daily log says "今天"), and no other. The
    same phrase counted from another day (under another dated heading) is in `others`: its own finding once this
    fix is written, and its own decision.
    """

    path: str
    phrase: str
    proposal: str | None
    """The text memtui proposes for the phrase (`check`'s date or range); None when it offers none."""
    base: Base | None
    """The day the phrase was counted from, and why."""
    withheld: str
    """The date worked out but not offered (after today, counted from only the first commit); else empty."""
    lines: tuple[LineFix, ...]
    others: tuple[int, ...] = ()
    """The file lines where the phrase is also said, counted from another day: left as they are by this fix."""

    @property
    def numbers(self) -> tuple[int, ...]:
        """The file line numbers the fix changes (what `fix_date(lines=...)` checks against)."""
        return tuple(line.number for line in self.lines)

    def counted(self, replacement: str) -> str:
        """Where `replacement` came from, as the commit says it: counted from the day memtui proposed it from,
        when it is memtui's proposal (typed in again or accepted as offered), else the date the person gave."""
        if replacement == self.proposal and self.base is not None and self.base.date is not None:
            return f"counted from {self.base.date.isoformat()}, {self.base.source}"
        return "the date given"

    def written(self, given: str) -> str:
        """The text written in place of the phrase for what a person gave (`dates.written_as`): the proposal as
        offered, a day, or for a range a month or year. Raises ValueError, saying what may be given, for anything
        else."""
        return reldates.written_as(given, self.phrase, self.proposal)

    def shown(self, replacement: str) -> tuple[str, ...]:
        """Each changed line before and after (`line 9: - …`, `line 9: + …`), as the CLI prints and a dialog shows."""
        out: list[str] = []
        for line in self.lines:
            out += [
                f"line {line.number}: - {line.text.strip()}",
                f"line {line.number}: + {line.after(replacement).strip()}",
            ]
        return tuple(out)


def _plan_date_fix(
    memory: Memory, dates: FileDates, today: dt.date, phrase: str | None, repo: StoreRepo | None
) -> DateFix:
    """The lines a fix of `phrase` (None: the first relative date) changes in `memory`; refused when there is none,
    or when an occurrence cannot be found where the analysis saw it (nothing is written then).

    Where the file's dates leave a phrase's day open, git's line history is asked (`StoreRepo.lines_written`), as
    `check` asks it, so the fix writes the date the finding offers."""
    known = writing_dates(memory, dates)
    hits = reldates.memory_hits(memory, known, today)
    asked = reldates.line_questions(memory, hits)
    if asked and repo is not None:
        try:
            answers = repo.lines_written({memory.path: asked}, dates.pending).get(memory.path, {})
        except MemtuiError:
            answers = {}  # history unreadable: the day stays unknown, and no date is proposed
        hits = reldates.memory_hits(memory, reldates.told_by_lines(memory, hits, known, answers), today)
    proposals = reldates.unique_phrases(hits, memory.description.count("\n") + 2)
    wanted = [p for p in proposals if phrase is None or p.phrase.lower() == phrase.lower()]
    if not wanted:
        raise OpError(f"{memory.path}: no relative date{f' {phrase!r}' if phrase else ''} to fix")
    hit = wanted[0]
    same = [h for h in hits if h.phrase.lower() == hit.phrase.lower()]
    lines = [line.rstrip("\r") for line in memory.text.split("\n")]
    # every occurrence counted from the same day says the same date: one decision writes them all (the description
    # often says it too); one counted from another day (another dated heading) is left for its own decision
    together = [h for h in same if h.base == hit.base]
    columns = _columns(memory, together)
    apart = _columns(memory, [h for h in same if h.base != hit.base])
    fixes = []
    for number, at in sorted(columns.items()):
        text = lines[number - 1] if 0 < number <= len(lines) else ""
        if not at or any(text[c : c + len(hit.phrase)].lower() != hit.phrase.lower() for c in at):
            raise OpError(f"{memory.path}: could not find {hit.phrase!r} on line {number}; nothing was changed")
        fixes.append(LineFix(number, text, hit.phrase, tuple(at)))
    others = tuple(sorted(set(apart) - set(columns)))
    return DateFix(memory.path, hit.phrase, hit.replacement, hit.base, hit.withheld, tuple(fixes), others)


def _columns(memory: Memory, hits: list[reldates.RelativeDate]) -> dict[int, list[int]]:
    """Where each of `hits` starts in the memory's file (`dates.file_spots`): {file line: [columns]}."""
    columns: dict[int, list[int]] = {}
    for spot in reldates.file_spots(memory.text, memory.description, memory.body, hits):
        if spot is not None:
            columns.setdefault(spot[0], []).append(spot[1])
    return columns


def _stamped(typed: str, written: str, today: dt.date) -> str:
    """What memtui added to the text typed, said in the edit's summary so nothing changes unseen: the change dates
    it moved to today (`bump_change_dates`)."""
    moved = [
        key
        for key in CHANGE_DATE_KEYS
        if re.findall(rf"^\s*{key}:.*$", typed, re.MULTILINE) != re.findall(rf"^\s*{key}:.*$", written, re.MULTILINE)
    ]
    return f" ({' and '.join(f'`{k}`' for k in moved)} set to {today.isoformat()})" if moved else ""


def fix_date_preview(
    store: Path,
    file: str,
    *,
    phrase: str | None = None,
    today: dt.date | None = None,
    repo: StoreRepo | None = None,
) -> DateFix:
    """What `fix_date` would change, without writing: every line, before and after (`DateFix.shown`), the date
    memtui proposes and the day it is counted from. A front end shows all of it, then calls `fix_date` with
    `lines=DateFix.numbers`, so the fix writes exactly what the person saw.

    `repo` is a handle the caller already has open on this store's repository (the workspace's): its file dates,
    cached while HEAD stays where it is, are read again only when HEAD moved. Without it (or for another store)
    a new handle reads the whole history."""
    layout = detect_layout(store)
    path = safe_path(layout, file)
    memory = read_memory(path, layout.rel(path), in_archive=False)
    if memory.is_malformed:
        raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
    if repo is None or repo.layout != layout:
        repo = try_open_repo(layout)
    today = today or dt.date.today()
    # a write since the last commit counts as of today: `fix_date` records it first, and plans from there
    dates = repo.file_dates_now(today) if repo is not None else FileDates()
    return _plan_date_fix(memory, dates, today, phrase, repo)


def fix_date(
    store: Path,
    file: str,
    *,
    phrase: str | None = None,
    date: dt.date | str | None = None,
    lines: Sequence[int] | None = None,
    expected_hash: str | None = None,
    today: dt.date | None = None,
    allow_secret: bool = False,
) -> OpResult:
    """Replace a relative date ("tomorrow", "下周四") with the absolute date it meant (or the one given).

    `date` is a day, or what a person typed (`DateFix.written`): memtui's proposal as offered, a day
    (YYYY-MM-DD), or for a phrase that names a range ("last month") a month (2026-10, written "October 2026")
    or a year (2027); anything else is refused, writing nothing.

    The date it meant is the one `check` offers (`dates.dated_phrases`): counted from a dated heading above the
    phrase, a date in the memory's name, the commit that wrote it on its line (git's line history, when the file
    changed after its first commit), its front-matter dates, else its first commit. When that day is not known
    (a file memtui's init put under git, a copy with only its mtime, a line from a merge), or it is only the file's
    first commit and the date would be after today, nothing is written unless `date` is given, and the refusal
    says why. Only the lines `fix_date_preview` names
    change: every line saying the phrase counted from the same day as the finding's (the description too), in one
    commit; the phrase counted from another day (another dated heading) is left for its own fix, and a note says
    where. With `lines` (the line numbers
    the person was shown), a fix that would change any other line is refused, writing nothing. The commit says
    which day the date was counted from when it is memtui's proposal (given or not), else that it was given;
    `OpResult.shown` holds each line before and after.
    """
    with decision(store, allow_secret=allow_secret, today=today) as txn:
        path = safe_path(txn.layout, file)
        memory, data = load(txn, path, expected_hash)
        if memory.is_malformed:
            raise OpError(f"{memory.path} could not be parsed ({memory.error}); memtui will not rewrite it")
        plan = _plan_date_fix(memory, txn.repo.file_dates(), txn.today, phrase, txn.repo)
        if lines is not None and set(plan.numbers) != set(lines):
            shown = ", ".join(str(n) for n in sorted(lines)) or "none"
            raise OpError(
                f"{memory.path}: fixing {plan.phrase!r} would change line(s) {', '.join(map(str, plan.numbers))}, "
                f"not the line(s) shown ({shown}); nothing was changed — look again"
            )
        if isinstance(date, str):
            try:
                replacement: str | None = plan.written(date)
            except ValueError as exc:
                raise OpError(f"{memory.path}: {exc}; nothing was changed") from None
        else:
            replacement = date.isoformat() if date else plan.proposal
        if replacement is None:
            base = plan.base
            if plan.withheld:
                why = (
                    f"counted from {base.date} ({base.source}, perhaps the day it was copied) it is {plan.withheld}, "
                    "after today"
                    if base
                    else ""
                )
            else:
                why = f"when it was written is not known: {base.source}" if base else "when it was written is not known"
            raise OpError(f"{memory.path}: no date for {plan.phrase!r} ({why}); give the date it meant with --date")
        text_lines = memory.text.split("\n")
        for line in plan.lines:
            ending = text_lines[line.number - 1][len(line.text) :]  # a CRLF file keeps its "\r"
            text_lines[line.number - 1] = line.after(replacement) + ending
        txn.write(path, encode_like("\n".join(text_lines), data), expected=data)
        reason = f'"{plan.phrase}" → {replacement} ({plan.counted(replacement)})'
        trailers = [("Memtui-Memory", txn.repo.rel(path)), ("Memtui-Reason", reason)]
        sha = txn.commit(message("fix-date", path.name, reason, trailers))
        if plan.others:
            where = ", ".join(str(n) for n in plan.others)
            txn.notes.append(
                f'{memory.path}: "{plan.phrase}" is still said on line{"s" if len(plan.others) > 1 else ""} {where}, '
                "counted from another day: its own fix (fix-date again)"
            )
        result = txn.result("fix-date", sha, f"{memory.path}: {reason}", (memory.path,))
        return replace(result, shown=plan.shown(replacement))
