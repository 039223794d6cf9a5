"""The `memtui` command: the TUI launcher and the subcommands of DESIGN §5.

`parser` holds the grammar (every argument's help and the exit codes), `commands` the subcommands. Every
refusal is a `MemtuiError` and is printed here, in one place: `memtui: TITLE — MESSAGE (CLI HINT)` on stderr, with
the error's exit code (1 for refusals, 2 for usage, DESIGN §5). Nothing reaches the person as a traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from memtui.cli.commands import EXIT_OK, UsageError, _safe, _store_path, _today, demo_copy
from memtui.cli.parser import COMMANDS, command_parser, tui_parser
from memtui.core.errors import EXIT_USAGE, MemtuiError

__all__ = ["COMMANDS", "UsageError", "main", "run_tui"]


def run_tui(args: argparse.Namespace) -> int:
    """Open the workstation."""
    if args.version:
        from memtui import __version__

        print(f"memtui {__version__}")
        return EXIT_OK
    today = _today(args.today) if args.today else None
    if args.demo is None:
        return _open(_store_path(args.store), today, args.theme)
    with demo_copy(args.demo, today) as path:
        code = _open(path, today, args.theme)
    if args.demo:
        again = _safe(shlex.quote(str(path)))
        print(f"memtui: the demo store is kept in {_safe(str(path))}; open it again with: memtui {again}")
    else:
        print("memtui: the demo store was a temporary copy and is deleted now; `memtui --demo DIR` keeps one in DIR")
    return code


def _open(path: Path, today: dt.date | None, theme: str | None) -> int:
    """Run the app on a store; its exit code: 0 when the person quit, non-zero when the app stopped on an error
    (Textual has printed it), so a crash is never reported as a normal exit."""
    from memtui.core.store import detect_layout

    detect_layout(path)  # fail with a clear message before the screen takes over
    from memtui.tui.app import MemtuiApp

    app = MemtuiApp(path, today=today, theme=theme)
    app.run()
    code = app.return_code or 0
    if code:
        print(f"memtui: the screen stopped on an error (exit code {code}, shown above)", file=sys.stderr)
    return code


def report_error(exc: MemtuiError) -> int:
    """Print a refusal the one way the CLI prints them; its exit code."""
    hint = f" ({exc.cli_hint})" if exc.cli_hint else ""
    print(f"memtui: {_safe(exc.describe() + hint)}", file=sys.stderr)
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `memtui` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["hook", "post-tool-use"]:  # runs on every file write of a session: skip the imports below
        try:
            from memtui.hook import post_tool_use
        except BaseException:  # noqa: BLE001 - the hook must exit 0 and print nothing, even broken
            return EXIT_OK
        return post_tool_use()
    try:
        if argv and argv[0] in COMMANDS:
            args = command_parser().parse_args(argv)
            return int(args.func(args))
        return run_tui(tui_parser().parse_args(argv))
    except MemtuiError as exc:
        return report_error(exc)
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
