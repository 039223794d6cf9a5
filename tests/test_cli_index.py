"""`memtui index` and `memtui drop-link` as a real `memtui` process: the index findings fixed from the command line,
sharing `ops.index` and `ops.drop_link` with the review."""

from __future__ import annotations

from pathlib import Path

from conftest import git, init_repo, memory, write_files
from test_cli_check import run

INDEX = "- [A](a.md) — a\n- [Gone](gone.md) — renamed since\n"


def _store(tmp_path: Path) -> Path:
    top = tmp_path / "p"
    write_files(
        top,
        {
            "memory/MEMORY.md": INDEX,
            "memory/a.md": memory("a"),
            "memory/b.md": memory("b", description="The b rule"),
            "memory/c.md": memory("c", description="The c rule"),
        },
    )
    init_repo(top)
    return top / "memory"


def test_index_adds_the_lines_and_check_no_longer_reports_them(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = run("index", str(store), "b.md", "c.md")
    assert out.returncode == 0, out.stderr
    assert "added 2 lines to MEMORY.md" in out.stdout and "commit" in out.stdout
    assert "- [b](b.md) — The b rule" in out.stdout  # the lines written, shown under the summary
    assert (store / "MEMORY.md").read_text() == INDEX + "- [b](b.md) — The b rule\n- [c](c.md) — The c rule\n"
    assert "unindexed" not in run("check", str(store)).stdout
    history = run("history", str(store), "b.md").stdout
    assert "index" in history


def test_index_refusals_exit_one_with_the_file_named_and_no_traceback(tmp_path: Path) -> None:
    store = _store(tmp_path)
    head = git(store.parent, "rev-parse", "HEAD")
    for args, words in (
        (["index", str(store), "a.md"], "a.md is already listed in MEMORY.md"),
        (["index", str(store), "nope.md"], "nope.md: no such memory"),
        (["drop-link", str(store), "a.md"], "a.md exists"),
        (["drop-link", str(store), "other.md"], "no line of MEMORY.md links to other.md"),
    ):
        out = run(*args)
        assert out.returncode == 1, (args, out.stderr)
        assert out.stderr.startswith("memtui: ") and words in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert git(store.parent, "rev-parse", "HEAD") == head
    assert (store / "MEMORY.md").read_text() == INDEX
    assert run("index", str(store)).returncode == 2  # no FILE: usage


def test_drop_link_removes_the_broken_line(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = run("drop-link", str(store), "gone.md")
    assert out.returncode == 0, out.stderr
    assert "removed 1 line from MEMORY.md" in out.stdout and "gone.md" in out.stdout
    assert (store / "MEMORY.md").read_text() == "- [A](a.md) — a\n"
    assert run("check", str(store)).returncode == 0  # the broken link was its only error


def test_help_says_what_index_and_drop_link_do(tmp_path: Path) -> None:
    top = run("--help")
    assert "index" in top.stdout and "drop-link" in top.stdout
    index = run("index", "--help")
    assert index.returncode == 0 and "MEMORY.md" in index.stdout and "FILE" in index.stdout
    assert "load" in index.stdout  # says it refuses lines Claude Code would not load
    drop = run("drop-link", "--help")
    assert drop.returncode == 0 and "does not exist" in drop.stdout and "LINK" in drop.stdout


def test_index_of_an_agent_write_holding_a_secret_says_last_on_stderr_that_it_was_not_recorded(
    tmp_path: Path,
) -> None:
    """A trial: `memtui index STORE file.md` on a memory the agent just wrote with a key in it committed the
    MEMORY.md line (which holds no secret) and said among its other lines, on stdout, that the memory itself was not
    recorded: easy to miss. It is said last, on stderr, as a warning naming the line `check` names."""
    store = _store(tmp_path)
    (store / "reference_tok.md").write_text(
        "---\nname: tok\ndescription: the CI token\ntype: reference\n---\n\n"
        f"The CI token is ghp_{'x1' * 18} for the bot.\n"
    )
    assert "reference_tok.md:7: possible GitHub token" in run("check", str(store)).stdout
    out = run("index", str(store), "reference_tok.md")
    assert out.returncode == 0, out.stderr
    assert "added 1 line to MEMORY.md" in out.stdout and "not recorded" not in out.stdout
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("memtui: warning: not recorded (holds a secret): reference_tok.md:7 (GitHub token)"), last
    assert "stays uncommitted" in last
    assert "reference_tok.md" in git(store.parent, "status", "--porcelain")
    assert git(store.parent, "show", "--name-only", "--format=", "HEAD").split() == ["memory/MEMORY.md"]
