"""`memtui check` as a real command: text and JSON, exit codes, --today, --demo, never writing, no Textual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, memory

MEMTUI = [sys.executable, "-m", "memtui"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, in a subprocess."""
    return subprocess.run(
        [*MEMTUI, *args], capture_output=True, text=True, cwd=cwd, env={**os.environ, "PYTHONIOENCODING": "utf-8"}
    )


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_json_shape_and_exit_code_one_on_errors(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [A](a.md) — a\n- [Gone](gone.md) — x\n")
    (store / "a.md").write_text(memory("a", "project", updated="2026-10-01"))
    before = _snapshot(tmp_path)
    out = run("check", str(store), "--json", "--today", "2026-11-30")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["store"] == str(store.resolve()) and data["today"] == "2026-11-30"
    assert data["memories"] == [
        {"path": "a.md", "type": "project", "name": "a", "status": "active", "freshness": "stale", "age_days": 60}
    ]
    broken = [f for f in data["findings"] if f["kind"] == "broken-link"]
    assert broken == [
        {
            "kind": "broken-link",
            "severity": "error",
            "paths": ["gone.md"],
            "line": 2,
            "score": None,
            "message": "MEMORY.md:2: links to gone.md, which does not exist",
            "cue": "gone.md",
        }
    ]
    assert _snapshot(tmp_path) == before  # check never writes


def test_an_archived_memory_has_no_age_in_the_json(tmp_path: Path) -> None:
    """A trial read `"freshness": "fresh", "age_days": 0` on a memory archived months after it was written."""
    store = tmp_path / "memory"
    store.mkdir()
    (store / "a.md").write_text(memory("a", "project", updated="2026-10-01"))
    (store / "b.md").write_text(memory("b", "project", updated="2026-11-29", status="archived"))
    out = run("check", str(store), "--json", "--today", "2026-11-30")
    rows = {m["path"]: m for m in json.loads(out.stdout)["memories"]}
    assert rows["b.md"]["status"] == "archived"
    assert rows["b.md"]["freshness"] is None and rows["b.md"]["age_days"] is None
    assert rows["a.md"]["freshness"] == "stale" and rows["a.md"]["age_days"] == 60


def test_a_memory_the_agent_rewrote_today_is_not_called_stale_before_memtui_records_it(tmp_path: Path) -> None:
    """A trial saw "stale, last confirmed 2026-07-07" on a memory the agent had just rewritten: its write, not yet
    committed, counted for nothing until a decision recorded it (then it was fresh)."""
    import datetime as dt

    from conftest import init_repo

    top = tmp_path / "p"
    (top / "memory").mkdir(parents=True)
    (top / "memory" / "project_a.md").write_text(memory("project_a", "project", body="Ship on Fridays."))
    init_repo(top, when=dt.date(2026, 7, 7))
    args = ("check", str(top / "memory"), "--json", "--today", "2026-12-03")
    [row] = json.loads(run(*args).stdout)["memories"]
    assert (row["freshness"], row["age_days"]) == ("stale", 149)
    with (top / "memory" / "project_a.md").open("a", encoding="utf-8") as f:
        f.write("Ship on Thursdays when Friday is a holiday.\n")  # the agent, today, front matter as it was
    [row] = json.loads(run(*args).stdout)["memories"]
    assert (row["freshness"], row["age_days"]) == ("fresh", 0), row


def test_exit_zero_without_errors_and_text_report(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    store.mkdir()
    (store / "a.md").write_text(memory("a", "feedback"))
    out = run("check", str(store), "--today", "2026-11-30")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 memory ·" in out.stdout and "0 errors" in out.stdout


def test_usage_and_io_errors_exit_two_without_traceback(tmp_path: Path) -> None:
    missing = run("check", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr and "Traceback" not in missing.stderr
    bad_date = run("check", str(tmp_path), "--today", "30/11/2026")
    assert bad_date.returncode == 2 and "--today" in bad_date.stderr
    no_args = run("check", "--bogus")
    assert no_args.returncode == 2


def test_terminal_escapes_in_memories_are_shown_not_run(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    store.mkdir()
    (store / "e.md").write_text(
        "---\nname: e\ndescription: d\ntype: reference\n---\nBody \x1b[31mred\x1b]0;title\x07\n", encoding="utf-8"
    )
    (store / "MEMORY.md").write_text("- [E](e.md) — \x1b[2J gone\n- [X](x.md) — y\n")
    (store / "evil\x1b[2J.md").write_text("no front matter \x1b[31m\n")
    out = run("check", str(store))
    assert "\x1b" not in out.stdout and "\\x1b" in out.stdout


def test_demo_store_has_every_finding_kind() -> None:
    out = run("check", "--demo", "--json", "--today", "2026-11-30")
    assert out.returncode == 1
    data = json.loads(out.stdout)
    kinds = {f["kind"] for f in data["findings"]}
    assert kinds >= {
        "contradiction",
        "duplicate",
        "stale",
        "expired",
        "relative-date",
        "secret",
        "broken-link",
        "unindexed",
        "duplicate-entry",
        "long-index-line",
        "index-over-cap",
        "malformed",
        "schema",
        "archived-but-loaded",
    }
    assert 40 <= len(data["memories"]) <= 60
    assert {m["type"] for m in data["memories"]} >= {"user", "feedback", "project", "reference", None}
    assert any(m["status"] == "archived" for m in data["memories"])


def test_real_corpus_fixture_from_the_command_line() -> None:
    out = run("check", str(FIXTURES / "real" / "PinKushin__PokemonBattleJournal"), "--today", "2026-11-30")
    assert out.returncode == 1
    assert "does not load line 109" in out.stdout


def test_check_does_not_import_textual(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(memory("a"))
    code = (
        "import sys; from memtui.cli import main; rc = main(['check', sys.argv[1], '--json']);"
        "assert 'textual' not in sys.modules, 'textual imported'; print('ok', rc)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok 0")


def test_domain_layers_never_import_textual() -> None:
    code = (
        "import sys, memtui.core.store, memtui.analysis.check, memtui.audit.repo, memtui.ops, memtui.review, memtui.demo;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; assert not bad, bad"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_memory_memtui_init_just_committed_is_undated_not_zero_days_old(tmp_path: Path) -> None:
    """A new user's store put under git by `memtui init` said 'fresh 0 days (git)' for every undated memory: the
    init commit says when the file was committed, not when it was written. Such a memory is `undated` with no age
    until something writes it again; a memory with a front-matter date keeps its age."""
    from memtui import ops

    store = tmp_path / "p" / "memory"
    store.mkdir(parents=True)
    (store / "user_role.md").write_text(memory("user_role", "user"))
    (store / "project_x.md").write_text(memory("project_x", "project", updated="2026-11-10"))
    (store / "feedback_y.md").write_text(memory("feedback_y", "feedback"))
    assert run("init", str(store)).returncode == 0

    def badges() -> dict[str, tuple[str, int | None]]:
        data = json.loads(run("check", str(store), "--json", "--today", "2026-11-30").stdout)
        return {m["path"]: (m["freshness"], m["age_days"]) for m in data["memories"]}

    assert badges() == {
        "feedback_y.md": ("standing", None),
        "project_x.md": ("aging", 20),
        "user_role.md": ("undated", None),
    }
    (store / "user_role.md").write_text(memory("user_role", "user", body="The user is a data scientist."))
    ops.record_agent_write(store)  # written after the init: that commit is a writing date
    assert badges()["user_role.md"][0] == "fresh"


def test_a_memory_named_after_the_day_it_was_written_takes_its_age_from_that_day(tmp_path: Path) -> None:
    """A new user's store of daily logs (`bug_fixes_and_context_2026-05-09.md`) put under git by `memtui init` read
    `undated` for every log, though each name says the day it was written: that day is its age, a day after today
    is not (a name may announce a deadline), and a later commit that wrote the file is newer still."""
    from memtui import ops

    store = tmp_path / "p" / "memory"
    store.mkdir(parents=True)
    (store / "project_log_2026-11-02.md").write_text(memory("project_log_2026-11-02", "project"))
    (store / "project_launch_2027-01-15.md").write_text(memory("project_launch_2027-01-15", "project"))
    assert run("init", str(store)).returncode == 0

    def badges() -> dict[str, tuple[str, int | None]]:
        data = json.loads(run("check", str(store), "--json", "--today", "2026-11-30").stdout)
        return {m["path"]: (m["freshness"], m["age_days"]) for m in data["memories"]}

    assert badges() == {"project_log_2026-11-02.md": ("aging", 28), "project_launch_2027-01-15.md": ("undated", None)}
    log = store / "project_log_2026-11-02.md"
    log.write_text(memory("project_log_2026-11-02", "project", body="Also: the recall job moved to Friday."))
    ops.record_agent_write(store)  # written again after the init: that commit is the newer writing date
    assert badges()["project_log_2026-11-02.md"] != ("aging", 28)


def test_the_summary_says_which_findings_the_review_count_leaves_out(tmp_path: Path) -> None:
    """A trial read "0 errors, 28 warnings, 28 info · 38 findings to review" and could not tell why 56 became 38."""
    store = tmp_path / "memory"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (store / "a.md").write_text(memory("a", "user"))
    (store / "b.md").write_text(memory("b", "user"))  # not in MEMORY.md: index hygiene, shown but not counted
    last = run("check", str(store), "--today", "2026-11-30").stdout.splitlines()[-1]
    assert "1 info · 0 findings to review" in last and "1 about index hygiene" in last and "not counted" in last, last


def test_counts_of_one_are_singular_help_cites_no_missing_file_and_no_store_is_one_line(tmp_path: Path) -> None:
    """A new user read '1 errors' and '1 findings', --help citing 'DESIGN §5' (a file not in the repository), and
    a literal '\\n' in the message when memtui found no store."""
    store = tmp_path / "memory"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [Gone](gone.md) — x\n")
    out = run("check", str(store), "--today", "2026-11-30")
    assert out.stdout.splitlines()[-1].startswith("1 error, 0 warnings, 0 info · 1 finding to review"), out.stdout
    for command in ("check", "history", "archive", "init", "fix-date"):
        assert "DESIGN" not in run(command, "--help").stdout, command
    assert "DESIGN" not in run("--help").stdout
    nowhere = tmp_path / "elsewhere"
    nowhere.mkdir()
    lost = run(cwd=nowhere)
    assert lost.returncode == 2 and "\\n" not in lost.stderr and len(lost.stderr.strip().splitlines()) == 1
    assert "no memory store found" in lost.stderr and "name one: memtui PATH" in lost.stderr


def test_many_info_findings_of_one_kind_are_counted_not_listed_unless_asked(tmp_path: Path) -> None:
    """119 long index lines buried a real store's two errors: the text lists three of a kind and counts the rest;
    --all lists every one, and --json always has them all."""
    store = tmp_path / "memory"
    store.mkdir()
    lines = []
    for n in range(6):
        (store / f"m{n}.md").write_text(memory(f"m{n}", "feedback"))
        lines.append(f"- [m{n}](m{n}.md) — " + "a very long hook line that goes on " * 6)
    (store / "MEMORY.md").write_text("\n".join(lines) + "\n")
    out = run("check", str(store), "--today", "2026-11-30")
    listed = [line for line in out.stdout.splitlines() if "long-index-line" in line]
    assert len(listed) == 4 and listed[-1].endswith("… and 3 more like these (--all lists them)"), out.stdout
    assert "6 info" in out.stdout
    every = run("check", str(store), "--today", "2026-11-30", "--all")
    assert sum("long-index-line" in line for line in every.stdout.splitlines()) == 6, every.stdout
    data = json.loads(run("check", str(store), "--today", "2026-11-30", "--json").stdout)
    assert sum(f["kind"] == "long-index-line" for f in data["findings"]) == 6
