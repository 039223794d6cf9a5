"""Control characters in untrusted text (memory files, file names, git output): the one rule for them.

Which characters count: C0 controls other than tab (newline only where a caller keeps lines), DEL, C1
controls (0x80-0x9F, which some terminals read as escape introducers), the line and paragraph separators,
the bidirectional overrides and isolates that reorder what a reader sees ("Trojan source"), and lone
surrogates (a file name that was not UTF-8). Ordinary spaces, no-break spaces, joiners and emoji are text.

Two uses of the same set: `visible` shows them as escapes (`\\x1b`) for a terminal or the TUI;
`blank_controls` turns them into spaces for text memtui writes itself (commit subjects and reasons).
"""

from __future__ import annotations

import re

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_SURROGATES = "\ud800-\udfff"
_SHOWN_WITH_LINES = re.compile(f"[{_CONTROLS}{_SURROGATES}]")
_SHOWN_ONE_LINE = re.compile(f"[\n{_CONTROLS}{_SURROGATES}]")
_BLANKED_WITH_LINES = re.compile(f"[\t{_CONTROLS}]")
_BLANKED_ONE_LINE = re.compile(f"[\t\n{_CONTROLS}]")
_SURROGATE = re.compile(f"[{_SURROGATES}]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group(0))[1:-1]


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """Text that cannot drive a terminal: every control character shown as its escape (`\\x1b`, `\\u202e`).

    Tabs stay; newlines stay only with `keep_newlines` (a multi-line preview), else they show as `\\n`.
    """
    pattern = _SHOWN_WITH_LINES if keep_newlines else _SHOWN_ONE_LINE
    if not pattern.search(text):
        return text
    return pattern.sub(_escape, text)


def blank_controls(text: str, *, keep_newlines: bool = False) -> str:
    """Text for a commit message: control characters and tabs become spaces, non-UTF-8 bytes become U+FFFD."""
    pattern = _BLANKED_WITH_LINES if keep_newlines else _BLANKED_ONE_LINE
    return _SURROGATE.sub("\ufffd", pattern.sub(" ", text))
