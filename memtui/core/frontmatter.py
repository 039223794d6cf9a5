"""Front matter: lenient reading the way Claude Code reads it, and line-level edits that keep every other byte.

Reading goes through python-frontmatter's handler API: `ClaudeCodeYAMLHandler` (a `YAMLHandler`) finds the
`---` block and parses it the way Claude Code's `frontmatterParser.ts` does — YAML with dates kept as written,
and if that fails a retry with every simple `key: value` line whose value holds YAML-special characters wrapped
in quotes — refusing alias bombs before anything walks them. Its `split` keeps the body byte for byte (no
stripping), so the body offset is exact. Writing never re-serialises YAML (python-frontmatter's `dumps` would):
it adds or replaces whole lines, so unknown keys, key order, quoting and comments survive and a git diff shows
only the decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler
from yaml.nodes import MappingNode, ScalarNode

_OPEN = re.compile(r"\A---[ \t]*\r?\n")
# A fence line: `---`, optional blanks, then the end of the line (with its newline, if any).
_FENCE = re.compile(r"^---[ \t]*\r?(?:\n|\Z)", re.MULTILINE)
_SIMPLE_LINE = re.compile(r"^([a-zA-Z_-]+):\s+(.+)$")
_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Loader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """YAML's safe loader (libyaml when present) that keeps dates as the text written.

    `2026-07-25T19:17:39.087Z` stays exactly that instead of becoming a datetime; freshness reads the
    ISO prefix, and nothing memtui shows or writes is reformatted.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """PyYAML's resolution of a plain scalar, without its per-call list building, short values remembered."""
        if kind is ScalarNode and implicit[0]:
            return _plain_tag(value)
        return super().resolve(kind, value, implicit)


def _plain_tag(value: str) -> str:
    """The tag the loader resolves a plain scalar to (`_Loader.resolve`)."""
    known = _RESOLVED.get(value)
    if known is not None:
        return known
    resolved = _STR
    for tag, regexp in _IMPLICIT.get(value[:1], ()):
        if regexp.match(value):
            resolved = tag
            break
    if len(value) <= 40 and len(_RESOLVED) < 50_000:  # keys and short values repeat across files
        _RESOLVED[value] = resolved
    return resolved


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in _BASE_LOADER.yaml_implicit_resolvers.items()
}
# What BaseResolver.resolve tries for a plain scalar, by its first character ('' for the empty value). The
# shortcut is exact only while SafeLoader registers no path resolvers and no wildcard implicit resolvers.
if _Loader.yaml_path_resolvers or _Loader.yaml_implicit_resolvers.get(None):
    raise ImportError("this PyYAML registers path or wildcard resolvers; memtui's loader shortcut does not apply")
_IMPLICIT: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    first: tuple(resolvers) for first, resolvers in _Loader.yaml_implicit_resolvers.items() if first is not None
}
_RESOLVED: dict[str, str] = {}
"""Tags already resolved for short plain scalars (bounded; resolution depends on the text alone)."""
_LOADER = _Loader


class FrontMatterError(ValueError):
    """Front matter that cannot be read; the message says why."""


MAX_ALIAS_EXPANSION = 10_000
"""How many values YAML aliases may add beyond the nodes actually written (a real memory uses none)."""


def _expanded_size(root: yaml.Node) -> int:
    """Values the document holds once every alias is expanded; raises FrontMatterError past the budget.

    PyYAML builds an alias bomb (`a1: [*a0, *a0, ...]`, nine levels) cheaply as shared objects, but anything
    that walks the values afterwards — joining a list-valued `name`, JSON output, a secret scan — walks 9^9
    of them. Counted on the node graph with memoised sizes, this is linear in what was written.
    """
    sizes: dict[int, int] = {}
    distinct = 0
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            sizes[key] = total
            if total > distinct + MAX_ALIAS_EXPANSION:
                raise FrontMatterError(
                    f"front matter uses YAML aliases that expand to more than {MAX_ALIAS_EXPANSION:,} extra "
                    "values (an alias bomb); memtui will not expand it"
                )
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise FrontMatterError("front matter has a YAML alias that refers to itself; memtui will not expand it")
        distinct += 1
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _plain_mapping(node: yaml.Node, depth: int = 0) -> dict[str, Any] | None:
    """The mapping a node of string keys and string (or nested such mapping) values constructs, else None.

    That is nearly every memory, and building it directly gives exactly what the constructor would (last
    duplicate key wins, as in a dict) at a fraction of its cost; anything else takes the constructor.
    """
    if type(node) is not MappingNode or node.tag != "tag:yaml.org,2002:map" or depth > 20:
        return None
    out: dict[str, Any] = {}
    for key, value in node.value:
        if type(key) is not ScalarNode or key.tag != _STR:
            return None
        if type(value) is ScalarNode and value.tag == _STR:
            out[key.value] = value.value
            continue
        nested = _plain_mapping(value, depth + 1)
        if nested is None:
            return None
        out[key.value] = nested
    return out


# Characters that are never part of a one-line plain scalar: controls, line breaks (NEL, LS, PS), the byte order
# mark, surrogates and non-characters; and those a plain scalar cannot start with (YAML's indicators, a blank).
_NOT_PLAIN = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"
_NOT_FIRST = _NOT_PLAIN + r" \-?:,\[\]{}#&*!|>'\"%@`"
_SIMPLE_ENTRY = re.compile(
    # `key: value` on one line at the left margin, the value stopping at `: ` (which would end a plain scalar).
    # Its other checks (no ` #`, no final `:`, trailing blanks not part of it) are string tests in
    # `_simple_mapping`: written into the pattern, a lazy value before ` *\n` made a run of blanks quadratic.
    rf"([A-Za-z_][A-Za-z0-9_-]{{0,63}}): +([^{_NOT_FIRST}](?:[^:{_NOT_PLAIN}]|:(?! ))*)\n"
)


def _simple_mapping(block: str) -> dict[str, str] | None:
    """The mapping of a block made only of `key: value` lines with plain string values, else None.

    Nearly every memory's front matter is such a block, and reading it by its lines gives exactly what YAML
    gives (the same strings, the last of a duplicated key) at a fraction of the cost; a key or value YAML would
    read as anything but a string (`true`, `12`, `null`, `=`) sends the block to YAML.
    """
    out: dict[str, str] = {}
    pos, end = 0, len(block)
    match = _SIMPLE_ENTRY.match
    while pos < end:
        entry = match(block, pos)
        if entry is None:
            return None
        key, value = entry.group(1, 2)
        value = value.rstrip(" ")
        if " #" in value or value.endswith(":"):  # the pattern already stops a value at `: `
            return None
        if _plain_tag(key) != _STR or _plain_tag(value) != _STR:
            return None
        out[key] = value
        pos = entry.end()
    return out or None


def _load(block: str) -> Any:
    """YAML-load one front matter block, refusing alias expansion past the budget before constructing."""
    simple = _simple_mapping(block)
    if simple is not None:
        return simple
    return _load_yaml(block)


def _load_yaml(block: str) -> Any:
    """The YAML parse of a block (what `_load` gives for any block), alias-bomb bound included."""
    loader = _LOADER(block)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in block:  # without an alias the node graph is a tree: nothing to expand
            _expanded_size(node)
        else:
            plain = _plain_mapping(node)
            if plain is not None:
                return plain
        return loader.construct_document(node)
    except FrontMatterError:
        raise
    except RecursionError:
        raise FrontMatterError("front matter is nested too deeply to read") from None
    except (ValueError, OverflowError, TypeError) as exc:
        # e.g. an integer of more than 4,300 digits, which Python refuses to convert
        raise FrontMatterError(f"front matter holds a value that cannot be read: {str(exc)[:120]}") from None
    finally:
        loader.dispose()


def _quote_retry(block: str) -> str:
    """Claude Code's retry: quote simple `key: value` lines whose value YAML would misread."""
    out: list[str] = []
    for line in block.split("\n"):
        stripped = line.rstrip("\r")
        match = _SIMPLE_LINE.match(stripped)
        if match:
            key, value = match.group(1), match.group(2)
            already_quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
            if not already_quoted and _SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{key}: "{escaped}"')
                continue
        out.append(stripped)
    return "\n".join(out)


def _yaml_reason(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    if mark is not None:
        # +2: the block starts on the line after the opening fence, and marks are 0-based.
        return f"{problem} (line {mark.line + 2})"
    return str(problem)


class ClaudeCodeYAMLHandler(YAMLHandler):
    """python-frontmatter's YAML handler, reading the way Claude Code reads memory files.

    `detect` wants a `---` line first (a newline after it; blanks before the newline allowed), `split` ends
    the block at the next `---` line and returns the body untouched, `load` is the date-keeping loader with
    the alias-bomb bound and Claude Code's quoting retry. Every failure is a FrontMatterError with a reason.
    """

    FM_BOUNDARY = _FENCE

    def detect(self, text: str) -> bool:
        """Whether the text opens with a front matter fence."""
        return _OPEN.match(text) is not None

    def split(self, text: str) -> tuple[str, str]:
        """The YAML block (without fences) and the body after the closing fence's line, byte for byte."""
        try:
            _, block, body = _FENCE.split(text, 2)
        except ValueError:
            raise FrontMatterError("front matter is never closed (no second '---' line)") from None
        return block, body

    def read(self, block: str) -> tuple[Any, bool]:
        """Parse a block as Claude Code does: (value, whether only the quoting retry could read it)."""
        block = block.replace("\r\n", "\n")
        try:
            return _load(block), False
        except yaml.YAMLError as first_error:
            try:
                return _load(_quote_retry(block)), True
            except yaml.YAMLError:
                raise FrontMatterError(f"front matter is not valid YAML: {_yaml_reason(first_error)}") from None

    def load(self, fm: str, **kwargs: object) -> Any:
        """The handler API's parse: the value `read` gives (kwargs are not used: the loader is fixed)."""
        return self.read(fm)[0]


HANDLER = ClaudeCodeYAMLHandler()
"""The one handler memtui reads with; `frontmatter.loads(text, handler=HANDLER)` gives the same metadata."""


@dataclass(frozen=True)
class FrontMatter:
    """The parsed front matter block of one file."""

    data: dict[str, Any] = field(hash=False)
    """Parsed mapping (empty when the file has none)."""
    present: bool
    """Whether the file starts with a `---` block."""
    block_end: int
    """Character offset where the body starts (0 when there is no block)."""
    retried: bool = False
    """True when only Claude Code's quoting retry could read it."""


def split_block(text: str) -> tuple[str | None, int]:
    """Return the raw YAML block (without fences) and the body offset, or (None, 0) when there is none.

    Raises FrontMatterError when the opening fence has no closing fence.
    """
    if not HANDLER.detect(text):
        return None, 0
    block, body = HANDLER.split(text)
    return block, len(text) - len(body)


def parse(text: str) -> FrontMatter:
    """Parse the front matter of a memory file's text (BOM already removed).

    Raises FrontMatterError with a reason when the block exists but cannot be read.
    """
    block, end = split_block(text)
    if block is None:
        return FrontMatter(data={}, present=False, block_end=0)
    data, retried = HANDLER.read(block)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter is a YAML {type(data).__name__}, not a mapping of keys")
    return FrontMatter(data={str(k): v for k, v in data.items()}, present=True, block_end=end, retried=retried)


def misplaced_opening(text: str) -> str | None:
    """Why a text meant to open with front matter has none, naming the line; None when it has a block, or
    plainly none (its first non-blank line is not `---`).

    Front matter must open on the file's very first character: a `---` after blank lines or indented by
    spaces or a tab is read (by Claude Code and memtui alike) as the start of the body, so the whole block is
    lost.
    """
    if HANDLER.detect(text):
        return None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.strip() != "---":
            return None
        indent = line[: len(line) - len(line.lstrip())]
        if indent:
            kind = {" ": "space", "\t": "tab"}.get(indent[0]) if len(set(indent)) == 1 else None
            what = "whitespace" if kind is None else f"a {kind}" if len(indent) == 1 else f"{len(indent)} {kind}s"
            return (
                f"line {number}: the opening --- has {what} before it; front matter must start at the very first "
                "character of the file"
            )
        blank = "a blank line" if number == 2 else f"{number - 1} blank lines"
        return f"line {number}: the opening --- comes after {blank}; front matter must start on line 1"
    return None


def no_opening(text: str) -> str:
    """Why a text meant to keep its front matter has none at all, naming its first line as it is now (cut, and
    made printable): it does not open with a `---` line, so the whole block (name, description, type) is lost."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    shown = "".join(ch if ch.isprintable() else "?" for ch in first.strip())
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    now = f"its first line is now {shown!r}" if shown else "it is empty"
    return (
        f"the new text does not open with a --- front matter line ({now}), so its name, description and type "
        "would be lost; front matter must start with --- on line 1"
    )


def newline_of(text: str) -> str:
    """The newline convention a file uses."""
    return "\r\n" if "\r\n" in text else "\n"


def yaml_scalar(value: str) -> str:
    """Render a string as a single-line YAML scalar, quoting only when needed."""
    flat = " ".join(value.split())
    if flat and not _SPECIAL.search(flat) and flat[0] not in "\"'-?:,!&*" and flat.strip() == flat:
        try:
            if yaml.safe_load(f"k: {flat}") == {"k": flat}:
                return flat
        except yaml.YAMLError:
            pass
    return '"' + flat.replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_keys(text: str, updates: dict[str, str], *, under: str | None = None) -> str:
    """Set top-level keys (or keys nested one level `under` a mapping key) by editing lines only.

    Existing single-line values are replaced in place; missing keys are appended at the end of the
    block (or of the nested mapping). Values are already-rendered YAML scalars. Raises
    FrontMatterError when the file has no front matter block.
    """
    block, end = split_block(text)
    if block is None:
        raise FrontMatterError("file has no front matter to stamp")
    nl = newline_of(text)
    opening = _OPEN.match(text)
    assert opening is not None
    head = text[: opening.end()]
    lines = block.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    closing_line = text[opening.end() + len(block) : end]
    for key, rendered in updates.items():
        lines = _set_line(lines, key, rendered, under)
    new_block = nl.join(lines) + nl if lines else ""
    return head + new_block + closing_line + text[end:]


def _set_line(lines: list[str], key: str, rendered: str, under: str | None) -> list[str]:
    if under is None:
        pattern = re.compile(rf"^{re.escape(key)}\s*:")
        # the last line of a duplicated key is the one YAML reads (issue 7 F11: verify stamped the first)
        for i in reversed(range(len(lines))):
            line = lines[i]
            if pattern.match(line):
                # replace the value, and drop any continuation lines of a multi-line value
                j = i + 1
                while j < len(lines) and lines[j][:1] in (" ", "\t") and lines[j].strip():
                    j += 1
                return lines[:i] + [f"{key}: {rendered}"] + lines[j:]
        return lines + [f"{key}: {rendered}"]
    parent = re.compile(rf"^{re.escape(under)}\s*:\s*$")
    for i, line in enumerate(lines):
        if parent.match(line):
            j = i + 1
            indent = "  "
            child_at: int | None = None
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
                stripped = lines[j].lstrip()
                if stripped:
                    indent = lines[j][: len(lines[j]) - len(stripped)]
                    if re.match(rf"{re.escape(key)}\s*:", stripped):
                        child_at = j
                j += 1
            if child_at is not None:
                return lines[:child_at] + [f"{indent}{key}: {rendered}"] + lines[child_at + 1 :]
            return lines[:j] + [f"{indent}{key}: {rendered}"] + lines[j:]
    return _set_line(lines, key, rendered, None)


def remove_keys(text: str, keys: list[str], *, nested: bool = False) -> str:
    """Remove keys from the front matter, with the indented lines that continue their values, leaving every other
    line as it was: top-level keys, or with `nested` those at any depth too (Gen B memories keep some under
    `metadata:`). Raises FrontMatterError when the front matter cannot be split off."""
    block, _ = split_block(text)
    if block is None:
        return text
    opening = _OPEN.match(text)
    assert opening is not None
    start = opening.end()
    names = "|".join(re.escape(k) for k in keys)
    pattern = re.compile(rf"^([ \t]*)(?:{names})\s*:" if nested else rf"^()(?:{names})\s*:")
    kept: list[str] = []
    inside_value: int | None = None  # the indent of the removed key while its value may continue
    for line in block.splitlines(keepends=True):
        if inside_value is not None:
            if line.strip() and len(line) - len(line.lstrip(" \t")) > inside_value:
                continue
            inside_value = None
        found = pattern.match(line)
        if found:
            inside_value = len(found.group(1))
            continue
        kept.append(line)
    return text[:start] + "".join(kept) + text[start + len(block) :]
