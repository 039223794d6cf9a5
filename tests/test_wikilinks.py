"""Wikilinks between memories (real files, real git, the real command): `[[name]]` resolves as the agent reads it,
and a link to no live memory is a `broken-wikilink` finding."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import init_repo, memory, write_files

from memtui.analysis.check import check_store
from memtui.analysis.wikilinks import Resolver, wikilinks
from memtui.core.store import load_store

DAY = dt.date(2026, 11, 30)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def wiki_findings(store: Path) -> list:
    report = check_store(load_store(store), DAY)
    return [f for f in report.findings if f.kind == "broken-wikilink"]


DEPLOY = memory(
    "feedback_deploy_bun",
    description="Deploy with bun",
    body="Deploy with bun.\n\n**Why:** the lockfile resolves faster.\n\n**How to apply:** run `bun install`.",
)
TOOLING = memory(
    "deploy-tooling",
    description="Deploy tooling",
    body="Use the deploy script.\n\n**Why:** it checks the env first.\n\n**How to apply:** `./deploy.sh`.",
)
# links by name, by file name, with other separators, with an alias and a heading; in code and paths: no links
LINKER = (
    '---\nname: release-notes\ndescription: "how releases go, see [[feedback_deploy_bun|the bun rule]]"\n'
    "type: project\n---\r\n"
    "Releases follow [[feedback-deploy-bun#Why]] and [[deploy-tooling]].\r\n"
    "The script is [[deploy_tooling]]; `[[feedback_deploy_bun]]` in code is text.\r\n"
    "```\r\n[[feedback_deploy_bun]]\r\n```\r\n"
    "Plans live in [[../plans/ROADMAP.md]] and [[notes.md]]; [[ ]] is empty.\r\n\r\n"
    "**Why:** one place.\r\n\r\n**How to apply:** read it.\r\n"
)
INDEX = (
    "# Memory\n\n- [Deploy bun](feedback_deploy_bun.md) — bun, not [[deploy-tooling]]\n"
    "- [Deploy tooling](deploy_tooling.md) — tooling\n- [Release notes](release_notes.md) — releases\n"
)


def _store(tmp_path: Path, extra: dict[str, str | bytes] | None = None, *, when: dt.date | None = None) -> Path:
    top = tmp_path / "app"
    write_files(
        top / "memory",
        {
            "MEMORY.md": INDEX,
            "feedback_deploy_bun.md": DEPLOY,
            "deploy_tooling.md": TOOLING,
            "release_notes.md": LINKER.encode("utf-8"),
            **(extra or {}),
        },
    )
    init_repo(top, when=when)
    return top / "memory"


# ---------------------------------------------------------------------------------------------- reading links


def test_links_keep_alias_and_heading_out_of_the_target_and_code_is_no_link() -> None:
    text = "a [[x|X]] b [[y#Why]] [[ z \\| alias]] `[[code]]` ``[[a `b` c]]``\n```\n[[fenced]]\n```\n[[after]]\n"
    found = wikilinks(text)
    assert [(w.target, w.line) for w in found] == [("x", 1), ("y", 1), ("z", 1), ("after", 5)]
    assert all(text[w.start : w.end] == w.target for w in found)  # what a rewrite replaces: the target, no more
    # lines as an editor counts them: a form feed or a Unicode line separator inside a line starts no new one
    assert [w.line for w in wikilinks("a\x0cb\u2028 [[x]]\r\n[[y]]")] == [1, 2]


def test_a_link_resolves_by_name_file_name_or_spelling_and_paths_and_empty_targets_are_no_links(
    tmp_path: Path,
) -> None:
    store = load_store(_store(tmp_path))
    resolver = Resolver(store)
    assert resolver.resolve("feedback_deploy_bun", "x.md").live == "feedback_deploy_bun.md"  # by name
    assert resolver.resolve("deploy_tooling", "x.md").live == "deploy_tooling.md"  # by file name
    assert resolver.resolve("Feedback-Deploy-Bun", "x.md").live == "feedback_deploy_bun.md"  # a near miss reaches it
    assert resolver.resolve("deploy_tooling.md", "x.md").live == "deploy_tooling.md"
    assert resolver.resolve("../plans/ROADMAP.md", "x.md") is None  # a path: no link between memories
    assert resolver.resolve("notes.md", "x.md") is None
    assert resolver.resolve("", "x.md") is None
    assert resolver.resolve("ghost", "x.md") is not None and resolver.resolve("ghost", "x.md").live is None  # type: ignore[union-attr]
    assert wiki_findings(store.root) == []  # every link of the store reaches a memory, MEMORY.md's too


def test_a_link_to_no_memory_is_an_info_finding_one_per_memory_and_target_with_its_lines(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Drinks tea, see [[tea-notes]] and again [[Tea_Notes|notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    found = wiki_findings(store)
    assert len(found) == 1
    f = found[0]
    assert (f.severity, f.paths, f.cue, f.line) == ("info", ("user_tea.md",), "tea-notes", 7)
    assert f.message == "user_tea.md:7: [[tea-notes]] (2 times, lines 7) links to no memory (none is named tea-notes)"
    assert f.to_json()["details"] == {
        "target": "tea-notes",
        "lines": [7],
        "archived": None,
        "suggestion": None,
        "suggested_link": None,
    }


def test_a_link_that_differs_by_a_type_prefix_names_the_memory_it_probably_means(tmp_path: Path) -> None:
    """KoEnVue: `[[harness-design]]` where the memory is named `feedback-harness-design`."""
    linker = memory("workflow", body="Follow [[deploy-bun]].\n\n**Why:** x.\n\n**How to apply:** y.")
    store = _store(tmp_path, {"feedback_workflow.md": linker})
    (f,) = wiki_findings(store)
    assert f.severity == "info" and f.details["suggestion"] == "feedback_deploy_bun.md"
    assert f.details["suggested_link"] == "feedback_deploy_bun"
    assert "probably [[feedback_deploy_bun]] (feedback_deploy_bun.md)" in f.message


def test_the_real_command_reports_it_in_text_and_json(tmp_path: Path) -> None:
    ghost = memory("user_tea", "user", body="Drinks tea, see [[tea-notes]].")
    store = _store(tmp_path, {"user_tea.md": ghost})
    out = run("check", str(store), "--json", "--today", "2026-11-30")
    data = json.loads(out.stdout)
    (f,) = [f for f in data["findings"] if f["kind"] == "broken-wikilink"]
    assert f["severity"] == "info" and f["paths"] == ["user_tea.md"] and f["line"] == 7
    text = run("check", str(store), "--today", "2026-11-30").stdout
    assert "INFO    broken-wikilink     user_tea.md:7: [[tea-notes]] links to no memory" in text
