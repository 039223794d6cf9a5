"""Two edits of one text, joined: a person's edit and what the agent wrote meanwhile, both started from the text
the person opened. Line by line, as `git merge-file` does, and as cautious: changes of the same lines, or of lines
next to each other, are not joined (the person decides); only lines added next to the other's change are, as
where they go is plain (the agent appends a line after the paragraph the person edited)."""

from __future__ import annotations

from difflib import SequenceMatcher

Hunk = tuple[int, int, list[str]]
"""Lines `start:end` of the base replaced by these lines."""


def merge_edits(base: str, ours: str, theirs: str) -> str | None:
    """The text with the changes of both `ours` and `theirs` (each an edit of `base`), or None when they change the
    same lines or lines next to each other. One side unchanged gives the other; two equal edits give it once."""
    if ours in (base, theirs):
        return theirs
    if theirs == base:
        return ours
    lines = base.splitlines(keepends=True)
    mine = _hunks(lines, ours.splitlines(keepends=True))
    other = _hunks(lines, theirs.splitlines(keepends=True))
    joined: list[Hunk] = list(mine)
    for hunk in other:
        touching = [h for h in mine if _clash(h, hunk)]
        if touching == [hunk]:
            continue  # the same change made on both sides
        if touching:
            return None
        joined.append(hunk)
    out: list[str] = []
    at = 0
    for start, end, replacement in sorted(joined, key=lambda h: (h[0], h[1])):
        out += lines[at:start]
        out += replacement
        at = end
    out += lines[at:]
    return "".join(out)


def _clash(a: Hunk, b: Hunk) -> bool:
    """Whether two changes cannot both be made without a person deciding how."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2  # lines added at one place: in which order?
    if s1 == e1:
        return s2 < s1 < e2  # lines added inside lines the other changed
    if s2 == e2:
        return s1 < s2 < e1
    return s1 <= e2 and s2 <= e1  # the same lines changed, or lines next to each other


def _hunks(base: list[str], edited: list[str]) -> list[Hunk]:
    """The changes that turn `base` into `edited`."""
    matcher = SequenceMatcher(None, base, edited, autojunk=False)
    return [(i1, i2, edited[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
