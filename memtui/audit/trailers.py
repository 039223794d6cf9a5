"""memtui's commit messages as text: the `Memtui-*` trailers, path escaping, and reading trailers back.

Pure text, no git: `message` writes what a decision's commit says (DESIGN §3), `parse_trailers` reads it
back, `escape_path`/`unescape_path` keep any path on one line of clean text and back again.
"""

from __future__ import annotations

from collections.abc import Sequence

from memtui.core.display import blank_controls

TRAILER_PREFIX = "Memtui-"
AGENT_WRITE_NAMED = 50
"""At most this many files an agent-write commit names in its `Memtui-Memory` trailers (its body lists 200), so
its message stays short however much the agent wrote; `StoreRepo.history` reads the rest from the commit itself."""


def escape_path(path: str) -> str:
    """A path as one line of clean text for trailers and commit bodies (newlines, controls and odd bytes escaped)."""
    out = []
    for ch in path:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 and ch != "\t" or code == 0x7F or (0x80 <= code < 0xA0) or ch in "\u2028\u2029":
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def unescape_path(text: str) -> str:
    """The inverse of `escape_path`."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "\\nrt":
            out.append({"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}[nxt])
            i += 2
        elif nxt == "x" and i + 4 <= len(text):
            code = int(text[i + 2 : i + 4], 16)
            out.append(chr(0xDC00 + code) if code >= 0x80 else chr(code))
            i += 4
        elif nxt == "u" and i + 6 <= len(text):
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        else:
            out.append(ch)
            i += 1
    return "".join(out)


PATH_TRAILERS = (
    "Memtui-Memory",
    "Memtui-Archived-To",
    "Memtui-Restored-From",
    "Memtui-Merged-Into",
    "Memtui-Superseded-By",
    "Memtui-Accepted",
    "Memtui-Relinked",
    "Memtui-Relinked-To",
)


def parse_trailers(body: str) -> dict[str, list[str]]:
    """`Key: value` trailer lines of a commit message (the last paragraph), multi-valued."""
    paragraphs = [p for p in body.strip().split("\n\n") if p.strip()]
    if not paragraphs:
        return {}
    out: dict[str, list[str]] = {}
    for line in paragraphs[-1].splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            out.setdefault(key, []).append(value.strip())
    return out


def one_line(text: str) -> str:
    """Text made safe for a trailer value: one line of clean text, no leading/trailing space."""
    return " ".join(blank_controls(text).split())


def message(
    action: str, subject: str, reason: str, trailers: Sequence[tuple[str, str]], *, verb: str | None = None
) -> str:
    """A commit message with memtui's trailers (DESIGN §3); path trailers are escaped to one line.

    `verb` is the subject's first word when it is not the action (a redo reads `memtui: redo archive of …` and
    is recorded as the archive it re-applies).
    """
    lines = [one_line(f"memtui: {verb or action} {subject}"), ""]
    paragraph = "\n".join(line.rstrip() for line in blank_controls(reason.strip(), keep_newlines=True).split("\n"))
    paragraph = "\n".join(line for line in paragraph.split("\n") if line.strip()) if paragraph.strip() else ""
    if paragraph:
        lines += [paragraph, ""]
    lines.append(f"Memtui-Action: {action}")
    for key, value in trailers:
        if value:
            lines.append(f"{key}: {escape_path(value) if key in PATH_TRAILERS else one_line(value)}")
    return "\n".join(lines) + "\n"
