"""Joining a person's edit with what the agent wrote meanwhile (`core.three_way.merge_edits`)."""

from __future__ import annotations

import pytest

from memtui.core.three_way import merge_edits

BASE = "---\nname: tabs\ntype: feedback\n---\n\nIndent Go with tabs.\n\n**Why:** gofmt.\n\n**How to apply:** always.\n"


def test_an_edit_and_an_append_elsewhere_are_both_kept() -> None:
    ours = BASE.replace("Indent Go with tabs.", "Indent Go code with tabs, never spaces.")
    theirs = BASE + "- agent: also for generated files.\n"
    merged = merge_edits(BASE, ours, theirs)
    assert merged == ours + "- agent: also for generated files.\n"


def test_changes_to_the_same_line_are_not_joined() -> None:
    ours = BASE.replace("gofmt.", "gofmt does it.")
    theirs = BASE.replace("gofmt.", "gofmt, and reviewers ask for it.")
    assert merge_edits(BASE, ours, theirs) is None


def test_changes_to_neighbouring_lines_are_not_joined() -> None:
    ours = BASE.replace("**Why:** gofmt.\n", "**Why:** gofmt does it.\n")
    theirs = BASE.replace("**Why:** gofmt.\n\n", "**Why:** gofmt.\nAnd the linters.\n")
    assert merge_edits(BASE, ours, theirs) is None


@pytest.mark.parametrize(
    ("ours", "theirs", "merged"),
    [
        (BASE, BASE + "x\n", BASE + "x\n"),  # the person changed nothing: the text on disk
        (BASE + "x\n", BASE, BASE + "x\n"),  # nothing changed on disk: the person's text
        (BASE + "x\n", BASE + "x\n", BASE + "x\n"),  # the same change on both sides, once
    ],
)
def test_one_side_unchanged_or_both_the_same(ours: str, theirs: str, merged: str) -> None:
    assert merge_edits(BASE, ours, theirs) == merged


def test_a_deletion_and_an_insertion_far_apart_are_both_kept() -> None:
    ours = BASE.replace("\n**How to apply:** always.\n", "")
    theirs = BASE.replace("name: tabs\n", "name: tabs\ndescription: Go indentation\n")
    merged = merge_edits(BASE, ours, theirs)
    assert merged is not None
    assert "description: Go indentation" in merged and "How to apply" not in merged


def test_lines_added_right_after_an_edited_line_are_kept_after_it() -> None:
    ours = BASE.replace("**How to apply:** always.", "**How to apply:** always, in every repo.")
    theirs = BASE + "- agent: vendored code too.\n"
    assert merge_edits(BASE, ours, theirs) == ours + "- agent: vendored code too.\n"


def test_lines_added_at_one_place_on_both_sides_are_not_joined() -> None:
    assert merge_edits(BASE, BASE + "mine\n", BASE + "theirs\n") is None
