"""Every finding kind, raised on real files, with the reason it gives."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import TODAY, memory, write_files

from memtui.analysis.check import FileDates, check_store
from memtui.core.store import load_store


def _check(make_store, files, index=None, dates=None):  # type: ignore[no-untyped-def]
    store = load_store(make_store(files, index=index))
    return check_store(store, TODAY, dates)


def _kinds(report, kind):  # type: ignore[no-untyped-def]
    return [f for f in report.findings if f.kind == kind]


def test_malformed_files_name_the_file_and_reason(make_store) -> None:  # type: ignore[no-untyped-def]
    report = _check(
        make_store,
        {
            "bad_bytes.md": b"---\nname: x\n---\n\xff\xfe",
            "binary.md": b"\x00\x01\x02",
            "unclosed.md": "---\nname: x\ntype: user\n",
            "list.md": "---\n- a\n---\nx\n",
            "bad_yaml.md": '---\nname: x\ndescription: "q" tail\n---\nx\n',
        },
    )
    found = {f.paths[0]: f for f in _kinds(report, "malformed")}
    assert set(found) == {"bad_bytes.md", "binary.md", "unclosed.md", "list.md", "bad_yaml.md"}
    assert all(f.severity == "error" for f in found.values())
    assert "not UTF-8" in found["bad_bytes.md"].message
    assert "never closed" in found["unclosed.md"].message
    assert "not a mapping" in found["list.md"].message
    assert report.has_errors


def test_schema_findings(make_store) -> None:  # type: ignore[no-untyped-def]
    report = _check(
        make_store,
        {
            "no_fm.md": "just text\n",
            "no_type.md": memory("no_type", None),
            "odd_type.md": memory("odd", "tech"),
            "fb.md": memory("fb", "feedback", body="Do the thing."),
            "fb_ok.md": memory(
                "fb_ok", "feedback", body="Rule.\n\n**Why**：因为。\n\n**How to apply** (2026-06-19, note): here."
            ),
            "fb_headings.md": memory(
                "fb_headings", "feedback", body="Use LF.\n\n## Why LF was chosen\nDiffs.\n\n### How to apply\nAlways."
            ),
            "fb_whyever.md": memory("fb_whyever", "feedback", body="Rule.\n\n## Whyever not\n\n## How to apply\nx"),
            "ref.md": memory("ref", "reference", body="Ask Sam."),
            "ref_ok.md": memory("ref_ok", "reference", body="Dashboards at https://grafana.example/d/x"),
            "retry.md": "---\nname: r\ndescription: Priority: High\ntype: user\n---\nx\n",
        },
    )
    by_path = {f.paths[0]: f.message for f in _kinds(report, "schema")}
    assert "no front matter" in by_path["no_fm.md"]
    assert "missing `type`" in by_path["no_type.md"]
    assert "`tech` is not one of" in by_path["odd_type.md"]
    assert "without **Why:** and **How to apply:**" in by_path["fb.md"]
    assert "fb_ok.md" not in by_path
    assert "fb_headings.md" not in by_path, "a `## Why …` / `### How to apply` heading says it as well as the label"
    assert "without **Why:**" in by_path["fb_whyever.md"] and "How to apply" not in by_path["fb_whyever.md"]
    assert "without a location" in by_path["ref.md"]
    assert "ref_ok.md" not in by_path
    assert "quoting retry" in by_path["retry.md"]


def test_stale_and_expired(make_store) -> None:  # type: ignore[no-untyped-def]
    report = _check(
        make_store,
        {
            "p.md": memory("p", "project", updated="2026-08-01"),
            "e.md": memory("e", "project", updated="2026-11-29", expires_at="2026-11-15"),
            "f.md": memory("f", "feedback", updated="2020-01-01"),
        },
    )
    assert [f.paths for f in _kinds(report, "stale")] == [("p.md",)]
    expired = _kinds(report, "expired")
    assert [f.paths for f in expired] == [("e.md",)] and "15 days ago" in expired[0].message


def test_stale_from_git_date_when_front_matter_has_none(make_store) -> None:  # type: ignore[no-untyped-def]
    store = load_store(make_store({"r.md": memory("r", "reference", body="See https://x.example")}))
    dates = FileDates(first={"r.md": dt.date(2026, 1, 2)}, last={"r.md": dt.date(2026, 3, 1)}, source="git")
    report = check_store(store, TODAY, dates)
    stale = _kinds(report, "stale")
    assert stale and "date from git" in stale[0].message


def test_relative_dates_english_and_chinese_with_suggestion(make_store) -> None:  # type: ignore[no-untyped-def]
    store = load_store(
        make_store(
            {
                "p.md": memory(
                    "p", "project", body="Freeze starts next Thursday.\n\n**Why:** QA.\n\n**How to apply:** wait."
                ),
                "z.md": memory(
                    "z", "project", body="召回模块明天上线。\n\n**Why:** 演示。\n\n**How to apply:** 先做。"
                ),
                "ok.md": memory(
                    "ok",
                    "project",
                    body="Freeze starts Thursday 2026-03-05.\n\nStandup every Monday.\n\n**Why:** x\n\n**How to apply:** y",
                ),
            }
        )
    )
    dates = FileDates(first={"p.md": dt.date(2026, 3, 2), "z.md": dt.date(2026, 4, 22)}, source="git")
    found = {f.paths[0]: f for f in check_store(store, TODAY, dates).findings if f.kind == "relative-date"}
    assert set(found) == {"p.md", "z.md"}
    assert found["p.md"].details["suggestion"] == "2026-03-12"  # Monday 2 March: next week's Thursday
    assert found["z.md"].details["suggestion"] == "2026-04-23"
    assert found["p.md"].line == 7


def test_secrets_are_errors_and_never_printed_whole(make_store) -> None:  # type: ignore[no-untyped-def]
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    report = _check(
        make_store,
        {
            "s.md": memory(
                "s",
                "reference",
                body=f"OpenAI key {key}\nAWS AKIAIOSFODNN7EXAMPLE\n"
                "https://api.example.com/x?token=abcdef1234567890\n"
                "-----BEGIN RSA PRIVATE KEY-----\nxoxb-1234567890-abcdefghij\nghp_" + "a" * 36,
            ),
            "clean.md": memory(
                "clean",
                "reference",
                body="Fixed in commit 3f2a9c1e4b5d6a7f8e9d0c1b2a3f4e5d6c7b8a9f at https://x.example",
            ),
        },
    )
    secrets = _kinds(report, "secret")
    labels = {f.cue for f in secrets}
    assert {
        "OpenAI-style API key",
        "AWS access key id",
        "URL carrying a token",
        "private key block",
        "Slack token",
        "GitHub token",
    } <= labels
    assert all(f.paths == ("s.md",) and f.severity == "error" for f in secrets)
    assert all(key not in f.message for f in secrets)


def test_index_health(make_store) -> None:  # type: ignore[no-untyped-def]
    index = (
        "# Index\n"
        "- [A](a.md) — first hook\n"
        "- [Gone](gone.md) — missing\n"
        "- [A again](a.md) — A description here\n"
        "- [Docs](https://example.com/docs) — external\n" + "- [B](b.md) — " + "long " * 40 + "\n"
    )
    report = _check(
        make_store,
        {"a.md": memory("a", description="A description here"), "b.md": memory("b"), "orphan.md": memory("orphan")},
        index=index,
    )
    broken = _kinds(report, "broken-link")
    assert [(f.paths, f.line) for f in broken] == [(("gone.md",), 3)]
    dup = _kinds(report, "duplicate-entry")
    assert dup and dup[0].details["lines"] == [2, 4] and "line 4 matches" in dup[0].message
    assert [f.paths for f in _kinds(report, "unindexed")] == [("orphan.md",)]
    assert [f.line for f in _kinds(report, "long-index-line")] == [6]
    assert not _kinds(report, "index-over-cap")


def test_index_over_cap_names_the_first_unloaded_line(make_store) -> None:  # type: ignore[no-untyped-def]
    files = {f"m{i}.md": memory(f"m{i}") for i in range(205)}
    index = "# Index\n" + "".join(f"- [M{i}](m{i}.md) — hook\n" for i in range(205))
    over = _kinds(_check(make_store, files, index=index), "index-over-cap")
    assert len(over) == 1 and over[0].line == 201 and over[0].severity == "error"
    assert "206 lines (limit: 200)" in over[0].message


def test_archived_but_loaded(make_store) -> None:  # type: ignore[no-untyped-def]
    report = _check(make_store, {"old.md": memory("old", status="archived"), "a.md": memory("a")})
    assert [f.paths for f in _kinds(report, "archived-but-loaded")] == [("old.md",)]


def test_contradiction_and_duplicate_explain_their_cue(make_store) -> None:  # type: ignore[no-untyped-def]
    report = _check(
        make_store,
        {
            "feedback_npm.md": memory(
                "feedback_npm",
                description="Front end installs packages with npm",
                body="Install front end packages with npm; the lockfile is package-lock.json.\n\n**Why:** CI cache.\n\n**How to apply:** npm ci.",
                updated="2026-01-01",
            ),
            "feedback_bun.md": memory(
                "feedback_bun",
                description="Front end switched to bun, no longer npm",
                body="The front end switched to bun for installing packages; no longer use npm. Lockfile is bun.lockb.\n\n**Why:** speed.\n\n**How to apply:** bun install.",
                updated="2026-06-01",
            ),
            "feedback_tests_en.md": memory(
                "feedback_tests_en",
                description="Integration tests hit a real database, never mocks",
                body="Integration tests must use a real Postgres database, not mocks.\n\n**Why:** a mock hid a broken migration.\n\n**How to apply:** start the db service.",
                updated="2026-02-01",
            ),
            "feedback_tests_zh.md": memory(
                "feedback_tests_zh",
                description="集成测试必须连真实数据库",
                body="集成测试必须连真实的 Postgres 数据库。\n\n**Why:** mock 掩盖了一次 migration 失败。\n\n**How to apply:** 先启动 db 服务。",
                updated="2026-03-01",
            ),
            "user_tea.md": memory(
                "user_tea", "user", description="User drinks green tea", body="User drinks green tea in the afternoon."
            ),
        },
    )
    pairs = {(f.kind, f.paths) for f in report.findings if f.kind in ("contradiction", "duplicate")}
    assert ("contradiction", ("feedback_npm.md", "feedback_bun.md")) in pairs
    assert ("duplicate", ("feedback_tests_en.md", "feedback_tests_zh.md")) in pairs
    assert not any("user_tea.md" in p for _, p in pairs)
    contra = next(f for f in report.findings if f.kind == "contradiction")
    assert "npm" in contra.message and "newer" in contra.message and contra.cue
    assert contra.score is not None and 0 < contra.score <= 1


def test_archived_memories_take_no_part_in_pairs(make_store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store_path = make_store({"a.md": memory("a", description="Use tabs for indentation", body="Indent with tabs.")})
    archive = store_path.parent / "memory.archive"
    archive.mkdir()
    (archive / "b.md").write_text(
        memory("b", description="Use tabs for indentation", body="Indent with tabs.", status="archived")
    )
    report = check_store(load_store(store_path), TODAY)
    assert not [f for f in report.findings if f.kind in ("duplicate", "contradiction")]
    assert any(m.path == "../memory.archive/b.md" and m.status == "archived" for m in report.store.memories)


def test_archived_files_raise_no_per_file_lint_but_a_secret_in_them_still_counts(make_store) -> None:  # type: ignore[no-untyped-def]
    """Archiving a malformed memory left `malformed ../memory.archive/…` as an error nothing could clear (check
    exited 1 from then on) and archived files got schema findings: the archive is not loaded, so none of that
    matters there. A key in an archived file still does: the archive is committed with the store."""
    broken = {
        "unclosed.md": "---\nname: x\ntype: user\n",
        "retry.md": "---\nname: r\ndescription: Priority: High\ntype: user\n---\nx\n",
        "bare.md": "no front matter at all\n",
        "why.md": memory("why", body="Do the thing."),
        "old.md": memory(
            "old", "project", updated="2026-01-01", expires_at="2026-02-01", body="Ship it next Thursday."
        ),
    }
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    store_path = make_store({"live.md": memory("live"), **{f"live_{k}": v for k, v in broken.items()}})
    archive = store_path.parent / "memory.archive"
    write_files(archive, {**broken, "keyed.md": memory("keyed", "reference", body=f"OpenAI key {key}")})
    report = check_store(load_store(store_path), TODAY)
    named = {p for f in report.findings for p in f.paths}
    assert {f"live_{k}" for k in broken} <= named  # the same files, loaded, are all flagged
    assert [(f.kind, f.paths) for f in report.findings if any(p.startswith("../") for p in f.paths)] == [
        ("secret", ("../memory.archive/keyed.md",))
    ]
    secret = _kinds(report, "secret")[0]
    assert secret.severity == "error" and "archived" in secret.message and key not in secret.message


def test_the_parallel_check_finds_exactly_what_the_serial_one_finds(tmp_path: Path) -> None:
    from memtui.analysis import check as check_module

    store = tmp_path / "memory"
    store.mkdir()
    for i in range(check_module.PARALLEL_MIN):
        kind = ("user", "feedback", "project", "reference")[i % 4]
        extra = "Deploy freeze starts tomorrow." if i % 97 == 0 else f"Topic {i} word{i % 50} item{i % 7}."
        (store / f"{kind}_{i}.md").write_text(memory(f"{kind}_{i}", kind, body=extra, description=f"note {i % 300}"))
    (store / "secret.md").write_text(memory("secret", "reference", body="key sk-" + "a1B2" * 8))
    loaded = load_store(store)
    serial = check_store(loaded, TODAY)
    parallel = check_store(loaded, TODAY, parallel=True)
    assert [f.to_json() for f in parallel.findings] == [f.to_json() for f in serial.findings]
    assert {"secret", "relative-date"} <= {f.kind for f in parallel.findings}


def test_linear_secret_patterns_still_find_every_shape_where_the_old_ones_did() -> None:
    """The patterns were rewritten to be linear (issue 7 H2); the places a secret hides must still be found."""
    from memtui.analysis.secrets import scan

    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    cases = {
        f"token-{jwt}": "JSON Web Token",  # after a dash: the old `\b` allowed it
        f"auth={jwt} trailing": "JSON Web Token",
        "see /+https://deploy:hunter22@ci.example.com/x": "URL carrying credentials",  # scheme after `+`
        "x https://a.example/p?x=1&token=abcdef1234567890&y=2": "URL carrying a token",
        "https://a.example/?q=1#access_token=abcdefgh12345678": "URL carrying a token",
        "-----BEGIN OPENSSH PRIVATE KEY-----": "private key block",
    }
    for text, label in cases.items():
        assert label in [h.label for h in scan(text)], text
    # and what was no secret stays none
    for text in ("xhttps://u:pw@host", "http://?" * 1000, "eyJ-" * 1000, "Fixed in https://a.example/?page=2"):
        assert scan(text) == [], text[:40]


def test_guids_hashes_and_shas_named_as_such_are_not_secrets() -> None:
    """A Unity `.meta` GUID (32 lowercase hex) was an error-severity secret on a real store (ClashUp): a hex string
    its context names as a GUID, UUID, hash or commit is an identifier; the same string with no such name is not."""
    from memtui.analysis.secrets import scan

    guid = "378fc87a06a6763419df9df9158e3a1d"
    named = [
        f"guid: {guid}",
        "- {fileID: 46, guid: 0000000000000000f000000000000000, type: 0}",
        f"asset uuid {guid}",
        f"md5 of the export: {guid}",
        f"sha256 {'ab12' * 16}",
        "## Script GUIDs\n\n| Script | GUID |\n|---|---|\n| `Lobby.cs` | `" + guid + "` |",
        "## Build artefacts\n\n| File | Checksum |\n|---|---|\n| `app.apk` | " + guid + " |",
    ]
    for text in named:
        assert scan(text) == [], text
    unnamed = [
        f"NEWS_API {guid}",
        f"the old one was {guid}",
        "| Service | Key |\n|---|---|\n| news | " + guid + " |",  # the column is a key, not a hash
        f"commit 3f2a9c1 and the deploy key {guid[:31]}a0",  # a digest word, but 33 hex is no digest's length
    ]
    for text in unnamed:
        assert [h.label for h in scan(text)] == ["long hex string"], text


def test_every_finding_kind_is_a_finding_kind_and_json_keeps_the_plain_name(make_store) -> None:  # type: ignore[no-untyped-def]
    from memtui.core.model import FindingKind

    report = _check(
        make_store,
        {
            "p.md": memory("p", "project", updated="2026-08-01"),
            "e.md": memory("e", "project", updated="2026-11-29", expires_at="2026-11-15"),
            "bad.md": b"\xff\xfe",
            "t.md": memory("t", "project", body="Deploy freeze starts tomorrow.\n\n**Why:** x\n\n**How to apply:** y"),
            "s.md": memory("s", "reference", body="key sk-" + "a1B2" * 8),
        },
        index="- [p](p.md) — p\n- [gone](gone.md) — gone\n",
    )
    kinds = {f.kind for f in report.findings}
    assert {"stale", "expired", "malformed", "relative-date", "secret", "broken-link", "unindexed"} <= kinds
    assert all(isinstance(f.kind, FindingKind) for f in report.findings)
    for f in report.findings:
        data = f.to_json()
        assert type(data["kind"]) is str and data["kind"] == f.kind.value
    assert FindingKind("relative-date") is FindingKind.RELATIVE_DATE and f"{FindingKind.STALE:7}" == "stale  "


def test_the_persons_freshness_periods_change_what_check_store_finds(make_store) -> None:  # type: ignore[no-untyped-def]
    store = load_store(
        make_store(
            {
                "p.md": memory("p", "project", updated="2026-11-10"),  # 20 days
                "u.md": memory("u", "user", updated="2026-08-22"),  # 100 days
                "r.md": memory("r", "reference", body="See https://x.example", updated="2026-07-01"),  # 152 days
            }
        )
    )
    built_in = check_store(store, TODAY)
    assert [f.paths for f in _kinds(built_in, "stale")] == [("r.md",)]
    assert built_in.freshness["p.md"].badge == "aging"

    policy = {"user": 90, "feedback": None, "project": 14, "reference": None}
    mine = check_store(store, TODAY, policy=policy)

    assert sorted(f.paths for f in _kinds(mine, "stale")) == [("p.md",), ("u.md",)]
    assert "period 14 days" in _kinds(mine, "stale")[0].message
    assert {p: mine.freshness[p].badge for p in ("p.md", "u.md", "r.md")} == {
        "p.md": "stale",
        "u.md": "stale",
        "r.md": "standing",
    }


def test_analyse_checks_the_store_once_under_the_workspaces_policy(make_store, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from memtui.analysis import lint
    from memtui.workspace import analyse, open_store

    path = make_store({"p.md": memory("p", "project", updated="2026-11-10")}, in_git=True)
    calls = []
    real = lint.freshness

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(lint, "freshness", counted)
    ws = analyse(open_store(path, TODAY, {"user": 180, "feedback": None, "project": 14, "reference": 90}))

    assert len(calls) == 1
    assert ws.report is not None and [f.paths for f in _kinds(ws.report, "stale")] == [("p.md",)]
    assert ws.freshness["p.md"].badge == "stale" and ws.report.freshness is ws.freshness
