"""The command line's grammar (DESIGN §5): every subcommand, every argument with its help, and the exit codes.

Kept apart from the commands so `--help` is one readable table of the contract scripts depend on.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from memtui.cli import commands as cmd

COMMANDS = (
    "check",
    "archive",
    "restore",
    "merge",
    "verify",
    "edit",
    "fix-date",
    "index",
    "drop-link",
    "relink",
    "history",
    "undo",
    "redo",
    "init",
    "hook",
    "hooks",
)

EXIT_CODES = """exit codes:
  0  done (for check: no finding of severity error)
  1  refused or failed: store busy, changed on disk, cannot be parsed, a secret, a symlink, a path
     outside the store, a merge in progress ... (the message names the file and what is wrong; nothing
     was written); for check: at least one finding of severity error
  2  usage: bad arguments, no such store, not in a git repository, unusable settings"""

STORE_HELP = "the memory folder (the one holding MEMORY.md), or a repository root holding memory/"
ALLOW_SECRET_HELP = (
    "commit even if a file or the message looks like it holds a secret (after you checked it is not one)"
)

Command = Callable[[argparse.Namespace], int]


def command_parser() -> argparse.ArgumentParser:
    """The parser of `memtui SUBCOMMAND ...`."""
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="Curate an AI agent's long-term memory.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, func: Command, help_text: str, *, store: str | None = "required") -> argparse.ArgumentParser:
        ap = sub.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if store == "required":
            ap.add_argument("store", metavar="STORE", help=STORE_HELP)
        elif store == "optional":
            ap.add_argument(
                "store", metavar="STORE", nargs="?", help=STORE_HELP + " (default: this project's Claude Code memory)"
            )
        ap.set_defaults(func=func)
        return ap

    p = add("check", cmd.cmd_check, "report every finding (never writes)", store="optional")
    p.add_argument(
        "--demo",
        nargs="?",
        const="",
        metavar="DIR",
        help="check a fresh copy of the bundled demo store instead: a temporary one, deleted when the command ends, "
        "or, with DIR (a new or empty folder), one built there and kept",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (store, today, memories, findings, held_back, index) instead of text",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help=f"list every info finding (the text lists {cmd.INFO_SHOWN} of a kind that has more, and counts the rest)",
    )
    p.add_argument("--today", metavar="YYYY-MM-DD", help="pin the date freshness is computed for")

    p = add("archive", cmd.cmd_archive, "archive memories with a reason: one commit for all of them")
    p.add_argument("files", metavar="FILE", nargs="+", help="memory files, relative to the store (or paths inside it)")
    p.add_argument("--reason", required=True, help="why they leave: what history will say (required)")
    p.add_argument("--superseded-by", metavar="FILE", help="the memory that replaces it (only with one FILE)")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add(
        "restore",
        cmd.cmd_restore,
        "bring archived memories back, with their old MEMORY.md lines: one commit; a memory deleted from the loaded folder (not archived) comes back as it was last committed",
    )
    p.add_argument("files", metavar="FILE", nargs="+", help="archived memories (names in the archive, or paths)")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("merge", cmd.cmd_merge, "merge memories into one; the others are archived")
    p.add_argument("files", metavar="FILE", nargs="+", help="two or more memory files to merge")
    p.add_argument("--into", required=True, metavar="NAME", help="the merged memory's file name (one of FILE, or new)")
    p.add_argument("--body-file", metavar="PATH", help="the merged memory's full text (default: memtui's merge)")
    p.add_argument("--reason", help="why they are merged (default: 'merged into NAME')")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("verify", cmd.cmd_verify, "stamp last_verified: these memories are still true (one commit)")
    p.add_argument("files", metavar="FILE", nargs="+", help="memory files, relative to the store (or paths inside it)")
    p.add_argument(
        "--accept-schema",
        action="store_true",
        help="accept them as they are instead of stamping them: their schema findings (no **Why:**, no location…) "
        "are settled until they change; an `accept` decision that says nothing of whether they are still true",
    )
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("edit", cmd.cmd_edit, "replace a memory's text (validated: front matter parses, the type stays)")
    p.add_argument("file", metavar="FILE", help="the memory file, relative to the store (or a path inside it)")
    p.add_argument("--text-file", required=True, metavar="PATH", help="a UTF-8 file holding the new full text")
    p.add_argument("--reason", help="why it changed (goes into history)")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("fix-date", cmd.cmd_fix_date, "replace a relative date ('tomorrow') with the absolute date it meant")
    p.add_argument("file", metavar="FILE", help="the memory file, relative to the store (or a path inside it)")
    p.add_argument("--phrase", help="which relative date to fix (default: the first one found)")
    p.add_argument(
        "--date",
        metavar="DATE",
        help="the date to write: a day (YYYY-MM-DD), or for a range ('last month') a month (YYYY-MM, written"
        " 'October 2026') or a year (YYYY) (default: counted from the day the phrase was written, when that"
        " is known: a dated heading above it, a date in its name, its front-matter dates, else its first commit)",
    )

    p = add(
        "index",
        cmd.cmd_index,
        "add MEMORY.md lines for memories it does not list, '- [name](file.md) — description': one commit",
    )
    p.description = (  # the help's raw layout keeps these lines as they are
        "Add MEMORY.md lines for memories it does not list, '- [name](file.md) — description', after its last\n"
        "entry: one commit for all of them. Refused when a memory is already listed, or when the new lines\n"
        "would take MEMORY.md past what Claude Code loads (200 lines / 24.4KB): make room first."
    )
    p.add_argument("files", metavar="FILE", nargs="+", help="memory files, relative to the store (or paths inside it)")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("drop-link", cmd.cmd_drop_link, "remove MEMORY.md lines that link to a file that does not exist")
    p.add_argument(
        "links",
        metavar="LINK",
        nargs="+",
        help="the missing file as MEMORY.md links to it (as `check` names it in a broken-link finding); every line "
        "linking to it goes, in one commit",
    )

    p = add("relink", cmd.cmd_relink, "point a [[wikilink]] at another memory, in every memory holding it: one commit")
    p.add_argument(
        "link",
        metavar="LINK",
        help="the link's target as written, without [[ ]] (as `check` names it in a broken-wikilink finding); case, "
        "- and _ do not matter",
    )
    p.add_argument("--to", required=True, metavar="FILE", help="the live memory it should link to (by its name)")
    p.add_argument(
        "--in",
        dest="files",
        metavar="FILE",
        nargs="+",
        default=[],
        help="only in these memories (or MEMORY.md) (default: every live memory and MEMORY.md holding the link)",
    )
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    add("undo", cmd.cmd_undo, "revert the newest memtui decision not yet undone")
    add("redo", cmd.cmd_redo, "re-apply what the newest undo reverted (only right after that undo)")
    p = add("init", cmd.cmd_init, "put a store that is not in git under git (refuses while it holds secrets)")
    p.add_argument("--allow-secret", action="store_true", help=ALLOW_SECRET_HELP)

    p = add("history", cmd.cmd_history, "memtui's decisions, newest first")
    p.add_argument("file", metavar="FILE", nargs="?", help="only the decisions about this memory (live or archived)")
    p.add_argument("--revoked", action="store_true", help="only retired rules (archived or merged away)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of events (commit, date, author, action, memory, memories, reason, superseded_by)",
    )

    # Claude Code hook: see memtui/hook.py, memtui/claude_settings.py and the README section "Use with Claude Code"
    p = add("hook", cmd.cmd_hook, "run by Claude Code (post-tool-use) or pre-commit (pre-commit FILE...)", store=None)
    hook_sub = p.add_subparsers(dest="hook_command", required=True, metavar="{post-tool-use,pre-commit}")
    hook_sub.add_parser(
        "post-tool-use", help="PostToolUse handler: reads hook JSON on stdin, never writes a memory, always exits 0"
    )
    hook_sub.add_parser("pre-commit", help="check the stores of these memory files").add_argument(
        "files", metavar="FILE", nargs="*", help="memory files about to be committed"
    )
    p = add("hooks", cmd.cmd_hooks, "memtui's hook in Claude Code's user settings", store=None)
    p.add_argument(
        "hooks_command",
        metavar="{install,uninstall,status}",
        choices=("install", "uninstall", "status"),
        help="install or remove memtui's PostToolUse hook, or say whether it is installed",
    )
    return parser


def tui_parser() -> argparse.ArgumentParser:
    """The parser of `memtui [STORE]`, which opens the workstation."""
    parser = argparse.ArgumentParser(
        prog="memtui",
        description="Curate an AI agent's long-term memory. Subcommands: "
        + ", ".join(COMMANDS)
        + " (memtui SUBCOMMAND --help).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("store", metavar="STORE", nargs="?", help=STORE_HELP + " (default: this project's memory)")
    parser.add_argument(
        "--demo",
        nargs="?",
        const="",
        metavar="DIR",
        help="open a fresh copy of the bundled demo store: a temporary one, deleted when you quit, or, with DIR "
        "(a new or empty folder), one built there and kept",
    )
    parser.add_argument("--today", metavar="YYYY-MM-DD", help="pin the date for freshness")
    parser.add_argument("--theme", help="theme for this session (overrides the one saved in config.toml)")
    parser.add_argument("--version", action="store_true", help="print memtui's version and exit")
    return parser
