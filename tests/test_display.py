"""One rule for control characters in untrusted text (`memtui.core.display`), used by the CLI, the TUI and commits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import init_repo, memory, write_files

from memtui.audit.repo import message, one_line
from memtui.core.display import blank_controls, visible

HOSTILE = "a\x1b[2Jb\x07c\rd\x9be\u202egnp.exe\u2028f\udc80g"


def test_visible_shows_every_control_as_its_escape_and_keeps_text() -> None:
    assert visible(HOSTILE) == "a\\x1b[2Jb\\x07c\\rd\\x9be\\u202egnp.exe\\u2028f\\udc80g"
    assert visible("two\nlines\tand tab") == "two\\nlines\tand tab"
    assert visible("two\nlines", keep_newlines=True) == "two\nlines"
    text = "café 中文 👩\u200d💻 no\u00a0break"  # joiners, no-break spaces and CJK are text, not controls
    assert visible(text) == text


def test_blank_controls_makes_commit_text_plain() -> None:
    assert blank_controls("a\x1b[31mb\tc\u202ed\udc80") == "a [31mb c d\ufffd"
    assert blank_controls("one\ntwo\r", keep_newlines=True) == "one\ntwo "
    assert one_line("  a\n\u2029b\x00 ") == "a b"
    msg = message("archive", "x\u202e.md", "why\x1b[2J", [("Memtui-Reason", "r\x07")])
    assert "\x1b" not in msg and "\u202e" not in msg and "\x07" not in msg


def test_the_cli_and_the_tui_use_the_same_rule(tmp_path: Path) -> None:
    """A bidi override in a memory's name reaches neither terminal raw: the CLI prints what the TUI shows."""
    from memtui.tui.render import clean

    top = tmp_path / "project"
    name = "evil\u202etxt.md"
    write_files(top, {f"memory/{name}": memory("x", body="No why or how here.")})
    init_repo(top)
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(top / "memory")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert "\u202e" not in out.stdout and "evil\\u202etxt.md" in out.stdout
    assert clean(f"see {name}") == visible(f"see {name}") == "see evil\\u202etxt.md"


def test_a_windows_line_ending_is_a_line_ending_on_screen_and_a_lone_return_is_shown() -> None:
    """A new user's CRLF README showed `\\r` at the end of every line of its review card."""
    from memtui.tui.render import clean

    assert clean("# AI memory\r\nsecond line\r\n") == "# AI memory\nsecond line\n"
    assert clean("over\rwrite") == "over\\rwrite"  # a carriage return alone would move the cursor
