"""The action commands as a real `memtui` process: archive, history, undo, init, and their refusals."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, init_repo, memory, write_files
from test_cli_check import run


def test_archive_history_and_undo_from_the_command_line(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n",
            "memory/a.md": memory("a"),
            "memory/b.md": memory("b"),
        },
    )
    init_repo(top)
    out = run("archive", str(top / "memory"), "a.md", "--reason", "Replaced by b", "--superseded-by", "b.md")
    assert out.returncode == 0, out.stderr
    assert "archived a.md" in out.stdout and "commit" in out.stdout
    events = json.loads(run("history", str(top / "memory"), "--revoked", "--json").stdout)
    assert [(e["action"], e["memory"], e["reason"], e["superseded_by"]) for e in events] == [
        ("archive", "memory/a.md", "Replaced by b", "memory/b.md")
    ]
    assert set(events[0]) >= {"commit", "date", "author", "action", "memory", "reason", "superseded_by"}
    text = run("history", str(top / "memory"), "a.md").stdout
    assert "archive" in text and "Replaced by b" in text
    undo = run("undo", str(top / "memory"))
    assert undo.returncode == 0 and (top / "memory" / "a.md").exists()
    assert json.loads(run("history", str(top / "memory"), "--revoked", "--json").stdout) == []


def test_refusals_exit_two_with_a_message_and_change_nothing(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/a.md": memory("a")})
    init_repo(top)
    head = git(top, "rev-parse", "HEAD")
    for args in (
        ["archive", str(top / "memory"), "../../etc/passwd.md", "--reason", "x"],
        ["archive", str(top / "memory"), "missing.md", "--reason", "x"],
        ["archive", str(top / "memory"), "a.md", "--reason", " "],
    ):
        out = run(*args)
        assert out.returncode == 1 and out.stderr.startswith("memtui: ") and "Traceback" not in out.stderr
    assert git(top, "rev-parse", "HEAD") == head
    missing_reason = run("archive", str(top / "memory"), "a.md")
    assert missing_reason.returncode == 2 and "--reason" in missing_reason.stderr


def test_store_outside_git_points_at_init_and_exits_two(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/a.md": memory("a")})
    before = sorted(p.name for p in top.rglob("*"))
    out = run("archive", str(top / "memory"), "a.md", "--reason", "x")
    assert out.returncode == 2 and "memtui init" in out.stderr
    assert sorted(p.name for p in top.rglob("*")) == before
    init = run("init", str(top / "memory"))
    assert init.returncode == 0 and (top / ".git").is_dir()
    assert run("archive", str(top / "memory"), "a.md", "--reason", "x").returncode == 0


def test_demo_history_lists_the_revoked_rule(tmp_path: Path) -> None:
    # `check --demo` removes its demo when it exits (issue 8 item 9), so build one that stays for `history`
    from memtui.demo import make_demo_store

    store = str(make_demo_store(parent=tmp_path))
    events = json.loads(run("history", store, "--revoked", "--json").stdout)
    polite = [e for e in events if e["memory"].endswith("feedback_writing_polite.md")]
    assert len(polite) == 1
    assert "direct style" in polite[0]["reason"] and polite[0]["superseded_by"].endswith("feedback_writing_direct.md")
    assert polite[0]["author"] == "Mei Chen"


def test_a_restored_rule_is_no_longer_listed_as_revoked(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/a.md": memory("a"), "memory/b.md": memory("b")})
    init_repo(top)
    assert run("archive", str(top / "memory"), "a.md", "--reason", "old").returncode == 0
    assert run("archive", str(top / "memory"), "b.md", "--reason", "older").returncode == 0
    assert run("restore", str(top / "memory"), "a.md").returncode == 0
    events = json.loads(run("history", str(top / "memory"), "--revoked", "--json").stdout)
    assert [e["memory"] for e in events] == ["memory/b.md"]


def test_the_path_history_prints_is_accepted_back_by_history_archive_and_restore(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "- [A](a.md) — a\n", "memory/a.md": memory("a")})
    init_repo(top)
    store = str(top / "memory")
    out = run("archive", store, "memory/a.md", "--reason", "retired")
    assert out.returncode == 0, out.stderr
    printed = json.loads(run("history", store, "--json").stdout)[0]["memory"]
    assert printed == "memory/a.md"
    assert "retired" in run("history", store, printed).stdout
    archived = next(p for p in top.rglob("a.md*") if p != top / "memory" / "a.md")
    out = run("restore", store, archived.relative_to(top).as_posix())  # as git names it
    assert out.returncode == 0, out.stderr
    assert (top / "memory" / "a.md").exists()
    refused = run("archive", store, "../p/other/a.md", "--reason", "x")
    assert refused.returncode != 0 and "Traceback" not in refused.stderr


def test_history_text_names_every_memory_of_a_decision_and_marks_what_was_undone(tmp_path: Path) -> None:
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": "".join(f"- [{n.upper()}]({n}.md) — {n}\n" for n in "abcde"),
            **{f"memory/{n}.md": memory(n) for n in "abcde"},
        },
    )
    init_repo(top)
    store = str(top / "memory")
    assert run("verify", store, *(f"{n}.md" for n in "abcde")).returncode == 0
    assert run("archive", store, "a.md", "--reason", "old").returncode == 0
    assert run("undo", store).returncode == 0
    lines = run("history", store).stdout.splitlines()
    assert lines[0].split()[1] == "undo"
    assert "archive (undone)" in lines[1] and "— old" in lines[1]
    every = ", ".join(f"memory/{n}.md" for n in "abcde")  # all five, none left as "… 2 more"
    assert "verify" in lines[2] and every in lines[2] and "(undone)" not in lines[2]


def test_init_refuses_a_secret_and_allow_secret_commits_it_saying_so(tmp_path: Path) -> None:
    """`memtui init` refused while the store held a secret and nothing could force it (a new user's GUID table
    kept the store out of git for good); --allow-secret, spelled as on every other action, commits it."""
    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "- [A](a.md) — a\n", "memory/a.md": memory("a", body="key " + "9f" * 20)})
    refused = run("init", str(top / "memory"))
    assert refused.returncode == 1 and "--allow-secret" in refused.stderr and not (top / ".git").exists()
    done = run("init", str(top / "memory"), "--allow-secret")
    assert done.returncode == 0, done.stderr
    assert "memory/a.md:7 (long hex string)" in done.stdout and "allowed" in done.stdout
    assert git(top, "ls-files").split() == [".gitignore", "memory/MEMORY.md", "memory/a.md"]


def test_archiving_a_malformed_memory_leaves_check_clean(tmp_path: Path) -> None:
    """A new user archived the demo's malformed memory and `check` went on failing (exit 1, so the pre-commit
    hook too) on `malformed ../memory.archive/…`, which nothing could clear."""
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n- [Broken](broken.md) — b\n",
            "memory/a.md": memory("a"),
            "memory/broken.md": "---\nname: broken\ntype: feedback\n",
        },
    )
    init_repo(top)
    store = str(top / "memory")
    assert run("check", store).returncode == 1
    assert run("archive", store, "broken.md", "--reason", "unreadable").returncode == 0
    out = run("check", store, "--json")
    assert out.returncode == 0, out.stdout
    assert json.loads(out.stdout)["findings"] == []


def test_a_memory_named_by_an_absolute_or_cwd_relative_path_inside_the_store_is_accepted(tmp_path: Path) -> None:
    """`memtui verify STORE /abs/path/inside/store/x.md` was refused ("absolute paths are refused") though the path
    is inside the store. Paths outside it, links out of it and `..` out of it are still refused."""
    top = tmp_path / "p"
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.md").write_text(memory("o"))
    write_files(
        top,
        {
            "memory/MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n",
            "memory/a.md": memory("a"),
            "memory/b.md": memory("b"),
        },
    )
    (top / "memory" / "link.md").symlink_to(tmp_path / "outside" / "o.md")
    (top / "memory" / "sub").symlink_to(tmp_path / "outside", target_is_directory=True)
    init_repo(top)
    store = top / "memory"
    out = run("verify", str(store), str(store / "a.md"))
    assert out.returncode == 0 and "verified a.md" in out.stdout, out.stderr
    out = run("verify", "memory", "memory/b.md", cwd=top)  # relative to the current folder
    assert out.returncode == 0 and "verified b.md" in out.stdout, out.stderr
    via_link = tmp_path / "store-link"
    via_link.symlink_to(store, target_is_directory=True)
    out = run("archive", str(store), str(via_link / "a.md"), "--reason", "x", "--superseded-by", str(store / "b.md"))
    assert out.returncode == 0 and "archived a.md" in out.stdout, out.stderr
    out = run("history", str(store), str(store.parent / "memory.archive" / "a.md"))
    assert out.returncode == 0 and "archive" in out.stdout, out.stderr
    head = git(top, "rev-parse", "HEAD")
    for path, says in (
        (tmp_path / "outside" / "o.md", "outside the store"),
        (store / ".." / ".." / "outside" / "o.md", "outside the store"),
        (store / "link.md", "symlink pointing outside"),
        (store / "sub" / "o.md", "symlink pointing outside"),
    ):
        out = run("verify", str(store), str(path))
        assert out.returncode == 1 and says in out.stderr and "Traceback" not in out.stderr, (path, out.stderr)
    assert git(top, "rev-parse", "HEAD") == head


def test_history_of_no_such_memory_says_so_and_exits_one(tmp_path: Path) -> None:
    """`memtui history STORE nope.md` printed "no memtui events for that memory" and exited 0, and `--revoked`
    said "no memtui events" when there were events, none of them revoking a rule."""
    top = tmp_path / "p"
    write_files(top, {"memory/MEMORY.md": "", "memory/a.md": memory("a"), "memory/gone.md": memory("gone")})
    init_repo(top)
    store = str(top / "memory")
    git(top, "rm", "-q", "memory/gone.md")
    git(top, "commit", "-qm", "gone by hand")
    for args in (["nope.md"], ["nope.md", "--json"], ["nope.md", "--revoked"], [str(top / "memory" / "nope.md")]):
        out = run("history", store, *args)
        assert out.returncode == 1 and "nope.md: no such memory" in out.stderr and out.stdout == "", (args, out)
    out = run("history", store, "/etc/hostname")
    assert out.returncode == 1 and "outside the store" in out.stderr
    for name in ("a.md", "gone.md"):  # on disk, or only in git's history: there, with no memtui event yet
        out = run("history", store, name)
        assert out.returncode == 0 and out.stdout == "no memtui events for that memory\n", out
    assert run("verify", store, "a.md").returncode == 0
    out = run("history", store, "--revoked")
    assert out.returncode == 0 and out.stdout == "no revoked rules\n"
    out = run("history", store, "a.md", "--revoked")
    assert out.returncode == 0 and out.stdout == "no revoked rules for that memory\n"


def test_restore_brings_back_a_memory_deleted_from_the_loaded_folder(tmp_path: Path) -> None:
    from conftest import init_repo, memory, write_files

    top = tmp_path / "p"
    text = memory("feedback_keep", body="Keep this rule.")
    write_files(top, {"memory/MEMORY.md": "- [Keep](feedback_keep.md) — keep\n", "memory/feedback_keep.md": text})
    init_repo(top)
    (top / "memory" / "feedback_keep.md").unlink()
    out = run("restore", str(top / "memory"), "feedback_keep.md")
    assert out.returncode == 0, out.stderr
    assert (top / "memory" / "feedback_keep.md").read_text() == text
    again = run("restore", str(top / "memory"), "feedback_never.md")
    assert again.returncode == 1 and "Traceback" not in again.stderr, again.stderr
