"""The command line (DESIGN §5): `check`, every action, `history`, `init`, and the TUI launcher.

Thin on purpose: it parses arguments, calls the same core and ops the TUI calls, and prints. `check` never
writes and never imports Textual.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.store import StoreError

if TYPE_CHECKING:
    from memtui.analysis.check import Report

COMMANDS = (
    "check",
    "archive",
    "restore",
    "merge",
    "verify",
    "edit",
    "fix-date",
    "history",
    "undo",
    "init",
    "hook",
    "hooks",
)
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or a store that cannot be opened (exit 2)."""


def _today(value: str | None) -> dt.date:
    if not value:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"--today {value!r}: expected a date like 2026-11-30") from None


def _store_path(value: str | None) -> Path:
    from memtui.core.locate import locate_store

    if value:
        return Path(value).expanduser()
    found, tried = locate_store(Path.cwd())
    if found is None:
        raise UsageError(
            "no memory store found for this project; looked in:\n  "
            + "\n  ".join(map(str, tried))
            + "\nname one: memtui PATH"
        )
    return found


def _file_arg(store: Path, value: str) -> str:
    """Accept FILE relative to the store, or a path (relative to here) that lies inside it."""
    from memtui.core.store import detect_layout

    layout = detect_layout(store)
    candidate = Path(value).expanduser()
    if candidate.exists() and not (layout.root / value).exists():
        return layout.rel(candidate.resolve())
    return value


# --------------------------------------------------------------------------------------------- check


def _load_report(store_arg: str | None, demo: bool, today: dt.date):  # type: ignore[no-untyped-def]
    from memtui.analysis.check import FileDates, check_store
    from memtui.audit.repo import try_open_repo
    from memtui.core.store import load_store

    if demo:
        from memtui.demo import make_demo_store

        path = make_demo_store(today)  # dated around the day asked for, so --today gives the same report
    else:
        path = _store_path(store_arg)
    store = load_store(path)
    from memtui.audit.repo import NotInGit

    repo = try_open_repo(store.layout)
    try:
        dates = repo.file_dates() if repo else FileDates()
    except NotInGit:  # git failed or timed out: dates come from front matter and mtimes instead
        dates = FileDates()
    return check_store(store, today, dates, parallel=True)


def _budget_line(report) -> str:  # type: ignore[no-untyped-def]
    from memtui.core.index import format_size

    idx = report.store.index
    if idx is None:
        return "no MEMORY.md"
    b = idx.budget
    return f"MEMORY.md {b.lines}/{b.max_lines} lines · {format_size(b.units)}/{format_size(b.max_units)}"


def cmd_check(args: argparse.Namespace) -> int:
    """`memtui check`: every finding, as text for people or JSON for programs."""
    report = _load_report(args.store, args.demo, _today(args.today))
    store = report.store
    if args.json:
        out = {
            "store": str(store.root),
            "today": report.today.isoformat(),
            "memories": [
                {
                    "path": m.path,
                    "type": m.type,
                    "name": m.name,
                    "status": m.status,
                    "freshness": report.freshness[m.path].badge,
                    "age_days": report.freshness[m.path].age_days,
                }
                for m in store.memories
            ],
            "findings": [f.to_json() for f in report.findings],
            "held_back": len(report.held_back),
        }
        if store.index is not None:
            b = store.index.budget
            out["index"] = {"lines": b.lines, "units": b.units, "first_unloaded_line": b.first_unloaded_line}
        _write_json(out)
    else:
        active = len(store.active)
        print(f"memtui check: {_safe(str(store.root))} ({report.today.isoformat()})")
        print(
            f"{len(store.memories)} memories ({active} active, {len(store.memories) - active} archived) · {_budget_line(report)}"
        )
        print()
        for f in report.findings:
            print(f"{f.severity.upper():7} {f.kind:19} {_safe(f.message)}")
        counts = {s: sum(1 for f in report.findings if f.severity == s) for s in ("error", "warning", "info")}
        print()
        print(
            f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"
            f" · {_to_review(report)} findings to review (the count the TUI shows)"
        )
    return EXIT_FINDINGS if report.has_errors else EXIT_OK


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
    from memtui.core.display import visible

    return visible(text)


def _write_json(data: object) -> None:
    """JSON on stdout; names that are not UTF-8 come out as \\udcXX escapes instead of crashing the write."""
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


# --------------------------------------------------------------------------------------------- actions


def _print_result(result) -> int:  # type: ignore[no-untyped-def]
    if result.agent_commit:
        print(f"recorded the agent's writes first: {result.agent_commit[:8]}")
    for note in result.notes:
        print(f"note: {_safe(note)}")
    print(_safe(result.summary) + (f" — commit {result.commit[:8]}" if result.commit else ""))
    return EXIT_OK


def cmd_archive(args: argparse.Namespace) -> int:
    """`memtui archive STORE FILE --reason TEXT [--superseded-by FILE]`."""
    from memtui import ops

    store = _store_path(args.store)
    return _print_result(
        ops.archive(
            store,
            _file_arg(store, args.file),
            reason=args.reason,
            superseded_by=_file_arg(store, args.superseded_by) if args.superseded_by else None,
            allow_secret=args.allow_secret,
        )
    )


def cmd_restore(args: argparse.Namespace) -> int:
    """`memtui restore STORE FILE`."""
    from memtui import ops

    store = _store_path(args.store)
    return _print_result(ops.restore(store, _file_arg(store, args.file), allow_secret=args.allow_secret))


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
    """`memtui verify STORE FILE`."""
    from memtui import ops

    store = _store_path(args.store)
    return _print_result(ops.verify(store, _file_arg(store, args.file)))


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
    """`memtui fix-date STORE FILE [--phrase TEXT] [--date YYYY-MM-DD]`."""
    from memtui import ops

    store = _store_path(args.store)
    date = _today(args.date) if args.date else None
    return _print_result(ops.fix_date(store, _file_arg(store, args.file), phrase=args.phrase, date=date))


def cmd_undo(args: argparse.Namespace) -> int:
    """`memtui undo STORE`."""
    from memtui import ops

    return _print_result(ops.undo(_store_path(args.store)))


def cmd_init(args: argparse.Namespace) -> int:
    """`memtui init STORE`."""
    from memtui import ops

    return _print_result(ops.init(_store_path(args.store)))


def cmd_history(args: argparse.Namespace) -> int:
    """`memtui history STORE [FILE] [--revoked] [--json]`."""
    from memtui.audit.repo import open_repo
    from memtui.core.store import detect_layout
    from memtui.review import revoked_only

    store = _store_path(args.store)
    layout = detect_layout(store)
    repo = open_repo(layout)
    paths: list[str] = []
    if args.file:
        rel = _file_arg(store, args.file)
        resolved = layout.resolve(rel)
        paths = [repo.rel(resolved)]
        if _inside(resolved, layout.archive_dir):
            paths.append(repo.rel(layout.live_path(resolved)))
        elif _inside(resolved, layout.scan_root):
            paths.append(repo.rel(layout.archived_path(resolved)))
    events = repo.history(paths)
    if args.revoked:
        events = revoked_only(events)
    if args.json:
        _write_json([e.to_json() for e in events])
        return EXIT_OK
    if not events:
        print("no memtui events" + (" for that memory" if args.file else ""))
    for e in events:
        line = f"{e.date[:10]}  {e.action:11} {_safe(e.memory)}"
        if e.superseded_by:
            line += f"  → {_safe(e.superseded_by)}"
        if e.reason:
            line += f"  — {_safe(e.reason)}"
        print(line + f"  ({_safe(e.author)}, {e.commit[:8]})")
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
        args.files, lambda store: cmd_check(argparse.Namespace(store=str(store), demo=False, json=False, today=None))
    )


def cmd_hooks(args: argparse.Namespace) -> int:
    """`memtui hooks install|uninstall|status`: memtui's hook in Claude Code's user settings."""
    from memtui import claude_settings

    return claude_settings.main(args.hooks_command)


# --------------------------------------------------------------------------------------------- parsing


def _command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memtui", description="Curate an AI agent's long-term memory.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="report every finding (never writes)")
    p.add_argument("store", nargs="?")
    p.add_argument("--demo", action="store_true", help="check a fresh copy of the bundled demo store")
    p.add_argument("--json", action="store_true")
    p.add_argument("--today", help="pin the date for freshness (YYYY-MM-DD)")
    p.set_defaults(func=cmd_check)

    def action(name: str, func, help_text: str) -> argparse.ArgumentParser:  # type: ignore[no-untyped-def]
        ap = sub.add_parser(name, help=help_text)
        ap.add_argument("store")
        ap.set_defaults(func=func)
        return ap

    p = action("archive", cmd_archive, "archive a memory with a reason")
    p.add_argument("file")
    p.add_argument("--reason", required=True)
    p.add_argument("--superseded-by")
    p.add_argument("--allow-secret", action="store_true", help="commit even if the file looks like it holds a secret")
    p = action("restore", cmd_restore, "bring an archived memory back")
    p.add_argument("file")
    p.add_argument("--allow-secret", action="store_true")
    p = action("merge", cmd_merge, "merge memories into one")
    p.add_argument("files", nargs="+")
    p.add_argument("--into", required=True)
    p.add_argument("--body-file")
    p.add_argument("--reason")
    p.add_argument("--allow-secret", action="store_true")
    p = action("verify", cmd_verify, "stamp last_verified: the memory is still true")
    p.add_argument("file")
    p = action("edit", cmd_edit, "replace a memory's text (validated)")
    p.add_argument("file")
    p.add_argument("--text-file", required=True)
    p.add_argument("--reason")
    p.add_argument("--allow-secret", action="store_true")
    p = action("fix-date", cmd_fix_date, "replace a relative date with an absolute one")
    p.add_argument("file")
    p.add_argument("--phrase")
    p.add_argument("--date")
    action("undo", cmd_undo, "revert the newest memtui decision")
    action("init", cmd_init, "put a store that is not in git under git")
    p = action("history", cmd_history, "memtui's events, newest first")
    p.add_argument("file", nargs="?")
    p.add_argument("--revoked", action="store_true", help="only retired rules (archived or merged away)")
    p.add_argument("--json", action="store_true")

    # Claude Code hook: see memtui/hook.py, memtui/claude_settings.py and the README section "Use with Claude Code"
    p = sub.add_parser("hook", help="run by Claude Code (post-tool-use) or pre-commit (pre-commit FILE...)")
    hook_sub = p.add_subparsers(dest="hook_command", required=True)
    hook_sub.add_parser("post-tool-use", help="PostToolUse handler: hook JSON on stdin; always exits 0")
    hook_sub.add_parser("pre-commit", help="check the stores of these memory files").add_argument("files", nargs="*")
    p.set_defaults(func=cmd_hook)
    p = sub.add_parser("hooks", help="memtui's hook in Claude Code's user settings")
    p.add_argument("hooks_command", choices=("install", "uninstall", "status"))
    p.set_defaults(func=cmd_hooks)
    return parser


def _tui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="Curate an AI agent's long-term memory. Subcommands: " + ", ".join(COMMANDS),
    )
    parser.add_argument("store", nargs="?", help="the memory folder (default: this project's Claude Code memory)")
    parser.add_argument("--demo", action="store_true", help="open a fresh copy of the bundled demo store")
    parser.add_argument("--today", help="pin the date for freshness (YYYY-MM-DD)")
    parser.add_argument("--theme", help="theme for this session (overrides the one saved in config.toml)")
    parser.add_argument("--version", action="store_true")
    return parser


def run_tui(args: argparse.Namespace) -> int:
    """Open the workstation."""
    if args.version:
        from memtui import __version__

        print(f"memtui {__version__}")
        return EXIT_OK
    if args.demo:
        from memtui.demo import make_demo_store

        path = make_demo_store(_today(args.today) if args.today else None)
    else:
        path = _store_path(args.store)
    from memtui.core.store import detect_layout

    detect_layout(path)  # fail with a clear message before the screen takes over
    from memtui.tui.app import MemtuiApp

    app = MemtuiApp(path, today=_today(args.today) if args.today else None, theme=args.theme)
    app.run()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `memtui` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["hook", "post-tool-use"]:  # runs on every file write of a session: skip the imports below
        try:
            from memtui.hook import post_tool_use
        except BaseException:  # noqa: BLE001 - the hook must exit 0 and print nothing, even broken
            return EXIT_OK
        return post_tool_use()
    from memtui import ops
    from memtui.audit.lock import LockHeld
    from memtui.audit.repo import NotInGit

    try:
        if argv and argv[0] in COMMANDS:
            args = _command_parser().parse_args(argv)
            return int(args.func(args))
        return run_tui(_tui_parser().parse_args(argv))
    except (UsageError, StoreError, NotInGit, ops.OpError, LockHeld) as exc:
        # refusals and usage errors: exit 2 (DESIGN §5); 1 is reserved for check's error findings
        print(f"memtui: {_safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        print(f"memtui: {_safe(str(exc.filename or ''))}: {_safe(str(exc.strerror or exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for the person; MEMTUI_DEBUG=1 shows it
        if os.environ.get("MEMTUI_DEBUG"):
            raise
        print(
            f"memtui: unexpected error ({type(exc).__name__}): {_safe(str(exc))[:500]} — nothing more was done; "
            "please report this (MEMTUI_DEBUG=1 shows the details)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    raise SystemExit(main())
