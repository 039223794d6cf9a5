"""The real memory folders whose licences allow copying (see fixtures/real/ATTRIBUTION.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES, TODAY

from memtui.analysis.check import check_store
from memtui.core.store import load_store

REAL = FIXTURES / "real"


def _report(name: str):  # type: ignore[no-untyped-def]
    return check_store(load_store(REAL / name), TODAY)


def test_pinkushin_over_cap_duplicate_entry_and_broken_link() -> None:
    report = _report("PinKushin__PokemonBattleJournal")
    files = sorted(p.name for p in (REAL / "PinKushin__PokemonBattleJournal").glob("*.md") if p.name != "MEMORY.md")
    assert sorted(m.path for m in report.store.memories) == files  # every topic file accounted for
    over = [f for f in report.findings if f.kind == "index-over-cap"]
    assert len(over) == 1 and over[0].line == 109  # 28.2K units: the byte cap keeps 108 lines
    budget = report.store.index.budget
    assert budget.lines == 121 and budget.units > 25_000 and not budget.over_lines
    dup = [f for f in report.findings if f.kind == "duplicate-entry"]
    assert [(f.paths, f.details["lines"]) for f in dup] == [(("feedback_navigate_to_every_test.md",), [47, 65])]
    assert "line 65 matches" in dup[0].message
    broken = {f.paths[0]: f.line for f in report.findings if f.kind == "broken-link"}
    assert broken["user_philosophical_framework.md"] == 121
    assert "feedback_navigate_to_every_test.md" not in broken
    assert [f.paths for f in report.findings if f.kind == "unindexed"] == [("feedback_codebehind_preference.md",)]
    gen_b = report.store.get("feedback_check_docs_first.md")
    assert gen_b is not None and gen_b.type == "feedback" and gen_b.generation == "B"
    assert report.freshness["feedback_check_docs_first.md"].badge == "standing"


def test_koenvue_yaml_that_even_the_retry_cannot_read() -> None:
    report = _report("joujin-git__KoEnVue")
    malformed = [f for f in report.findings if f.kind == "malformed"]
    assert [f.paths for f in malformed] == [("negative-result-verify-instrument.md",)]
    assert "not valid YAML" in malformed[0].message
    harness = report.store.get("feedback_harness_design.md")
    assert harness is not None and harness.field_value("modified") is not None


def test_actorforth_content_style_index_has_no_topic_files() -> None:
    report = _report("ActorForth__ActorForth")
    assert report.store.memories == ()
    assert report.store.index.budget.lines == 164 and not report.store.index.budget.over
    assert not [f for f in report.findings if f.severity == "error"]


def test_crlf_and_bom_copy_of_a_real_store_reads_the_same(tmp_path: Path) -> None:
    src = REAL / "PinKushin__PokemonBattleJournal"
    dst = tmp_path / "memory"
    shutil.copytree(src, dst)
    for path in dst.glob("*.md"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    original, converted = load_store(src), load_store(dst)
    assert [(m.path, m.type, m.name) for m in original.memories] == [
        (m.path, m.type, m.name) for m in converted.memories
    ]
    # Claude Code counts every "\r" as a UTF-16 unit; here the first 108 lines still fit
    assert converted.index.budget.units == original.index.budget.units + 120
    assert converted.index.budget.first_unloaded_line == 109
