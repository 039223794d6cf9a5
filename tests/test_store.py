"""Finding and loading stores: every layout, the archive, and Claude Code's project folder."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from conftest import init_repo, memory, write_files

from memtui.core.freshness import assess
from memtui.core.locate import claude_code_store, locate_store, slug
from memtui.core.store import StoreError, load_store


def test_flat_layout_with_nested_folders_and_archive(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n",
            "memory/a.md": memory("a"),
            "memory/team/b.md": memory("b", "project"),
            "memory/.hidden/c.md": memory("c"),
            "memory.archive/ARCHIVE.md": "- [Old](old.md) — 2026-01-01 · gone\n",
            "memory.archive/old.md": memory("old", status="archived"),
        },
    )
    store = load_store(tmp_path / "memory")
    assert store.layout.kind == "flat"
    assert sorted(m.path for m in store.memories) == ["../memory.archive/old.md", "a.md", "team/b.md"]
    assert store.get("../memory.archive/old.md").status == "archived"  # type: ignore[union-attr]
    assert store.get("team/b.md").is_active  # type: ignore[union-attr]
    assert store.archive_index is not None and store.archive_index.entries[0].target == "old.md"


def test_typed_subfolder_layout(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "kb/MEMORY.md": "## User\n- [P](memory/user/user-p.md) — p\n",
            "kb/README.md": "not a memory",
            "kb/memory/user/user-p.md": memory("user-p", "user"),
            "kb/memory/projects/project-kb.md": memory("project-kb", "project"),
            "kb/memory/feedback/index.md": "generated bundle index, not a memory",
        },
    )
    for path in (tmp_path / "kb", tmp_path / "kb" / "memory"):
        store = load_store(path)
        assert store.layout.kind == "typed"
        assert store.root == (tmp_path / "kb").resolve()
        assert sorted(m.path for m in store.memories) == ["memory/projects/project-kb.md", "memory/user/user-p.md"]
        assert store.layout.archive_dir == (tmp_path / "kb" / "memory.archive").resolve()


def test_in_store_archive_index_marks_files_archived_but_loaded(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "memory/MEMORY.md": "- [A](a.md)\n",
            "memory/MEMORY_ARCHIVED.md": "# Memory Archive Index\n- [Shipped](shipped.md) — done\n",
            "memory/a.md": memory("a"),
            "memory/shipped.md": memory("shipped", "project"),
        },
    )
    store = load_store(tmp_path / "memory")
    shipped = store.get("shipped.md")
    assert shipped is not None and shipped.status == "archived" and not shipped.in_archive


def test_missing_folder_and_file_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such folder"):
        load_store(tmp_path / "nope")
    (tmp_path / "f.md").write_text("x")
    with pytest.raises(StoreError, match="not a folder"):
        load_store(tmp_path / "f.md")


def test_slug_matches_claude_code() -> None:
    assert slug("/Users/foo/my-project") == "-Users-foo-my-project"
    assert slug("C:\\Users\\Rohan") == "C--Users-Rohan"
    assert slug("/home/a.b_c d") == "-home-a-b-c-d"


def test_claude_code_store_honours_config_dir_and_git_root(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    init_repo(project)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    expected = tmp_path / "cfg" / "projects" / slug(str(project.resolve())) / "memory"
    assert claude_code_store(project / "sub", env) == expected
    expected.mkdir(parents=True)
    found, _ = locate_store(project / "sub", env)
    assert found == expected


def test_long_slug_is_matched_by_listing(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 120) / ("y" * 120)
    deep.mkdir(parents=True)
    name = slug(str(deep.resolve()))
    listed = tmp_path / "cfg" / "projects" / (name[:200] + "-1abc2de")
    (listed / "memory").mkdir(parents=True)
    assert claude_code_store(deep, {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}) == listed / "memory"


def test_in_repo_fallbacks(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_files(project, {"docs/memory/MEMORY.md": "- [A](a.md)\n", "docs/memory/a.md": memory("a")})
    init_repo(project)
    found, tried = locate_store(project, {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert found == project.resolve() / "docs" / "memory"
    assert any(".claude/memory" in str(t) for t in tried)


def test_freshness_policy_and_date_sources(tmp_path: Path) -> None:
    today = dt.date(2026, 11, 30)
    write_files(
        tmp_path,
        {
            "memory/p_fresh.md": memory("p", "project", updated="2026-11-20"),
            "memory/p_aging.md": memory("p2", "project", updated="2026-11-10"),
            "memory/p_stale.md": memory("p3", "project", created="2026-01-01", updated="2026-09-01"),
            "memory/p_expired.md": memory("p4", "project", updated="2026-11-29", expires_at="2026-11-01"),
            "memory/f.md": memory("f", "feedback", updated="2020-01-01"),
            "memory/u.md": memory("u", "user", last_verified="2026-10-01", updated="2025-01-01"),
            "memory/r.md": memory("r", "reference"),
            "memory/gen_b.md": "---\nname: b\ndescription: d\nmetadata:\n  type: reference\n  modified: 2026-07-25T19:17:39.087Z\n---\nx\n",
        },
    )
    os.utime(tmp_path / "memory/r.md", (0, dt.datetime(2026, 11, 29).timestamp()))
    store = load_store(tmp_path / "memory")
    badge = {m.path: assess(m, today) for m in store.memories}
    assert badge["p_fresh.md"].badge == "fresh"
    assert badge["p_aging.md"].badge == "aging"
    assert badge["p_stale.md"].badge == "stale" and badge["p_stale.md"].source == "updated"
    assert badge["p_expired.md"].badge == "expired"
    assert badge["f.md"].badge == "standing"
    assert badge["u.md"].badge == "fresh" and badge["u.md"].source == "last_verified"
    assert badge["r.md"].badge == "fresh" and badge["r.md"].source == "mtime"
    assert badge["gen_b.md"].badge == "stale" and badge["gen_b.md"].since == dt.date(2026, 7, 25)
    git_dated = assess(store.get("r.md"), today, fallback=dt.date(2026, 6, 1), fallback_source="git")  # type: ignore[arg-type]
    assert git_dated.badge == "stale" and git_dated.source == "git"


def test_a_readme_without_front_matter_is_no_memory(tmp_path: Path) -> None:
    """A new user's store, mirrored into a repository with a README.md for people, had two cards about it every
    week (no front matter, not listed in MEMORY.md); a README the agent wrote as a memory (front matter) stays one."""
    write_files(
        tmp_path,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n",
            "memory/a.md": memory("a"),
            "memory/README.md": "# AI memory, mirrored into the repository\r\n\r\nDo not edit by hand.\r\n",
            "memory/notes/readme.md": memory("notes_readme", "reference", body="Where the notes live: notes/."),
        },
    )
    store = load_store(tmp_path / "memory")
    assert sorted(m.path for m in store.memories) == ["a.md", "notes/readme.md"]
