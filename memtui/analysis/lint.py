"""Per-file and index findings: malformed, schema, freshness, relative dates, secrets, index health, archive placement."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz

from memtui.analysis import dates, secrets
from memtui.analysis.written import Base, WritingDates
from memtui.core.freshness import Freshness
from memtui.core.index import is_url, over_reasons, unloaded_entries
from memtui.core.model import ERROR, INFO, MEMORY_TYPES, WARNING, Finding, FindingKind, Memory
from memtui.core.store import Store

NO_FRONT_MATTER = "no front matter"
"""How the schema problem of a memory without front matter starts (the cue of its finding, when first)."""
LONG_LINE = 150
VERY_LONG_LINE = 200
# the bold label Claude Code writes (`**Why:**`), or a heading that opens the same section (`## Why LF was chosen`,
# `### How to apply`): a second trial found 3 of 4 flagged feedback memories said why under a heading
_WHY = re.compile(
    r"\*\*\s*(?:why|为什么|原因)\s*(?:\*\*\s*[:：]|[:：]\s*\*\*)|^#{1,6}[ \t]+(?:why\b|为什么|原因)",
    re.IGNORECASE | re.MULTILINE,
)
_HOW = re.compile(
    r"\*\*\s*(?:how to apply|怎么用|如何应用)[^*]*?(?:\*\*\s*(?:\([^)]*\))?\s*[:：]|[:：]\s*\*\*)"
    r"|^#{1,6}[ \t]+(?:how to apply\b|怎么用|如何应用)",
    re.IGNORECASE | re.MULTILINE,
)
# Only ever `search`ed (is there a location at all?), so each alternative is the shortest text that proves one,
# which keeps it linear: `[\w-]*/[\w./-]+` and `\b[\w.-]+\.com` retried a long word run from every position
# (issue 7 H2: 100 KB of `a` took 27 s).
_LOCATION_IN_BODY = re.compile(
    r"https?://|(?<=[\w-])\.(?:com|net|org|io|dev|internal|local)\b|/[\w./-]|`[^`]+`|#[a-z][\w-]"
)


def malformed(memories: Iterable[Memory]) -> list[Finding]:
    """Files that could not be decoded or parsed: shown read-only, never rewritten.

    Files in the archive are left out, as every per-file check but secrets leaves them: the agent never loads
    them, and memtui never edits them, so a finding there would be one nothing could clear.
    """
    out = []
    for m in memories:
        if m.in_archive:
            continue
        if m.error:
            out.append(Finding(FindingKind.MALFORMED, ERROR, (m.path,), f"{m.path}: {m.error}", cue=m.error))
        elif m.retried:
            out.append(
                Finding(
                    FindingKind.SCHEMA,
                    INFO,
                    (m.path,),
                    f"{m.path}: front matter is not strict YAML; only Claude Code's quoting retry reads it "
                    "(quote values that contain ': ')",
                    cue="quoting retry",
                )
            )
    return out


def schema(memories: Iterable[Memory]) -> list[Finding]:
    """Missing name/description/type, an unknown type, feedback/project without Why/How to apply, reference without a location."""
    out: list[Finding] = []
    for m in memories:
        if m.error or not m.is_active:
            continue
        problems: list[str] = []
        if not m.has_frontmatter:
            problems.append(f"{NO_FRONT_MATTER} (Claude Code sees no name, description or type)")
        else:
            for key in ("name", "description"):
                if not getattr(m, key):
                    problems.append(f"missing `{key}`")
            if m.raw_type is None:
                problems.append("missing `type`")
            elif m.type is None:
                problems.append(f"type `{m.raw_type}` is not one of {', '.join(MEMORY_TYPES)}")
        if m.type in ("feedback", "project"):
            missing = [
                label for label, rx in (("**Why:**", _WHY), ("**How to apply:**", _HOW)) if not rx.search(m.body)
            ]
            if missing:
                problems.append(f"{m.type} memory without {' and '.join(missing)}")
        if m.type == "reference" and not m.field_value("location") and not _LOCATION_IN_BODY.search(m.body):
            problems.append("reference memory without a location (URL, path or `location:`)")
        if problems:
            out.append(
                Finding(FindingKind.SCHEMA, INFO, (m.path,), f"{m.path}: " + "; ".join(problems), cue=problems[0])
            )
    return out


def freshness(memories: Iterable[Memory], badges: dict[str, Freshness], today: dt.date) -> list[Finding]:
    """`expired` (past `expires_at`) and `stale` (past the type's period) memories."""
    out: list[Finding] = []
    for m in memories:
        f = badges.get(m.path)
        if not m.is_active or f is None:
            continue
        if f.badge == "expired" and f.expires_at:
            days = (today - f.expires_at).days
            out.append(
                Finding(
                    FindingKind.EXPIRED,
                    WARNING,
                    (m.path,),
                    f"{m.path}: expired {f.expires_at.isoformat()} ({days} days ago)",
                    cue=f"expires_at {f.expires_at.isoformat()}",
                    details={"expires_at": f.expires_at.isoformat()},
                )
            )
        elif f.badge == "stale" and f.since is not None:
            out.append(
                Finding(
                    FindingKind.STALE,
                    WARNING,
                    (m.path,),
                    f"{m.path}: {m.type} memory last confirmed {f.since.isoformat()} ({f.age_days} days, "
                    f"period {f.period_days} days; date from {f.source})",
                    cue=f"{f.age_days} days old",
                    details={"since": f.since.isoformat(), "source": f.source},
                )
            )
    return out


def relative_dates(memories: Iterable[Memory], known: Mapping[str, WritingDates], today: dt.date) -> list[Finding]:
    """Relative dates with the absolute date (or range) they most likely meant (`dates.dated_phrases`), counted from
    the day their line was written: a dated heading above it, a date in the memory's name, the front matter's
    dates, else the file's first commit (`known` may carry git's line history: `dates.told_by_lines`); with no date
    offered when that day is uncertain or the date is in the future.

    One finding per phrase and memory: a phrase in both the description and the body is reported once, at
    its body line. Recurring days ("every Friday", "weekly handover on Monday") are not reported; ranges
    ("last month") carry `details["range"]` and no one-day `suggestion`. `details["replacement"]` is the
    text `fix-date` would write, so a front end can show it and ask before anything is written; `details["base"]`,
    `["base_source"]` and `["base_certain"]` say which day it was counted from and why, `["after_today"]` the date
    not offered because it is in the future. `["occurrences"]` is how many times the memory says the phrase
    (description included), `["together"]` how many of those one fix writes: those counted from the same day; the
    message says both when the phrase is said more than once.
    """
    out: list[Finding] = []
    readable = [m for m in memories if not m.error and m.is_active]
    likely = dates.suspects([m.description + "\n" + m.body for m in readable])
    for i, m in enumerate(readable):
        if i not in likely:
            continue
        offset = m.text.count("\n", 0, len(m.text) - len(m.body))
        body_line = m.description.count("\n") + 2  # a block-scalar description spans several lines of the text
        hits = dates.memory_hits(m, known.get(m.path, WritingDates()), today)
        for hit in dates.unique_phrases(hits, body_line):
            line = offset + hit.line - body_line + 1 if hit.line >= body_line else None
            suggestion = hit.suggestion.isoformat() if hit.suggestion else None
            span = [hit.span[0].isoformat(), hit.span[1].isoformat()] if hit.span else None
            base = hit.base or Base(None, "nothing says when it was written", False)
            counted = f"counted from {base.date.isoformat()}, {base.source}" if base.date else ""
            if suggestion:
                hint = f"; probably {suggestion} ({counted})"
            elif span:
                hint = f"; probably {hit.replacement} ({span[0]} to {span[1]}; {counted})"
            elif hit.withheld:
                hint = (
                    f"; {counted}, it is {hit.withheld}, after today: no date offered, as the first commit may be "
                    "the day the store was copied"
                )
            else:
                hint = f"; no date offered: when it was written is not known ({base.source})"
            same = [h for h in hits if h.phrase.lower() == hit.phrase.lower()]
            together = sum(1 for h in same if h.base == hit.base)
            out.append(
                Finding(
                    FindingKind.RELATIVE_DATE,
                    WARNING,
                    (m.path,),
                    f'{m.path}: relative date "{hit.phrase}" with no absolute date{_times(len(same), together)}{hint}',
                    line=line,
                    cue=hit.phrase,
                    details={
                        "phrase": hit.phrase,
                        "suggestion": suggestion,
                        "range": span,
                        "replacement": hit.replacement,
                        "base": base.date.isoformat() if base.date else None,
                        "base_source": base.source,
                        "base_certain": base.certain,
                        "after_today": hit.withheld or None,
                        "occurrences": len(same),
                        "together": together,
                    },
                )
            )
    return out


def _times(occurrences: int, together: int) -> str:
    """How often a memory says a relative date, and how many of those one fix writes (those counted from the same
    day as the finding's); empty when it says it once."""
    if occurrences < 2:
        return ""
    if together == occurrences:
        return f", said {occurrences} times (one fix writes {'both' if occurrences == 2 else f'all {occurrences}'})"
    rest = occurrences - together
    return (
        f", said {occurrences} times (one fix writes the {together} counted from the same day; "
        f"{rest} more {'counts' if rest == 1 else 'count'} from another day, fixed after)"
    )


def secret_findings(memories: Iterable[Memory], index_text: str | None = None) -> list[Finding]:
    """Suspected secrets in memory files and the index; messages show only a redacted preview.

    Archived files are scanned too, unlike every other per-file check: the agent no longer loads them, but they
    are committed and pushed with the store, where a key leaks all the same.
    """
    out: list[Finding] = []
    memories = list(memories)
    for i in sorted(secrets.suspects([m.text for m in memories])):
        m = memories[i]
        where = " (archived: not loaded, but still committed)" if m.in_archive else ""
        for hit in secrets.scan(m.text):
            out.append(
                Finding(
                    FindingKind.SECRET,
                    ERROR,
                    (m.path,),
                    f"{m.path}:{hit.line}: possible {hit.label} ({hit.preview}){where}",
                    line=hit.line,
                    cue=hit.label,
                )
            )
    if index_text:
        for hit in secrets.scan(index_text):
            out.append(
                Finding(
                    FindingKind.SECRET,
                    ERROR,
                    ("MEMORY.md",),
                    f"MEMORY.md:{hit.line}: possible {hit.label} ({hit.preview})",
                    line=hit.line,
                    cue=hit.label,
                )
            )
    return out


def index_health(store: Store) -> list[Finding]:
    """Broken links, unindexed files, duplicate entries, long lines and the load budget of MEMORY.md."""
    index = store.index
    if index is None:
        return []
    if index.error:
        return [Finding(FindingKind.MALFORMED, ERROR, ("MEMORY.md",), f"MEMORY.md: {index.error}", cue=index.error)]
    out: list[Finding] = []
    root = store.layout.root
    linked: set[str] = set()
    by_target: dict[str, list[int]] = defaultdict(list)
    known = set(store.by_path)
    for entry in index.entries:
        target = entry.target
        if is_url(target):
            continue  # http(s)://, mailto: — not a memory
        rel = os.path.normpath(target).replace(os.sep, "/")
        by_target[rel].append(entry.line)
        linked.add(rel)
        if rel not in known and not (root / rel).exists():
            out.append(
                Finding(
                    FindingKind.BROKEN_LINK,
                    ERROR,
                    (target,),
                    f"MEMORY.md:{entry.line}: links to {target}, which does not exist",
                    line=entry.line,
                    cue=target,
                )
            )
    for rel, lines in by_target.items():
        if len(lines) > 1:
            memory = store.get(rel)
            hooks = {e.line: e.hook for e in index.entries if e.line in lines}
            matching = [ln for ln in lines if memory and memory.description and _similar(hooks[ln], memory.description)]
            note = f"; line {matching[0]} matches the file's description" if len(matching) == 1 else ""
            out.append(
                Finding(
                    FindingKind.DUPLICATE_ENTRY,
                    WARNING,
                    (rel,),
                    f"MEMORY.md: {rel} is listed {len(lines)} times (lines {', '.join(map(str, lines))}){note}",
                    line=lines[1],
                    cue="same target",
                    details={"lines": lines},
                )
            )
    linked_any = bool(index.entries)
    if linked_any:
        for m in store.memories:
            if m.is_active and not m.in_archive and m.path not in linked:
                out.append(
                    Finding(
                        FindingKind.UNINDEXED,
                        INFO,
                        (m.path,),
                        f"{m.path}: not listed in MEMORY.md",
                        cue="no index line",
                    )
                )
    for number, line in enumerate(index.lines, 1):
        length = len(line.rstrip("\r"))
        if length > LONG_LINE:
            out.append(
                Finding(
                    FindingKind.LONG_INDEX_LINE,
                    INFO,
                    (),
                    f"MEMORY.md:{number}: {length} characters (keep index lines under "
                    f"{LONG_LINE}{'; Claude Code asks to shorten lines over 200' if length > VERY_LONG_LINE else ''})",
                    line=number,
                    cue=f"{length} chars",
                )
            )
    budget = index.budget
    if budget.over:
        reasons = over_reasons(budget)
        # the memories whose lines the agent never sees: the review's card names them
        unloaded = [
            {"line": e.line, "target": e.target, "title": e.title} for e in unloaded_entries(index.entries, budget)
        ]
        out.append(
            Finding(
                FindingKind.INDEX_OVER_CAP,
                ERROR,
                ("MEMORY.md",),
                f"MEMORY.md is {reasons}: Claude Code does not load line {budget.first_unloaded_line} "
                "or anything after it",
                line=budget.first_unloaded_line,
                cue=reasons,
                details={"unloaded": unloaded},
            )
        )
    return out


def _similar(a: str, b: str) -> bool:
    return fuzz.token_set_ratio(a.lower(), b.lower()) >= 60


def archived_but_loaded(memories: Iterable[Memory]) -> list[Finding]:
    """Archived memories still inside the folder the agent loads: still recalled, and they push live ones out."""
    out = []
    for m in memories:
        if m.status == "archived" and not m.in_archive:
            out.append(
                Finding(
                    FindingKind.ARCHIVED_BUT_LOADED,
                    WARNING,
                    (m.path,),
                    f"{m.path}: archived but still inside the loaded folder, so Claude Code still recalls it; "
                    "move it to the archive",
                    cue="status: archived"
                    if str(m.field_value("status")).lower() == "archived"
                    else "MEMORY_ARCHIVED.md",
                )
            )
    return out
