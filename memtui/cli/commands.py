"""The subcommands (DESIGN §5): `check`, every action, `history`, `init`, the hook; each returns its exit code.

Thin on purpose: each parses nothing (see `parser`), calls the same core and ops the TUI calls, and prints.
`check` never imports Textual and never writes a decision; like `history` (and the TUI's start) it first
heals the store (`ops.heal`) when a killed memtui left a decision half-done. Refusals are raised (a `MemtuiError`) and printed in one
place, `memtui.cli.main`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.display import visible
from memtui.core.errors import EXIT_USAGE, MemtuiError

if TYPE_CHECKING:
    from memtui.analysis.check import Report
    from memtui.core.store import StoreLayout
    from memtui.ops import OpResult

EXIT_OK, EXIT_FINDINGS = 0, 1


class UsageError(MemtuiError):
    """Bad arguments or no store to work on (exit 2)."""

    title = "Usage"
    exit_code = EXIT_USAGE


def _today(value: str | None, option: str = "--today") -> dt.date:
    if not value:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r}: expected a date like 2026-11-30") from None


def _store_path(value: str | None) -> Path:
    from memtui.core.locate import locate_store

    if value:
        return Path(value).expanduser()
    found, tried = locate_store(Path.cwd())
    if found is None:
        raise UsageError(
            f"no memory store found for this project (looked in {', '.join(map(str, tried))}); name one: memtui PATH"
        )
    return found


def _heal(store: Path) -> None:
    """Finish or roll back a decision a kill interrupted before reading the store; say so on stderr."""
    from memtui import ops

    for note in ops.heal(store):
        print(f"memtui: note: {_safe(note)}", file=sys.stderr)


def _file_arg(store: Path, value: str) -> str:
    """Accept FILE relative to the store, an absolute path or one relative to here (inside the store or its
    archive), or the path `history` prints (relative to the repository, `memory/x.md`). Whether the file may be
    acted on (outside the store, a symlink out of it) is `safe_path`'s to say, on the store-relative path."""
    from memtui.core.store import detect_layout

    layout = detect_layout(store)
    candidate = Path(value).expanduser()
    if not candidate.is_absolute() and (layout.root / value).exists():
        return value
    if candidate.is_absolute() or candidate.exists():
        return _store_rel(layout, candidate)
    root = layout.root.resolve()
    top = next((folder for folder in root.parents if (folder / ".git").exists()), None)
    if top is None:
        return value
    within = Path(os.path.normpath(top / value))  # history's paths start at the repository's top
    if within.exists():
        return layout.rel(within.resolve())
    if within.is_relative_to(root) and within != root:
        return within.relative_to(root).as_posix()  # a memory gone from disk, still named in history
    return value


def _store_rel(layout: StoreLayout, path: Path) -> str:
    """A path named from here as the store names it (`x.md`, `../memory.archive/x.md`); refused outside the
    store and its archive.

    `..` is folded as written and a link inside the store is kept as it is, so `safe_path` still refuses one that
    links out; only the folder above it is resolved, when that is what puts it in the store (the store was named
    through a link)."""
    from memtui.ops.outcome import PathRefused

    absolute = Path(os.path.abspath(path))
    for where in (absolute, absolute.parent.resolve() / absolute.name):
        if any(where.is_relative_to(folder) for folder in (layout.root, layout.scan_root, layout.archive_dir)):
            return layout.rel(where)
    raise PathRefused(f"{_safe(str(path))}: outside the store {layout.root}")


# --------------------------------------------------------------------------------------------- check


@contextmanager
def demo_copy(keep: str, today: dt.date | None) -> Iterator[Path]:
    """A fresh demo store for a `with` block: built in the folder `keep` and left there, or, when `keep` is "",
    a temporary copy removed when the block ends (so copies never pile up)."""
    from memtui.demo import demo_store, make_demo_store

    if not keep:
        with demo_store(today) as store:
            yield store
        return
    folder = Path(keep).expanduser().absolute()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        kept = folder / "atlas" / "memory"
        raise UsageError(
            f"{folder} is not an empty folder, so no demo store was built in it: --demo DIR needs a new or empty "
            "folder" + (f"; the demo kept there opens with: memtui {kept}" if kept.is_dir() else "")
        )
    folder.mkdir(parents=True, exist_ok=True)
    yield make_demo_store(today, parent=folder)


def _load_report(path: Path, today: dt.date, *, demo: bool = False):  # type: ignore[no-untyped-def]
    from memtui.analysis.check import FileDates, check_store
    from memtui.audit.repo import try_open_repo
    from memtui.core.settings import load_settings
    from memtui.core.store import load_store

    store = load_store(path)
    from memtui.audit.repo import NotInGit

    repo = try_open_repo(store.layout)
    try:
        dates = repo.file_dates_now(today) if repo else FileDates()
    except NotInGit:  # git failed or timed out: dates come from front matter and mtimes instead
        dates = FileDates()
    # the person's freshness periods (config.toml), so `check` and the TUI agree on what is stale
    policy = load_settings(None if demo else path).policy()
    history = repo.lines_written if repo is not None else None
    report = check_store(store, today, dates, policy=policy, parallel=True, line_history=history)
    if repo is not None:
        from memtui.audit.history import honour_decisions
        from memtui.core.errors import MemtuiError

        try:
            report = honour_decisions(report, repo.history(), repo.work_tree)
        except MemtuiError:
            pass  # history unreadable: every finding is reported, none is hidden by mistake
    return report


def _budget_line(report) -> str:  # type: ignore[no-untyped-def]
    from memtui.core.index import format_size

    idx = report.store.index
    if idx is None:
        return "no MEMORY.md"
    b = idx.budget
    return f"MEMORY.md {b.lines}/{b.max_lines} lines · {format_size(b.units)}/{format_size(b.max_units)}"


def cmd_check(args: argparse.Namespace) -> int:
    """`memtui check`: every finding, as text for people or JSON for programs."""
    today = _today(args.today)
    if args.demo is not None:
        # dated around the day asked for, so --today gives the same report
        with demo_copy(args.demo, today) as path:
            return _print_check(
                _load_report(path, today, demo=True), args.json, temporary=not args.demo, every_info=args.all
            )
    path = _store_path(args.store)
    _heal(path)
    return _print_check(_load_report(path, today), args.json, every_info=args.all)


INFO_SHOWN = 3
"""Info findings of one kind the text lists before it counts the rest (`--all` lists them all): 119
`long-index-line` lines buried a real store's two errors."""


def _print_check(report: Report, as_json: bool, *, temporary: bool = False, every_info: bool = False) -> int:
    """Print a check report; `temporary`: the store is a copy gone when the command ends, so the text names no
    path and the JSON, whose `store` stays the path that was checked (DESIGN §5 makes it a string), says so. The
    text lists `INFO_SHOWN` info findings of a kind and counts the rest, unless `every_info`; JSON has them all."""
    store = report.store
    if as_json:
        out: dict[str, object] = {
            "store": str(store.root),
            "today": report.today.isoformat(),
            "memories": [
                {
                    "path": m.path,
                    "type": m.type,
                    "name": m.name,
                    "status": m.status,
                    # an archived memory is retired, and its archive commit is no writing day: it has no age
                    "freshness": report.freshness[m.path].badge if m.is_active else None,
                    "age_days": report.freshness[m.path].age_days if m.is_active else None,
                }
                for m in store.memories
            ],
            "findings": [f.to_json() for f in report.findings],
            "held_back": len(report.held_back),
            "kept_pairs": [list(f.paths) for f in report.kept],
            "accepted": [{"path": f.paths[0], "kind": f.kind, "message": f.message} for f in report.accepted],
        }
        if temporary:
            out["store_deleted_on_exit"] = True
        if store.index is not None:
            b = store.index.budget
            out["index"] = {"lines": b.lines, "units": b.units, "first_unloaded_line": b.first_unloaded_line}
        _write_json(out)
    else:
        if temporary:
            print(
                f"memtui check: the demo store ({report.today.isoformat()}), a temporary copy deleted when this "
                "command ends; `memtui check --demo DIR` keeps one in DIR"
            )
        else:
            print(f"memtui check: {_safe(str(store.root))} ({report.today.isoformat()})")
        print(f"{store.count_text()} · {_budget_line(report)}")
        print()
        info_kinds = Counter(f.kind for f in report.findings if f.severity == "info")
        listed: Counter[str] = Counter()
        for f in report.findings:
            if f.severity == "info" and not every_info and info_kinds[f.kind] > INFO_SHOWN:
                listed[f.kind] += 1
                if listed[f.kind] > INFO_SHOWN:
                    if listed[f.kind] == info_kinds[f.kind]:
                        more = info_kinds[f.kind] - INFO_SHOWN
                        print(f"{'INFO':7} {f.kind:19} … and {more} more like these (--all lists them)")
                    continue
            print(f"{f.severity.upper():7} {f.kind:19} {_safe(f.message)}")
        for f in report.kept:
            print(f"kept    {f.kind:19} {_safe(' and '.join(f.paths))}: a person kept both (until either changes)")
        for f in report.accepted:
            print(f"accepted {f.kind:18} {_safe(f.message)}: a person accepted it as it is (until it changes)")
        counts = {s: sum(1 for f in report.findings if f.severity == s) for s in ("error", "warning", "info")}
        from memtui.review import UNCOUNTED

        hygiene = sum(1 for f in report.findings if f.kind in UNCOUNTED)
        print()
        print(
            f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, {counts['info']} info"
            f" · {_count(_to_review(report), 'finding')} to review (the count the TUI shows"
            + (
                f"; {hygiene} about index hygiene, unindexed memories and long index lines, not counted)"
                if hygiene
                else ")"
            )
        )
    return EXIT_FINDINGS if report.has_errors else EXIT_OK


def _count(n: int, word: str) -> str:
    """`1 error`, `2 errors`, `0 errors`."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _to_review(report: Report) -> int:
    """The one finding count the TUI's header and review show (`memtui.review.finding_count`)."""
    from memtui.audit.repo import try_open_repo
    from memtui.review import build_queue, finding_count

    try:
        repo = try_open_repo(report.store.layout)
    except Exception:  # noqa: BLE001 - a broken repository must not stop the report; count without kept pairs
        repo = None
    try:
        return finding_count(build_queue(report, repo))
    except Exception:  # noqa: BLE001 - history unreadable: count every finding that makes a card
        return finding_count(build_queue(report, None))


def _safe(text: str) -> str:
    """Text from memory files printed without letting it drive the terminal (escape sequences shown, not run)."""
    return visible(text)


def _write_json(data: object) -> None:
    """JSON on stdout; names that are not UTF-8 come out as \\udcXX escapes instead of crashing the write."""
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


# --------------------------------------------------------------------------------------------- actions


def _print_result(result: OpResult) -> int:
    """Print what an action did (the agent's commit first, notes, then the summary); exit 0.

    What it left undone that the person must not miss (an agent write withheld for a secret) comes last, on
    stderr, as `memtui: warning: …`: the stream and the prefix refusals and heal notes use, after everything else,
    where it is not lost among the lines of what was done."""
    if result.agent_commit:
        print(f"recorded the agent's writes first: {result.agent_commit[:8]}")
    for note in result.notes:
        print(f"note: {_safe(note)}")
    print(_safe(result.summary) + (f" — commit {result.commit[:8]}" if result.commit else ""))
    for line in result.shown:
        print(f"  {_safe(line)}")
    if result.warnings:
        sys.stdout.flush()  # before the warning, also when both streams go to one pipe or file
        for warning in result.warnings:
            print(f"memtui: warning: {_safe(warning)}", file=sys.stderr)
    return EXIT_OK


def cmd_archive(args: argparse.Namespace) -> int:
    """`memtui archive STORE FILE... --reason TEXT [--superseded-by FILE]`: one decision for every file named."""
    from memtui import ops

    store = _store_path(args.store)
    files = [_file_arg(store, f) for f in args.files]
    if args.superseded_by:
        if len(files) > 1:
            raise UsageError("--superseded-by names the successor of one memory; archive the others separately")
        return _print_result(
            ops.archive(
                store,
                files[0],
                reason=args.reason,
                superseded_by=_file_arg(store, args.superseded_by),
                allow_secret=args.allow_secret,
            )
        )
    return _print_result(ops.archive_many(store, files, reason=args.reason, allow_secret=args.allow_secret))


def cmd_restore(args: argparse.Namespace) -> int:
    """`memtui restore STORE FILE...`: one decision for every file named."""
    from memtui import ops
    from memtui.core.store import detect_layout
    from memtui.ops.outcome import PathRefused
    from memtui.ops.paths import archived_path

    store = _store_path(args.store)
    files = [_file_arg(store, f) for f in args.files]
    layout = detect_layout(store)
    if len(files) == 1 and not (layout.root / files[0]).exists():
        try:
            archived_path(layout, files[0])
        except PathRefused:  # not archived, and gone from the loaded folder: deleted, brought back from git
            return _print_result(ops.bring_back(store, files[0], allow_secret=args.allow_secret))
    return _print_result(ops.restore_many(store, files, allow_secret=args.allow_secret))


def cmd_merge(args: argparse.Namespace) -> int:
    """`memtui merge STORE FILE FILE... --into NAME [--body-file PATH]`."""
    from memtui import ops

    store = _store_path(args.store)
    text = None
    if args.body_file:
        try:
            text = Path(args.body_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--body-file {args.body_file}: cannot be read ({exc})") from None
    _check_into(args.into)
    files = [_file_arg(store, f) for f in args.files]
    return _print_result(
        ops.merge(store, files, into=args.into, text=text, reason=args.reason or "", allow_secret=args.allow_secret)
    )


def _check_into(name: str) -> None:
    """Refuse a merge target name memtui could not create or show: empty, `.`/`..`, hidden, control characters."""
    base = name.rstrip("/").rsplit("/", 1)[-1]
    if not name.strip() or base in ("", ".", "..", ".md") or base.startswith("."):
        raise UsageError(f"--into {name!r}: give the merged memory a file name (not empty, not hidden, not . or ..)")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        raise UsageError(
            f"--into {_safe(name)!r}: a file name with control characters (newline, tab, escape) is refused"
        )


def cmd_verify(args: argparse.Namespace) -> int:
    """`memtui verify STORE FILE...`: one decision for every file named."""
    from memtui import ops

    store = _store_path(args.store)
    files = [_file_arg(store, f) for f in args.files]
    accept = files if args.accept_schema else ()
    return _print_result(ops.verify_many(store, files, accept_schema=accept, allow_secret=args.allow_secret))


def cmd_edit(args: argparse.Namespace) -> int:
    """`memtui edit STORE FILE --text-file PATH`: replace a memory's text, validated."""
    from memtui import ops

    store = _store_path(args.store)
    try:
        text = Path(args.text_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--text-file {args.text_file}: cannot be read ({exc})") from None
    return _print_result(
        ops.edit(store, _file_arg(store, args.file), text, reason=args.reason or "", allow_secret=args.allow_secret)
    )


def cmd_fix_date(args: argparse.Namespace) -> int:
    """`memtui fix-date STORE FILE [--phrase TEXT] [--date DATE]`: DATE a day, or for a range a month or year."""
    from memtui import ops
    from memtui.analysis.dates import read_typed

    store = _store_path(args.store)
    if args.date:
        try:
            read_typed(args.date)
        except ValueError:
            raise UsageError(
                f"--date {args.date!r}: expected a day like 2026-11-30 (for a range, a month like 2026-10 or a year "
                "like 2027)"
            ) from None
    # the text as given: whether a month or a year fits is the phrase's to say (ops.fix_date)
    return _print_result(ops.fix_date(store, _file_arg(store, args.file), phrase=args.phrase, date=args.date))


def cmd_index(args: argparse.Namespace) -> int:
    """`memtui index STORE FILE...`: one decision adding a MEMORY.md line for every file named."""
    from memtui import ops

    store = _store_path(args.store)
    files = [_file_arg(store, f) for f in args.files]
    return _print_result(ops.index(store, files, allow_secret=args.allow_secret))


def cmd_drop_link(args: argparse.Namespace) -> int:
    """`memtui drop-link STORE LINK...`: one decision removing the MEMORY.md lines to these missing files."""
    from memtui import ops

    return _print_result(ops.drop_link(_store_path(args.store), args.links))


def cmd_relink(args: argparse.Namespace) -> int:
    """`memtui relink STORE LINK --to FILE [--in FILE...]`: one decision rewriting `[[LINK]]` to link to FILE's memory."""
    from memtui import ops

    store = _store_path(args.store)
    files = [f if f == "MEMORY.md" else _file_arg(store, f) for f in args.files] or None
    return _print_result(
        ops.relink(store, args.link, to=_file_arg(store, args.to), files=files, allow_secret=args.allow_secret)
    )


def cmd_undo(args: argparse.Namespace) -> int:
    """`memtui undo STORE`."""
    from memtui import ops

    return _print_result(ops.undo(_store_path(args.store)))


def cmd_redo(args: argparse.Namespace) -> int:
    """`memtui redo STORE`."""
    from memtui import ops

    return _print_result(ops.redo(_store_path(args.store)))


def cmd_init(args: argparse.Namespace) -> int:
    """`memtui init STORE [--allow-secret]`."""
    from memtui import ops

    return _print_result(ops.init(_store_path(args.store), allow_secret=args.allow_secret))


def cmd_history(args: argparse.Namespace) -> int:
    """`memtui history STORE [FILE] [--revoked] [--json]`."""
    from memtui.audit.history import revoked_events, undone_commits
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout
    from memtui.ops.outcome import PathRefused

    store = _store_path(args.store)
    layout = detect_layout(store)
    repo = open_repo(layout)
    _heal(store)
    places: list[Path] = []  # the memory live and archived
    if args.file:
        resolved = layout.resolve(_file_arg(store, args.file))
        if _inside(resolved, layout.archive_dir):
            places = [resolved, layout.live_path(resolved)]
        elif _inside(resolved, layout.scan_root):
            places = [resolved, layout.archived_path(resolved)]
        else:
            raise PathRefused(f"{_safe(args.file)}: outside the store {layout.root}")
    paths = [repo.rel(p) for p in places]
    # what a batch still retires depends on every later restore, not only those naming this file
    events = revoked_events(repo.history(), paths) if args.revoked else repo.history(paths)
    if places and not events and not any(p.exists() for p in places) and not repo.ever_committed(paths):
        raise PathRefused(f"{_safe(args.file)}: no such memory in {layout.root}, its archive or its git history")
    undone = undone_commits(repo.history()) if events else set()
    if args.json:
        _write_json([e.to_json(undone) for e in events])
        return EXIT_OK
    if not events:
        print(("no revoked rules" if args.revoked else "no memtui events") + (" for that memory" if args.file else ""))
    for e in events:
        action = e.action + (" (redo)" if e.reapplies else "") + (" (undone)" if e.commit in undone else "")
        # a decision names every memory (history is read back to learn what it retired); a record of what the agent
        # wrote may hold a whole store's first commit: three, and how many more
        shown = e.memories if e.action != "agent-write" else e.memories[:3]
        names = ", ".join(shown) + (f", … {len(e.memories) - len(shown)} more" if len(e.memories) > len(shown) else "")
        line = f"{e.date[:10]}  {action:16} {_safe(names or e.memory)}"
        if e.superseded_by:
            line += f"  → {_safe(e.superseded_by)}"
        if e.reason:
            line += f"  — {_safe(e.reason)}"
        print(line + f"  ({_safe(e.by)}, {e.commit[:8]})")
    return EXIT_OK


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------- Claude Code hook


def cmd_hook(args: argparse.Namespace) -> int:
    """`memtui hook post-tool-use` (Claude Code's PostToolUse hook) and `memtui hook pre-commit FILE...`."""
    from memtui import hook

    if args.hook_command == "post-tool-use":
        return hook.post_tool_use()
    return hook.pre_commit(
        args.files,
        lambda store: cmd_check(argparse.Namespace(store=str(store), demo=None, json=False, all=False, today=None)),
    )


def cmd_hooks(args: argparse.Namespace) -> int:
    """`memtui hooks install|uninstall|status`: memtui's hook in Claude Code's user settings."""
    from memtui import claude_settings

    return claude_settings.main(args.hooks_command)
