"""`memtui hook post-tool-use`: Claude Code's PostToolUse hook for memory writes (issue 12).

Claude Code writes auto memory with its ordinary `Write` and `Edit` tools and runs this command after each
call, with the call as JSON on stdin. When the file lies in a memory store, the hook re-reads it from disk,
runs the store's check and keeps the findings that involve that file (contradictions, duplicates, secrets,
relative dates, schema, a `[[link]]` to no live memory; the index budget when MEMORY.md itself was written), and
answers with one JSON object: `hookSpecificOutput.additionalContext` for the agent and a one-line `systemMessage`
for the person.

Rules, because it runs on every file write of every session: it never modifies a memory; it always exits 0;
anything that is not a memory write, and any crash, prints nothing (a non-zero exit or stray text shows a
"hook error" on every write). When the store has memtui's own repository it also records the agent's write
as its own commit with `Memtui-Actor: agent` and `Memtui-Session` (`memtui.hook.record`).
`memtui.hook.precommit` is the other hook, git's pre-commit.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from memtui.core.model import Finding, FindingKind
from memtui.hook.precommit import pre_commit
from memtui.hook.record import debug, record_detached, record_quietly

__all__ = ["MemoryWrite", "analyse", "check_written", "parse_write", "post_tool_use", "pre_commit", "render", "run"]

MAX_INPUT = 16 * 1024 * 1024
"""Bytes read from stdin at most; a larger payload is not a memory write memtui can check in time."""
TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
FILE_KINDS = (
    FindingKind.SECRET,
    FindingKind.MALFORMED,
    FindingKind.CONTRADICTION,
    FindingKind.DUPLICATE,
    FindingKind.RELATIVE_DATE,
    FindingKind.SCHEMA,
    FindingKind.BROKEN_WIKILINK,
)
"""Finding kinds reported for a topic file, most urgent first."""
INDEX_KINDS = (
    FindingKind.INDEX_OVER_CAP,
    FindingKind.MALFORMED,
    FindingKind.SECRET,
    FindingKind.BROKEN_LINK,
    FindingKind.DUPLICATE_ENTRY,
    FindingKind.BROKEN_WIKILINK,
)
"""Finding kinds reported when MEMORY.md itself was written."""
MAX_REPORTED = 6
MAX_CONTEXT = 6000
"""Claude Code moves hook output over 10,000 characters to a file; stay well under it."""
SESSION_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


@dataclass(frozen=True)
class MemoryWrite:
    """A Write/Edit call that touched a file of a memory store."""

    store: Path
    file: Path
    tool: str
    session: str | None
    agent_id: str | None


def read_input(stream: IO[bytes], limit: int = MAX_INPUT) -> bytes | None:
    """Stdin up to `limit` bytes; None when there is more (the call is then ignored)."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        return None
    return data


def parse_write(raw: bytes, env: Mapping[str, str] | None = None) -> MemoryWrite | None:
    """The memory write a hook payload describes, or None for anything else (other tools, paths, bad JSON)."""
    from memtui.core.locate import hook_path, store_of_file

    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(payload, dict):
        return None
    event = payload.get("hook_event_name")
    if event is not None and event != "PostToolUse":
        return None
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if tool not in TOOLS or not isinstance(tool_input, dict):
        return None
    raw_path = tool_input.get("file_path")
    if not isinstance(raw_path, str):
        return None
    file = hook_path(raw_path)
    if file is None or not file.is_file():
        return None
    environ = dict(os.environ if env is None else env)
    cwd_value = payload.get("cwd")
    if not isinstance(cwd_value, str):
        cwd_value = environ.get("CLAUDE_PROJECT_DIR")  # Claude Code exports it to every hook
    cwd = hook_path(cwd_value) if isinstance(cwd_value, str) else None
    store = store_of_file(file, cwd, environ)
    if store is None:
        return None
    session = payload.get("session_id")
    agent = payload.get("agent_id")
    return MemoryWrite(
        store=store,
        file=file,
        tool=tool,
        session=session if isinstance(session, str) and SESSION_RE.match(session) else None,
        agent_id=agent if isinstance(agent, str) else None,
    )


# --------------------------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class HookReport:
    """What the hook found about one written file."""

    store: Path
    rel: str
    is_index: bool
    findings: tuple[Finding, ...]
    quotes: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """Store-relative path → the line of that memory most likely in conflict."""


def check_written(store_path: Path, file: Path, today: dt.date | None = None) -> HookReport | None:
    """Run the store's check and keep the findings about `file`; None when the file is not part of the store."""
    from memtui.analysis.check import check_store
    from memtui.core.store import load_store

    store = load_store(store_path)
    layout = store.layout
    real = Path(os.path.realpath(file))
    is_index = real == Path(os.path.realpath(layout.index_path))
    rel = "MEMORY.md" if is_index else layout.rel(real if real.is_relative_to(layout.root) else file)
    if not is_index and store.get(rel) is None:
        return None
    report = check_store(store, today or dt.date.today())
    kinds = INDEX_KINDS if is_index else FILE_KINDS
    if is_index:
        # malformed, secret and wikilink findings name their file: keep the index's own, not every memory's
        own = (FindingKind.MALFORMED, FindingKind.SECRET, FindingKind.BROKEN_WIKILINK)
        kept = [f for f in report.findings if f.kind in kinds and (f.kind not in own or "MEMORY.md" in f.paths)]
    else:
        kept = [f for f in report.findings if f.kind in kinds and rel in f.paths]
    kept.sort(key=lambda f: (kinds.index(f.kind), f.paths))
    seen: set[tuple[FindingKind, tuple[str, ...], str]] = set()
    unique = []
    for f in kept:  # a relative date in both description and body is one thing to fix
        key = (f.kind, f.paths, f.cue if f.kind in (FindingKind.RELATIVE_DATE, FindingKind.SCHEMA) else f.message)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    kept = unique
    quotes: dict[str, str] = {}
    for f in kept:
        if f.kind in (FindingKind.CONTRADICTION, FindingKind.DUPLICATE):
            shared = [str(s).lower() for s in f.details.get("shared", [])]
            for path in f.paths:
                memory = store.get(path)
                if memory is not None and path not in quotes:
                    quotes[path] = _conflicting_line(memory.description, memory.body, shared)
    return HookReport(store=layout.root, rel=rel, is_index=is_index, findings=tuple(kept), quotes=quotes)


def _conflicting_line(description: str, body: str, shared: Sequence[str]) -> str:
    """The line of a memory carrying most of the shared terms: the line a reader compares."""
    best, best_score = description.strip(), -1
    for line in [description, *body.splitlines()]:
        text = line.strip().lstrip("-*# ").strip()
        if not text or text.startswith("**Why") or text.startswith("**How to apply"):
            continue
        low = text.lower()
        score = sum(1 for term in shared if term and term in low)
        if score > best_score:
            best, best_score = text, score
    return _clip(best, 160)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------------------------- output


def _cmd(*words: str) -> str:
    return " ".join(shlex.quote(w) for w in words)


def render(report: HookReport) -> dict[str, Any] | None:
    """The hook's JSON answer (None when there is nothing to say), shaped as Claude Code documents it."""
    if not report.findings:
        return None
    store = str(report.store)
    me = report.rel
    lines: list[str] = []
    summaries: list[str] = []
    shown = report.findings[:MAX_REPORTED]
    for f in shown:
        if f.kind in (FindingKind.CONTRADICTION, FindingKind.DUPLICATE):
            other = next((p for p in f.paths if p != me), me)
            older = str(f.details.get("older", f.paths[0]))
            newer = str(f.details.get("newer", f.paths[-1]))
            quote_me = report.quotes.get(me, "")
            quote_other = report.quotes.get(other, "")
            if f.kind == FindingKind.CONTRADICTION:
                summaries.append(f"{me} may contradict {other}")
                lines.append(
                    f"- {me} may contradict {other}: {_clip(f.cue or f.message, 300)}.\n"
                    f'  {me}: "{quote_me}"\n  {other}: "{quote_other}"\n'
                    f"  If {newer} replaces {older}, run: "
                    f"{_cmd('memtui', 'archive', store, older, '--reason', f'superseded by {newer}', '--superseded-by', newer)}\n"
                    f"  If both hold, edit {me} so it states how they fit together."
                )
            else:
                summaries.append(f"{me} repeats {other}")
                lines.append(
                    f"- {me} says the same as {other} (shared: {', '.join(map(str, f.details.get('shared', [])[:6]))}).\n"
                    f'  {me}: "{quote_me}"\n  {other}: "{quote_other}"\n'
                    f"  Merge them: {_cmd('memtui', 'merge', store, older, newer, '--into', Path(newer).stem)}"
                    f" — or fold the new detail into {other} and delete {me}."
                )
        elif f.kind == FindingKind.SECRET:
            summaries.append(f"{_where(f)} looks like it holds a secret")
            lines.append(
                f"- {_clip(f.message, 300)}. Edit your new memory: remove the secret (memory is plain text "
                "on disk; memtui will not commit it)."
            )
        elif f.kind == FindingKind.RELATIVE_DATE:
            phrase = str(f.details.get("phrase") or f.cue)
            suggestion = f.details.get("suggestion")
            summaries.append(f'{me} uses the relative date "{phrase}"')
            fix = f'replace "{phrase}" with {suggestion}' if suggestion else f'replace "{phrase}" with an absolute date'
            lines.append(f'- {me}: relative date "{phrase}" goes wrong as time passes. Edit your new memory: {fix}.')
        elif f.kind == FindingKind.INDEX_OVER_CAP:
            summaries.append("MEMORY.md is over Claude Code's load limit")
            lines.append(
                f"- {_clip(f.message, 300)}. Shorten MEMORY.md: one line per entry under ~150 characters, "
                "detail in topic files, merge or drop stale entries."
            )
        elif f.kind == FindingKind.SCHEMA:
            summaries.append(f"{me}: {f.cue}")
            lines.append(f"- {_clip(f.message, 300)}. Edit your new memory to fix it.")
        elif f.kind == FindingKind.BROKEN_WIKILINK:
            target, to = str(f.details.get("target") or f.cue), f.details.get("suggested_link")
            summaries.append(f"{me} links to [[{target}]], which is no memory it loads")
            fix = f"link [[{to}]] instead" if to else "link a memory by its `name`, or drop the link"
            lines.append(f"- {_clip(f.message, 300)}. Edit your new memory: {fix}.")
        else:
            summaries.append(_clip(f.message, 120))
            lines.append(f"- {_clip(f.message, 300)}")
    more = len(report.findings) - len(shown)
    if more > 0:
        lines.append(f"- … and {more} more: {_cmd('memtui', 'check', store)}")
    head = f"memtui check of memory file {me} (store {store}):"
    context = head + "\n" + "\n".join(lines)
    if len(context) > MAX_CONTEXT:
        context = context[: MAX_CONTEXT - 1] + "…"
    system = "memtui: " + summaries[0] + (f" (+{len(report.findings) - 1} more)" if len(report.findings) > 1 else "")
    return {
        "systemMessage": _clip(system, 200),
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context},
    }


def _where(f: Finding) -> str:
    return f.paths[0] if f.paths else "the memory"


# --------------------------------------------------------------------------------------------- entry


def analyse(
    raw: bytes,
    env: Mapping[str, str] | None = None,
    today: dt.date | None = None,
) -> tuple[MemoryWrite | None, str]:
    """The memory write a payload describes (None for anything else) and the hook's answer ("" = silent)."""
    write = parse_write(raw, env)
    if write is None:
        return None, ""
    report = check_written(write.store, write.file, today)
    answer = render(report) if report is not None else None
    return write, json.dumps(answer, ensure_ascii=False) if answer is not None else ""


def run(raw: bytes, env: Mapping[str, str] | None = None, today: dt.date | None = None) -> str:
    """The hook's whole answer for one payload, recording the write inline: JSON text, or "" to stay silent."""
    write, out = analyse(raw, env, today)
    if write is not None:
        record_quietly(write)
    return out


def post_tool_use(stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point of `memtui hook post-tool-use`: answer on stdout, always exit 0, print nothing on a crash."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    try:
        raw = read_input(stdin)
        write, out = analyse(raw) if raw is not None else (None, "")
    except BaseException:  # noqa: BLE001 - the agent must never see a hook error because of memtui
        debug()
        return 0
    try:
        if out:
            stdout.write(out + "\n")
        stdout.flush()  # before forking: a buffered answer would be written twice
    except (OSError, ValueError):
        pass
    if write is not None:
        try:
            record_detached(write)
        except BaseException:  # noqa: BLE001
            debug()
    return 0
