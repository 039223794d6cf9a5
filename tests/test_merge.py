"""Merge and edit write exactly the memory a person expects (issue 8 item 5), in a real git store.

`memtui merge S a.md b.md --into b.md` gave b.md a.md's name and description and a.md's text first; the merge
dialog glued the second body onto the first; edit and merge dropped the final newline; nothing bumped `updated`.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, init_repo, memory, write_files

from memtui import ops
from memtui.core.reading import read_memory
from memtui.core.store import load_store

DAY = dt.date(2026, 11, 30)
A = memory(
    "feedback_deploy_bun",
    description="Deploy with bun",
    updated="2026-11-20",
    body="Deploy with bun.\n\n**Why:** the lockfile resolves faster.\n\n**How to apply:** run `bun install`.",
)
B = memory(
    "feedback_deploy_tooling",
    description="Deploy tooling rule",
    updated="2026-06-01",
    body="Use the deploy script.\n\n**Why:** it checks the env first.\n\n**How to apply:** `./deploy.sh`.",
)
INDEX = (
    "# Memory\n\n- [Deploy bun](feedback_deploy_bun.md) — bun\n"
    "- [Deploy tooling](feedback_deploy_tooling.md) — tooling\n- [Tea](user_tea.md) — tea\n"
)


def _store(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    top = tmp_path / "app"
    write_files(
        top / "memory",
        {
            "MEMORY.md": INDEX,
            "feedback_deploy_bun.md": A,  # the newer one: it used to win whatever "into" said
            "feedback_deploy_tooling.md": B,
            "user_tea.md": memory("user_tea", "user", body="User drinks tea."),
            **(extra or {}),
        },
    )
    init_repo(top)
    return top / "memory"


def _memories(store: Path, *names: str) -> list:
    loaded = load_store(store)
    return [loaded.get(n) for n in names]


def test_the_target_keeps_its_name_and_description_and_its_text_leads(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ops.merge(
        store, ["feedback_deploy_bun.md", "feedback_deploy_tooling.md"], into="feedback_deploy_tooling.md", today=DAY
    )
    merged = read_memory(store / "feedback_deploy_tooling.md", "feedback_deploy_tooling.md", in_archive=False)
    assert merged.name == "feedback_deploy_tooling" and merged.description == "Deploy tooling rule"
    body = merged.body
    assert body.index("Use the deploy script.") < body.index("Deploy with bun.")
    assert body.index("**How to apply:** `./deploy.sh`.") < body.index("**Why:** the lockfile")
    # the index line is still the target's own
    index = (store / "MEMORY.md").read_text()
    assert "- [Deploy tooling](feedback_deploy_tooling.md)" in index and "feedback_deploy_bun.md" not in index


def test_merged_bodies_are_paragraphs_never_glued(tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b = _memories(store, "feedback_deploy_bun.md", "feedback_deploy_tooling.md")
    text = ops.default_merge_text([a, b], into="feedback_deploy_tooling.md")
    assert text.startswith(B.rstrip("\n"))
    # every line of the other memory's body is its own paragraph, as it was there
    assert (
        "`./deploy.sh`.\n\nDeploy with bun.\n\n**Why:** the lockfile resolves faster.\n\n**How to apply:** run" in text
    )
    assert text.endswith("`bun install`.\n") and not text.endswith("\n\n")
    assert "\n\n\n" not in text


def test_lines_the_target_already_has_are_not_repeated(tmp_path: Path) -> None:
    store = _store(
        tmp_path,
        {
            "feedback_copy.md": memory(
                "feedback_copy", description="copy", body="Use the deploy script.\n\nAlso tag the release."
            )
        },
    )
    b, c = _memories(store, "feedback_deploy_tooling.md", "feedback_copy.md")
    text = ops.default_merge_text([c, b], into="feedback_deploy_tooling.md")
    assert text.count("Use the deploy script.") == 1
    assert text.endswith("`./deploy.sh`.\n\nAlso tag the release.\n")


def test_into_a_new_file_the_first_memory_leads_with_a_description_of_both(tmp_path: Path) -> None:
    """The newest memory used to lead, with its own description: a merged memory described as one of the two."""
    store = _store(tmp_path)
    a, b = _memories(store, "feedback_deploy_bun.md", "feedback_deploy_tooling.md")
    for into in ("feedback_deploy.md", None):
        text = ops.default_merge_text([b, a], into=into)
        assert text.startswith(
            "---\nname: feedback_deploy_tooling\ndescription: Deploy tooling rule; Deploy with bun\n"
        )
        assert "Use the deploy script." in text and "Deploy with bun." in text  # both rules, whichever leads
    assert ops.default_merge_text([a, b], into="feedback_deploy.md").startswith(
        "---\nname: feedback_deploy_bun\ndescription: Deploy with bun; Deploy tooling rule\n"
    )


def test_merge_and_edit_keep_the_final_newline(tmp_path: Path) -> None:
    store = _store(tmp_path)
    text = B.rstrip("\n") + "\n\nOne more line typed in the dialog"
    ops.merge(
        store,
        ["feedback_deploy_bun.md", "feedback_deploy_tooling.md"],
        into="feedback_deploy_tooling.md",
        text=text,
        today=DAY,
    )
    assert (store / "feedback_deploy_tooling.md").read_text().endswith("typed in the dialog\n")
    tea = (store / "user_tea.md").read_text()
    ops.edit(store, "user_tea.md", tea.replace("tea", "coffee").rstrip("\n"), today=DAY)  # a TextArea's text
    assert (store / "user_tea.md").read_text() == tea.replace("tea", "coffee")


def test_an_unchanged_text_without_its_final_newline_is_no_edit(tmp_path: Path) -> None:
    store = _store(tmp_path)
    head = git(store.parent, "rev-parse", "HEAD")
    result = ops.edit(store, "user_tea.md", (store / "user_tea.md").read_text().rstrip("\n"), today=DAY)
    assert result.commit is None and git(store.parent, "rev-parse", "HEAD") == head


def test_merge_and_edit_bump_updated_when_the_file_has_it_and_never_add_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ops.merge(
        store, ["feedback_deploy_bun.md", "feedback_deploy_tooling.md"], into="feedback_deploy_tooling.md", today=DAY
    )
    merged = (store / "feedback_deploy_tooling.md").read_text()
    assert "updated: 2026-11-30" in merged and "2026-06-01" not in merged
    bun = (store.parent / "memory.archive" / "feedback_deploy_bun.md").read_text()
    assert "updated: 2026-11-20" in bun  # an archived source is stamped, not edited
    tea = (store / "user_tea.md").read_text()
    ops.edit(store, "user_tea.md", tea.replace("tea", "coffee"), today=DAY)
    assert "updated" not in (store / "user_tea.md").read_text()


def test_edit_bumps_updated_under_metadata_and_keeps_a_date_the_person_typed(tmp_path: Path) -> None:
    gen_b = (
        "---\nname: user_editor\ndescription: editor\nmetadata:\n  type: user\n  updated: 2026-01-02\n---\n\n"
        "User edits in vim.\n"
    )
    store = _store(
        tmp_path, {"user_editor.md": gen_b, "user_dated.md": memory("user_dated", "user", updated="2026-01-02")}
    )
    result = ops.edit(store, "user_editor.md", gen_b.replace("vim", "helix"), today=DAY)
    assert (store / "user_editor.md").read_text() == gen_b.replace("vim", "helix").replace("2026-01-02", "2026-11-30")
    # what memtui added to the text typed is said (a new user's edit moved `modified` unseen)
    assert result.summary == "edited user_editor.md (`updated` set to 2026-11-30)", result.summary
    dated = (store / "user_dated.md").read_text()
    result = ops.edit(
        store, "user_dated.md", dated.replace("2026-01-02", "2025-12-31").replace("Rule", "The rule"), today=DAY
    )
    assert "updated: 2025-12-31" in (store / "user_dated.md").read_text()
    assert result.summary == "edited user_dated.md", "the person's own date: nothing added"


def test_the_real_command_merges_into_b_as_b(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memtui",
            "merge",
            str(store),
            "feedback_deploy_bun.md",
            "feedback_deploy_tooling.md",
            "--into",
            "feedback_deploy_tooling.md",
            "--reason",
            "same rule",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert out.returncode == 0, out.stderr
    text = (store / "feedback_deploy_tooling.md").read_text()
    assert text.startswith("---\nname: feedback_deploy_tooling\ndescription: Deploy tooling rule\n")
    assert "merged_from: [feedback_deploy_bun.md]" in text and text.endswith("\n")


def _gen_b(name: str, description: str, body: str) -> str:
    """A memory as current Claude Code writes it (0WAQ/gsim-ops): quoted description, type under metadata."""
    return (
        f'---\nname: {name}\ndescription: "{description}"\nmetadata: \n  node_type: memory\n  type: feedback\n'
        f"---\n\n{body}\n"
    )


def test_the_real_command_merging_into_a_new_file_indexes_the_merged_memory_and_loses_no_rule(tmp_path: Path) -> None:
    """gsim-ops: commit style and destructive ops merged into feedback_style.md got the second memory's front
    matter (the newer file), while MEMORY.md kept the first one's line retargeted and dropped the second's: the
    index described commit style only, the file said it was about destructive ops."""
    commit = _gen_b(
        "feedback-commit-style",
        "User wants me to write commit messages (on explicit ask). Style: English, short, no emoji",
        "Only commit on explicit ask.\n\n**Why:** they review it.\n\n**How to apply:** draft, then ask.",
    )
    destructive = _gen_b(
        "feedback-destructive-ops",
        "Destructive operations must be opt-in, with --force / explicit flags required for the destructive path",
        "Default behavior is non-destructive.\n\n**Why:** a wrong default costs real work.\n\n"
        "**How to apply:** put the destructive variant behind a flag.",
    )
    top = tmp_path / "app"
    write_files(
        top / "memory",
        {
            "MEMORY.md": "- [Reply Style](feedback_reply_style.md) — terse\n"
            "- [Commit Style](feedback_commit_style.md) — I draft commits on explicit ask\n"
            "- [Destructive Ops](feedback_destructive_ops.md) — --force for destructive paths\n"
            "- [Plan Mode](feedback_plan_mode.md) — plan first\n",
            "feedback_reply_style.md": _gen_b("feedback-reply-style", "Chinese, terse", "Terse."),
            "feedback_plan_mode.md": _gen_b("feedback-plan-mode", "Plan 3+ file changes", "Plan first."),
            "feedback_commit_style.md": commit,
        },
    )
    write_files(top / "memory", {"feedback_destructive_ops.md": destructive})  # the newer file
    init_repo(top)
    store = top / "memory"
    out = _merge_command(
        store, "feedback_commit_style.md", "feedback_destructive_ops.md", into="feedback_style.md", reason="combine"
    )
    assert out.returncode == 0, out.stderr
    merged = read_memory(store / "feedback_style.md", "feedback_style.md", in_archive=False)
    assert merged.name == "feedback-commit-style"  # the first memory's front matter, not the newest file's
    assert merged.description == (
        "User wants me to write commit messages (on explicit ask). Style: English, short, no emoji; "
        "Destructive operations must be opt-in, with --force / explicit flags required for the destructive path"
    )
    assert "Only commit on explicit ask." in merged.body and "Default behavior is non-destructive." in merged.body
    lines = (store / "MEMORY.md").read_text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("- [Reply Style]") and lines[2].startswith("- [Plan Mode]")
    assert lines[1] == (
        "- [feedback-commit-style](feedback_style.md) — User wants me to write commit messages (on explicit…; "
        "Destructive operations must be opt-in, with --force…"  # each memory named, cut at a word
    )


NPM = memory(
    "feedback_use_npm",
    description="Install packages with npm",
    updated="2026-03-02",
    body="Use npm for installs and scripts in this repo; commit package-lock.json.",
)
BUN = memory(
    "feedback_use_bun",
    description="The repo switched to bun",
    updated="2026-09-14",
    body="The repo switched to bun; don't run npm install any more, it writes a stray package-lock.json.",
)


def _merge_command(store: Path, *files: str, into: str, reason: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtui", "merge", str(store), *files, "--into", into]
        + (["--reason", reason] if reason else []),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_merging_a_contradiction_as_it_is_is_refused_and_saves_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    before = git(store.parent, "rev-parse", "HEAD")
    out = _merge_command(store, "feedback_use_npm.md", "feedback_use_bun.md", into="feedback_use_bun.md")
    assert out.returncode == 1
    assert "feedback_use_npm.md and feedback_use_bun.md may conflict" in out.stderr
    assert "one memory would say both" in out.stderr and "--body-file" in out.stderr
    assert git(store.parent, "rev-parse", "HEAD") == before
    assert (store / "feedback_use_npm.md").exists() and "switched to bun" in (store / "feedback_use_bun.md").read_text()


def test_merging_two_memories_that_agree_says_nothing_about_a_conflict(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = _merge_command(
        store, "feedback_deploy_bun.md", "feedback_deploy_tooling.md", into="feedback_deploy_tooling.md"
    )
    assert out.returncode == 0, out.stderr
    assert "may conflict" not in out.stdout + out.stderr


def test_a_merge_with_the_persons_own_text_is_not_refused(tmp_path: Path) -> None:
    store = _store(tmp_path, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    result = ops.merge(
        store,
        ["feedback_use_npm.md", "feedback_use_bun.md"],
        into="feedback_use_bun.md",
        text=BUN.replace("The repo switched to bun;", "Use bun, not npm;"),
        today=DAY,
    )
    assert result.commit and not any("may conflict" in n for n in result.notes)


def test_a_merge_into_a_new_file_takes_the_first_merged_memorys_index_line_where_it_stands(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ops.merge(
        store,
        ["feedback_deploy_bun.md", "feedback_deploy_tooling.md"],
        into="feedback_deploy.md",
        reason="one rule",
        today=DAY,
    )
    index = (store / "MEMORY.md").read_text()
    # one line for the merged memory, where the first merged memory's line stood, saying what it now holds
    assert index == (
        "# Memory\n\n- [feedback_deploy_bun](feedback_deploy.md) — Deploy with bun; Deploy tooling rule\n"
        "- [Tea](user_tea.md) — tea\n"
    )


def test_a_merge_into_a_memory_the_index_does_not_list_takes_the_merged_line_in_place_within_the_cap(
    tmp_path: Path,
) -> None:
    """Demo: feedback_small_prs.md (listed at line 17) into feedback_small_prs_zh.md (not listed) removed line 17
    and added a line at 220, past the 200 lines Claude Code loads."""
    filler = "".join(f"- [Note {n}](note_{n}.md) — note\n" for n in range(205))
    index = "# Memory\n\n- [Small PRs](feedback_small_prs.md) — under 400 lines\n" + filler
    top = tmp_path / "app"
    write_files(
        top / "memory",
        {
            "MEMORY.md": index,
            "feedback_small_prs.md": memory("feedback_small_prs", body="Keep PRs under 400 changed lines."),
            "feedback_small_prs_zh.md": memory("feedback_small_prs_zh", body="PR 控制在 400 行以内。"),
        },
    )
    init_repo(top)
    store = top / "memory"
    ops.merge(
        store,
        ["feedback_small_prs.md", "feedback_small_prs_zh.md"],
        into="feedback_small_prs_zh.md",
        reason="one rule in two languages",
        today=DAY,
    )
    lines = (store / "MEMORY.md").read_text().splitlines()
    # the merged memory's own name and description, not feedback_small_prs.md's title and hook
    assert lines[2] == "- [feedback_small_prs_zh](feedback_small_prs_zh.md) — feedback small prs zh"
    assert lines[3:] == filler.splitlines() and sum("feedback_small_prs" in line for line in lines) == 1


def test_whitespace_before_the_opening_fence_is_named_not_called_a_missing_type(tmp_path: Path) -> None:
    """A tab or spaces typed before `---` hide the whole front matter: say that, with the line."""
    store = _store(tmp_path)
    files = ["feedback_deploy_bun.md", "feedback_deploy_tooling.md"]
    for typed, said in (
        ("    " + B, "line 1: the opening --- has 4 spaces before it"),
        ("\t" + B, "line 1: the opening --- has a tab before it"),
        ("\n\n" + B, "line 3: the opening --- comes after 2 blank lines"),
    ):
        with pytest.raises(ops.OpError, match=said) as merging:
            ops.merge(store, files, into="feedback_deploy_tooling.md", text=typed, today=DAY)
        with pytest.raises(ops.OpError, match=said) as editing:
            ops.edit(store, "feedback_deploy_tooling.md", typed, today=DAY)
        assert "type" not in merging.value.message + editing.value.message
    assert (store / "feedback_deploy_tooling.md").read_text() == B


def test_a_suggested_text_left_as_it_was_is_held_to_the_contradiction_rule(tmp_path: Path) -> None:
    """The merge dialog always hands over a text; left as suggested it says both sides, like no text at all."""
    store = _store(tmp_path, {"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})
    before = git(store.parent, "rev-parse", "HEAD")
    files = ["feedback_use_npm.md", "feedback_use_bun.md"]
    suggested = ops.default_merge_text(_memories(store, *files), into="feedback_use_bun.md")
    with pytest.raises(ops.OpError, match="one memory would say both") as refused:
        ops.merge(store, files, into="feedback_use_bun.md", text=suggested, text_edited=False, today=DAY)
    assert "--body-file" not in refused.value.message  # the CLI adds its option (cli_hint); the TUI never shows it
    assert refused.value.cli_hint == "give that text with --body-file"
    assert git(store.parent, "rev-parse", "HEAD") == before and (store / "feedback_use_npm.md").exists()
    # the same text, once the person says it is theirs, is their decision
    assert ops.merge(store, files, into="feedback_use_bun.md", text=suggested, text_edited=True, today=DAY).commit


def test_code_blocks_are_merged_whole_with_their_fences(tmp_path: Path) -> None:
    """A new user's merge of two notes on where screenshots land lost two closing fences of the older one (a line
    already said is dropped, and a fence line is said in every block): the rest of the memory read as code."""
    older = memory(
        "reference_screenshots",
        "reference",
        body=(
            "Screenshots come from F12 in the viewer.\n\nThey land in:\n\n```\nC:\\\\shots\\\\shot-yyyyMMdd.png\n```\n\n"
            "Newest first:\n\n```\nls -t shots | head -3\n\n# three of them\n```\n\n**Why:** the owner asked."
        ),
    )
    newer = memory(
        "reference_screenshot_location",
        "reference",
        body="Screenshots: F12 in the viewer.\n\n```\nls -t shots | head -3\n\n# three of them\n```\n\nNew: PNG only.",
    )
    store = _store(tmp_path, {"reference_screenshots.md": older, "reference_screenshot_location.md": newer})
    files = ("reference_screenshots.md", "reference_screenshot_location.md")
    text = ops.default_merge_text(_memories(store, *files), into="reference_screenshot_location.md")
    assert text.count("```") % 2 == 0, text
    assert "```\nC:\\\\shots\\\\shot-yyyyMMdd.png\n```" in text  # the older's own block, whole
    assert text.count("ls -t shots | head -3") == 1  # the block both hold, once
    assert "```\nls -t shots | head -3\n\n# three of them\n```" in text  # its blank line kept: it is code
