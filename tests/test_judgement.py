"""Issue 9: claims instead of documents, the learned model, held-back candidates, superseded notes, small stores."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import memory

from memtui.analysis.background import load_background
from memtui.analysis.check import check_store
from memtui.analysis.claims import changed_from, named_quantities, split_claims
from memtui.analysis.model import CLASSES, load_model
from memtui.analysis.relations import (
    FEATURES,
    STATED_CHANGE_RIGHT,
    MemoryText,
    Weights,
    _stated_change,
    allowed_labels,
    classify,
    evidence,
    prepare,
)
from memtui.core.store import load_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus"
TODAY = dt.date(2026, 11, 30)

LONG_NOTE = """## Status
The ladle furnace stage is built and wired into the pipeline.

- Slag basicity uses the optical basicity model; see plan §7.
- Suite 425 green (+2 env-skips).
- Temperature loss per minute is fitted from plant data.

| stage | state |
|---|---|
| ladle | built |

```python
print("not a claim")
```

The next slice adds desulphurisation. It reuses the same
slag model, which was validated against the plant
heats of 2026-05.
"""


def _pair_findings(report) -> list:  # type: ignore[no-untyped-def]
    return [f for f in report.findings if f.kind in ("contradiction", "duplicate")]


def test_a_memory_splits_into_claims_bullets_rows_and_wrapped_sentences() -> None:
    claims = [c.text for c in split_claims("Ladle furnace stage notes", LONG_NOTE)]
    assert claims[0] == "Ladle furnace stage notes"
    assert "Suite 425 green (+2 env-skips)." in claims
    assert "ladle ; built" in claims
    assert not any("not a claim" in c for c in claims)
    # a sentence that wraps over three lines stays one claim
    assert any(c.startswith("It reuses the same slag model") and c.endswith("heats of 2026-05.") for c in claims)


def test_an_abbreviation_does_not_end_a_claim() -> None:
    """A trial's card quoted "Do not add defensive fallbacks (e.g." — cut at the abbreviation's full stop."""
    body = "Do not add defensive fallbacks (e.g. x ?? y) in the UI. Keep one source, i.e. The server. Tests run daily."
    claims = [c.text for c in split_claims("", body)]
    assert "Do not add defensive fallbacks (e.g. x ?? y) in the UI." in claims, claims
    assert "Keep one source, i.e. The server." in claims and "Tests run daily." in claims, claims


def test_a_claim_is_quoted_in_the_memorys_own_words() -> None:
    """A trial could not find a card's quote in the file: `check_history` was quoted "check history", bold lost."""
    [claim] = split_claims("", "- State moved to PG: `check_history` and **status** live in one place now.")
    assert claim.quote == "State moved to PG: `check_history` and **status** live in one place now."
    assert "`" not in claim.text and "**" not in claim.text, "compared without the Markdown"


def test_the_shipped_model_and_background_load_and_give_probabilities() -> None:
    model = load_model()
    assert model is not None and model.features == FEATURES
    probs = model.probabilities([0.0] * len(FEATURES))
    assert set(probs) == set(CLASSES) and abs(sum(probs.values()) - 1) < 1e-9
    assert load_background().n > 500


def test_a_pair_alone_in_a_two_memory_store_is_judged_and_quotes_both_claims(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(
        {
            "feedback_lockfile.md": memory(
                "feedback_lockfile",
                description="Front end installs packages with npm",
                body="Install front end packages with npm; the lockfile is package-lock.json.\n\n"
                "**Why:** the CI cache keys on it.",
                updated="2026-01-01",
            ),
            "feedback_bun.md": memory(
                "feedback_bun",
                description="Front end switched to bun, no longer npm",
                body="The front end switched to bun for installing packages; no longer use npm.\n\n"
                "**Why:** installs take seconds.",
                updated="2026-06-01",
            ),
        }
    )
    report = check_store(load_store(store), TODAY)
    [pair] = _pair_findings(report)
    assert pair.kind == "contradiction" and pair.paths == ("feedback_lockfile.md", "feedback_bun.md")
    assert pair.details["older_claim"] and pair.details["newer_claim"]
    assert pair.details["newer_claim"] in pair.message and pair.details["older_claim"] in pair.message
    assert 0.5 <= (pair.score or 0) <= 1 and not pair.held_back


NPM = """---
name: feedback_use_npm
description: Install front-end packages with npm
type: feedback
---
Front end installs dependencies with npm; the lockfile is package-lock.json.
"""
BUN = """---
name: feedback_use_bun
description: Front end switched from npm to bun
type: feedback
---
The front end switched to bun: install dependencies with bun, no longer npm. The lockfile is now bun.lockb.
"""


def test_an_explicit_change_away_from_the_other_memorys_subject_is_a_shown_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    # no dates in either file: the one that says it switched is the newer, whatever the names sort to
    report = check_store(load_store(make_store({"feedback_use_npm.md": NPM, "feedback_use_bun.md": BUN})), TODAY)
    [pair] = _pair_findings(report)
    assert pair.kind == "contradiction" and not pair.held_back and (pair.score or 0) >= 0.5
    assert pair.paths == ("feedback_use_npm.md", "feedback_use_bun.md")
    assert "npm" in pair.details["older_claim"] and "no longer npm" in pair.details["newer_claim"]
    assert report.held_back == ()


PIN_DIGEST = (
    "Every Dockerfile pins its base image by sha256 digest, never a floating tag like latest.\n\n"
    "**Why:** a silent upstream rebuild of python:3.12-slim broke the March release with a new glibc.\n\n"
    "**How to apply:** Renovate bumps the digests weekly."
)
SAME_BYTES = (
    "Reference the exact immutable image content in FROM lines so two builds a month apart get the same bytes.\n\n"
    "**Why:** {why}"
)


def test_two_short_memories_giving_the_same_reason_are_a_shown_duplicate() -> None:
    a = prepare("a.md", "feedback_pin_base_images", "Pin Docker base images by digest", PIN_DIGEST, "2026-01-01")
    reason = "the March release broke when upstream quietly rebuilt the python slim image with a new glibc."
    b = prepare(
        "b.md",
        "feedback_reproducible_builds",
        "Container builds must be reproducible",
        SAME_BYTES.format(why=reason),
        "2026-02-01",
    )
    rel = classify(a, b, Weights([a, b]))
    assert rel is not None and rel.kind == "duplicate" and not rel.held_back
    assert "glibc" in rel.older_claim and "glibc" in rel.newer_claim
    # the same wording with a reason of its own stays a weaker candidate
    c = prepare(
        "c.md",
        "feedback_reproducible_builds",
        "Container builds must be reproducible",
        SAME_BYTES.format(why="auditors compare the bytes we ship against the bytes we built."),
        "2026-02-01",
    )
    other = classify(a, c, Weights([a, c]))
    assert other is None or other.held_back


def test_reasons_sharing_one_word_are_not_the_same_reason() -> None:
    """Two unrelated rules whose reasons touch on one word ("support") must not be lifted to a shown pair as if
    they gave one reason twice."""
    a = prepare(
        "a.md",
        "feedback_fp16_v100",
        "V100 cluster: fp16, not bf16",
        "Use fp16 mixed precision on the old V100 cluster.\n\n**Why:** V100s have no bf16 support; it falls back to fp32.",
        "2026-01-01",
    )
    b = prepare(
        "b.md",
        "project_k8s_upgrade",
        "Prod cluster moves to Kubernetes 1.29 on 2026-04-18",
        "The prod cluster moves to Kubernetes 1.29 on 2026-04-18.\n\n**Why:** 1.27 support ends in May.",
        "2026-02-01",
    )
    assert evidence(a, b, Weights([a, b])).same_reason == 0.0
    rel = classify(a, b, Weights([a, b]))
    assert rel is None or rel.held_back
    # the same reason given twice in other words still counts
    c = prepare(
        "c.md",
        "feedback_bf16_not_on_v100",
        "No bf16 on the V100 nodes",
        "Don't train in bf16 on the V100 nodes.\n\n**Why:** V100s have no bf16 support and fall back to fp32.",
        "2026-02-01",
    )
    assert evidence(a, c, Weights([a, c])).same_reason > 0.3


def test_one_sentence_filled_in_for_two_named_things_is_not_a_duplicate() -> None:
    """Two sibling notes from one template ("X/ belongs to @team-x") say the same sentence of different things."""
    a = prepare(
        "a.md",
        "reference_codeowners_payments",
        "CODEOWNERS: payments/ belongs to @acme/payments",
        "In the monorepo's CODEOWNERS, `payments/` is owned by @acme/payments; changes there request their review.",
        "2026-01-01",
    )
    b = prepare(
        "b.md",
        "reference_codeowners_docs",
        "CODEOWNERS: docs/ belongs to @acme/devrel",
        "In the monorepo's CODEOWNERS, `docs/` is owned by @acme/devrel; changes there request their review.",
        "2026-02-01",
    )
    ev = evidence(a, b, Weights([a, b]))
    assert ev.short and "substitution" in ev.comparison.conflict
    assert "duplicate" not in allowed_labels(ev)
    rel = classify(a, b, Weights([a, b]))
    assert rel is None or rel.kind != "duplicate"
    # the same rule written twice, a word changed, is still a duplicate candidate
    c = prepare(
        "c.md",
        "reference_codeowners_payments_team",
        "CODEOWNERS: payments/ is the payments team's",
        "In the monorepo's CODEOWNERS, `payments/` is owned by @acme/payments; changes there ask for their review.",
        "2026-02-01",
    )
    assert "duplicate" in allowed_labels(evidence(a, c, Weights([a, c])))


def test_change_statements_name_what_they_move_away_from() -> None:
    assert changed_from("Front end switched from npm to bun") == {"npm"}
    assert changed_from("install with bun, no longer npm.") == {"npm"}
    assert changed_from("数据库从 MySQL 改为 PostgreSQL") == {"mysql"}
    assert changed_from("The log level changed from INFO to WARN") == {"info"}
    assert changed_from("Install front-end packages with npm") == frozenset()


def test_two_logs_stating_another_default_for_the_same_setting_are_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    filler = "".join(f"- 修复了第 {n} 个页面的样式问题，测试全部通过。\n" for n in range(30))
    store = make_store(
        {
            "bug_fixes_and_context_2026-05-13.md": memory(
                "bug_fixes_and_context_2026-05-13",
                "project",
                description="5 月 13 日修复记录",
                updated="2026-05-13",
                body=filler
                + "- `DAILY_REPORT_INCLUDE_RECOMMENDATIONS` 控制日报是否扫描推荐股，默认 `false`，避免推送过慢。\n"
                "- 如确实需要可设置 `DAILY_REPORT_INCLUDE_RECOMMENDATIONS=true`。\n",
            ),
            "bug_fixes_and_context_2026-05-17.md": memory(
                "bug_fixes_and_context_2026-05-17",
                "project",
                description="5 月 17 日修复记录",
                updated="2026-05-17",
                body="- 按用户要求将 `DAILY_REPORT_INCLUDE_RECOMMENDATIONS` 默认改为 `true`，日报默认扫描全市场推荐股。\n"
                + filler.replace("页面", "接口"),
            ),
        }
    )
    [pair] = _pair_findings(check_store(load_store(store), TODAY))
    assert pair.kind == "contradiction" and not pair.held_back
    assert "false" in pair.details["older_claim"] and "默认改为 `true`" in pair.details["newer_claim"]
    assert "daily_report_include_recommendations" in pair.cue


def test_quantities_a_memory_names_as_current() -> None:
    body = (
        "The correct sync point is element discovery: `FindElement` with implicit wait (15s) will block.\n"
        "- Always reset the page size to 50 MB after a run.\n"
        "- First attempt: 3s implicit wait, then 10s.\n"  # the value before its name: not taken
        "- Previously the build timeout was 30 min.\n"  # the past: not taken
        "- The retry budget is 2 s on Windows and the retry budget is 4 s on Android.\n"  # two values: left out
        "- Scrolling on Windows (5s ambient) is slow.\n"  # "on Windows" names no quantity
    )
    assert named_quantities("UI test timeouts", body) == {
        "implicit wait": ("15s", body.splitlines()[0]),
        "page size": ("50mb", "Always reset the page size to 50 MB after a run."),
    }
    assert named_quantities("Implicit wait — 5s ambient on both platforms", "") == {
        "implicit wait": ("5s", "Implicit wait — 5s ambient on both platforms")
    }
    assert named_quantities("No numbers here", "none at all") == {}


def test_two_long_notes_naming_another_value_for_one_quantity_are_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    filler = "".join(f"- Screen {n} of the battle journal renders its list and its detail pane.\n" for n in range(20))
    store = make_store(
        {
            "feedback_no_sleeps_in_tests.md": memory(
                "feedback_no_sleeps_in_tests",
                "feedback",
                description="Never add Thread.Sleep in UI tests; use implicit wait via element discovery instead",
                updated="2026-07-28",
                body="Never use `Thread.Sleep` in UI tests.\n\n"
                "**Why:** `FindElement` with implicit wait (15s) blocks until the element appears.\n" + filler,
            ),
            "feedback_uitest_timeouts.md": memory(
                "feedback_uitest_timeouts",
                "feedback",
                description="UI test implicit wait — 5s ambient on both platforms via TestBase.AmbientImplicitWait",
                updated="2026-08-05",
                body="Every helper that changes the implicit wait restores that constant; never sleep in UI tests.\n"
                + filler.replace("renders", "draws"),
            ),
        }
    )
    [pair] = _pair_findings(check_store(load_store(store), TODAY))
    assert pair.kind == "contradiction" and not pair.held_back
    assert pair.paths == ("feedback_no_sleeps_in_tests.md", "feedback_uitest_timeouts.md")
    assert pair.cue == "implicit wait: 15s vs 5s"
    assert "(15s)" in pair.details["older_claim"] and "5s ambient" in pair.details["newer_claim"]


def test_a_change_word_about_something_the_other_memory_never_says_is_held_back(make_store) -> None:  # type: ignore[no-untyped-def]
    # the demo store once showed this pair after its Stripe migration note was archived: they share "migration"
    # and the newer says "moved to" of a person; no claim of one conflicts with a claim of the other
    owner = memory(
        "project_stripe_owner_change",
        "project",
        description="Stripe migration now owned by Chen Jing",
        updated="2026-11-13",
        body="The Stripe migration is now owned by Chen Jing; Wang Lei moved to the risk team and only answers "
        "questions about the old Adyen code.\n\n**Why:** Team reorganisation in the autumn.\n\n"
        "**How to apply:** Send migration scheduling and sign-off questions to Chen Jing.\n",
    )
    additive = memory(
        "feedback_migrations",
        "feedback",
        description="Database migrations are additive; drop columns one release later",
        updated="2026-09-04",
        body="Migrations only add: new columns are nullable, and a column is dropped one release after the code stops "
        "reading it.\n\n**Why:** A same-release drop broke the rolling deploy in June.\n\n"
        "**How to apply:** Split destructive changes into two PRs.\n",
    )
    report = check_store(
        load_store(make_store({"feedback_migrations.md": additive, "project_stripe_owner_change.md": owner})), TODAY
    )
    assert _pair_findings(report) == []
    [held] = report.held_back
    assert (
        held.paths == ("feedback_migrations.md", "project_stripe_owner_change.md") and not held.details["older_claim"]
    )


def test_a_revised_note_put_back_beside_its_revision_is_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    old = LONG_NOTE.replace("- Suite 425 green (+2 env-skips).\n", "- Debug overlay opens with Ctrl+D.\n")
    new = LONG_NOTE.replace("- Suite 425 green (+2 env-skips).\n", "- Debug overlay opens with Ctrl+X.\n")
    store = make_store(
        {
            "ladle_old.md": memory(
                "ladle", "project", description="Ladle furnace stage", body=old, updated="2026-05-01"
            ),
            "ladle.md": memory("ladle", "project", description="Ladle furnace stage", body=new, updated="2026-06-01"),
        }
    )
    [pair] = _pair_findings(check_store(load_store(store), TODAY))
    assert pair.kind == "contradiction" and pair.paths == ("ladle_old.md", "ladle.md")
    assert "Ctrl+D" in pair.details["older_claim"] and "Ctrl+X" in pair.details["newer_claim"]


def test_sibling_notes_from_one_template_with_churned_counts_are_not_pairs(make_store) -> None:  # type: ignore[no-untyped-def]
    files = {}
    for n, (stage, count) in enumerate((("ladle", 425), ("refining", 447), ("casting", 480))):
        body = LONG_NOTE.replace("ladle", stage).replace("425", str(count))
        files[f"{stage}_built.md"] = memory(
            f"{stage}_built", "project", description=f"{stage} stage built", body=body, updated=f"2026-0{n + 4}-01"
        )
    report = check_store(load_store(make_store(files)), TODAY)
    assert _pair_findings(report) == []


def test_two_notes_that_only_share_a_generic_name_are_not_a_revision(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(
        {
            "user_role.md": memory(
                "user_role",
                "user",
                updated="2026-01-01",
                description="User is a data engineer",
                body="User is a data engineer who writes Python and SQL pipelines for the finance team.",
            ),
            "real_user_role.md": memory(
                "user_role",
                "user",
                updated="2026-05-01",
                description="User runs a bakery",
                body="User runs a small bakery and asks for help with the shop's website copy.",
            ),
        }
    )
    assert _pair_findings(check_store(load_store(store), TODAY)) == []


def test_a_note_that_says_it_is_superseded_is_its_own_finding_not_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(
        {
            "player_cube.md": memory(
                "player_cube",
                "project",
                updated="2026-03-01",
                description="HISTORICAL — the cube placeholder was replaced by the Tommy model",
                body="The player is temporarily a cube; swap for the real model later. See [[player_model]].",
            ),
            "player_model.md": memory(
                "player_model",
                "project",
                updated="2026-06-01",
                description="The player is the Tommy model, no longer a cube",
                body="The player is now the Tommy model; the cube placeholder is gone.",
            ),
        }
    )
    report = check_store(load_store(store), TODAY)
    assert _pair_findings(report) == [] and report.held_back == ()
    [note] = [f for f in report.findings if f.kind == "superseded-loaded"]
    assert note.paths == ("player_cube.md", "player_model.md") and "HISTORICAL" in note.cue
    assert note.details["successor"] == "player_model.md" and "superseded by player_model.md" in note.message
    # a trial's superseded note held a rule still in force ("never reinstate"): archiving is not the only way out
    assert "Archive it, or, if part of it still holds" in note.message


def test_weaker_candidates_are_held_back_with_their_score_and_counted_in_json(tmp_path: Path) -> None:
    a = prepare(
        "a.md",
        "a",
        "Use Jetpack Compose for new screens",
        "Use Jetpack Compose for all new Android screens.",
        "2026-01-01",
    )
    b = prepare(
        "b.md",
        "b",
        "Screens are reviewed by design",
        "New screens are reviewed by the design team before merge.",
        "2026-02-01",
    )
    rel = classify(a, b, Weights([a, b]))
    assert rel is not None and rel.held_back and rel.score < 0.4
    store = tmp_path / "memory"
    store.mkdir()
    (store / "a.md").write_text(memory("a", description=a.description, body=a.rule, updated="2026-01-01"))
    (store / "b.md").write_text(memory("b", description=b.description, body=b.rule, updated="2026-02-01"))
    report = check_store(load_store(store), TODAY)
    assert [f.paths for f in report.held_back] == [("a.md", "b.md")] and report.held_back[0].held_back
    assert not _pair_findings(report)
    assert report.held_back[0].to_json()["held_back"] is True
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "check", str(store), "--json", "--today", "2026-11-30"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(out.stdout)["held_back"] == 1


def test_korean_and_japanese_notes_sharing_words_make_no_noise(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(
        {
            "ko_a.md": memory(
                "ko_a",
                description="하네스 설계는 단순하게 유지한다",
                body="하네스 설계는 단순하게 유지한다. 테스트는 실제 장치에서 실행한다.",
                updated="2026-01-01",
            ),
            "ko_b.md": memory(
                "ko_b",
                description="하네스 로그는 한국어로 남긴다",
                body="하네스 로그는 한국어로 남긴다. 테스트 결과는 매일 확인한다.",
                updated="2026-02-01",
            ),
            "ja_a.md": memory(
                "ja_a",
                description="カメラは固定位置で使う",
                body="カメラは固定位置で使う。VR の酔いを防ぐため。",
                updated="2026-01-01",
            ),
            "ja_b.md": memory(
                "ja_b",
                description="カメラのテストは実機で行う",
                body="カメラのテストは実機で行う。エミュレータは使わない。",
                updated="2026-02-01",
            ),
        }
    )
    assert _pair_findings(check_store(load_store(store), TODAY)) == []


@pytest.mark.skipif(not (SHARED / "pairs-dev").exists(), reason="training data (../shared) not beside the clone")
def test_the_training_script_reproduces_the_shipped_weights_exactly() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "train_judgement.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "reproduced exactly" in out.stdout


def _pair(older: tuple[str, str], newer: tuple[str, str]) -> tuple[MemoryText, MemoryText, Weights]:
    a = prepare("a.md", "a", older[0], older[1], "2026-01-01")
    b = prepare("b.md", "b", newer[0], newer[1], "2026-03-01")
    return a, b, Weights([a, b])


def test_a_newer_memory_saying_what_changed_about_the_older_ones_subject_is_evidence() -> None:
    older = ("Application logs are in Kibana", "Search application logs in Kibana with the logs-app index pattern.")
    newer = (
        "Debug production with LogQL in Grafana",
        "Query logs with LogQL in Grafana Explore. **Why:** Loki replaced the Elasticsearch cluster; Kibana was "
        "shut down in October.",
    )
    i = FEATURES.index("newer_change")
    assert evidence(*_pair(older, newer)).features[i] == 1.0
    # the older memory narrating a change of its own is not "what was" against "what is now"
    moved = (older[0], older[1] + " The index moved to the new cluster in May.")
    assert evidence(*_pair(moved, newer)).features[i] == 0.0
    # a change word in a claim that shares nothing with the older memory says nothing about it
    elsewhere = ("Debug production with LogQL in Grafana", "Use LogQL in Grafana Explore. The team moved to Lisbon.")
    assert evidence(*_pair(older, elsewhere)).features[i] == 0.0
    # "use X instead" states a rule, not a change
    instead = ("Debug production with LogQL", "Search logs with LogQL in Grafana instead of Kibana.")
    assert evidence(*_pair(older, instead)).features[i] == 0.0
    # what the newer memory repeats word for word is agreement: its change claim must meet something else
    repeated = (
        "Kibana dashboards",
        "Search application logs in Kibana with the logs-app index pattern. Dashboards moved to the ops folder.",
    )
    assert evidence(*_pair(older, repeated)).features[i] == 0.0


def test_the_term_a_change_claim_shares_with_the_older_memory_must_be_rare_in_the_store() -> None:
    older = ("Releases are tagged in the tracker", "Tag every release in the tracker before the deploy.")
    newer = ("Sprint board on Linear", "The team moved the sprint board from the tracker to Linear.")
    a, b, alone = _pair(older, newer)
    i = FEATURES.index("newer_change")
    assert evidence(a, b, alone).features[i] == 1.0
    # in a store where most memories mention the tracker, sharing it ties the two no more than sharing "the"
    filler = [
        prepare(f"f{n}.md", f"f{n}", f"Tracker note {n}", f"The tracker holds ticket {n} for component {n}.")
        for n in range(60)
    ]
    assert evidence(a, b, Weights([a, b, *filler])).features[i] == 0.0


def test_two_short_rules_for_different_scopes_are_never_duplicates() -> None:
    older = ("Use Jetpack Compose for new screens", "Use Jetpack Compose for all new Android screens.")
    newer = ("Existing XML screens stay XML", "Existing XML screens stay XML; new screens still use Jetpack Compose.")
    ev = evidence(*_pair(older, newer))
    assert ev.short and ev.score.scope and allowed_labels(ev) == {"contradiction"}
    staging = ("Staging deploys need no review", "Staging deploys go out without a review.")
    production = ("Production deploys need two reviews", "Production deploys go out only after two reviews.")
    ev = evidence(*_pair(staging, production))
    assert ev.score.scope and "duplicate" not in allowed_labels(ev)
    same = ("Jetpack Compose for every new screen", "Every new Android screen is written in Jetpack Compose.")
    assert "duplicate" in allowed_labels(evidence(*_pair(older, same)))


def test_a_claim_saying_it_changed_the_value_the_older_claim_states_is_a_contradiction() -> None:
    older = ("Daily standup at 10:00", "The daily standup is at 10:00 in the Oslo room.")
    newer = ("Daily standup now at 9:30", "The daily standup moved to 9:30 in the Oslo room.")
    a, b, weights = _pair(older, newer)
    assert _stated_change(evidence(a, b, weights))
    rel = classify(a, b, weights)
    assert rel is not None and rel.kind == "contradiction" and rel.score >= STATED_CHANGE_RIGHT
    assert "10:00" in rel.older_claim and "9:30" in rel.newer_claim
    # "replaces" describes a mechanism, and Korean and Japanese use Chinese change words as everyday words
    backup = (
        ("Nightly backups", "Nightly backups of the orders database run at 02:00 and are kept for 7 days."),
        ("Backup rotation", "Each nightly backup of the orders database replaces the one from 7 days ago."),
    )
    meeting = (
        ("定例会議", "定例会議は会議室Aで行う。"),
        ("定例会議の延期", "定例会議を延期するときは会議室の予約を取り消す。"),
    )
    for pair in (backup, meeting):
        assert not _stated_change(evidence(*_pair(*pair)))


def test_a_finding_names_the_words_as_the_memories_write_them(demo: Path) -> None:
    # the tokens are stemmed ("postgre", "refactor"); the trial read "both say: mock, postgre, db, real"
    from memtui.analysis.text import as_written

    assert as_written("postgre", "Tests hit a real Postgres database") == "postgres"
    assert as_written("focu", "no text has it", "Keep the focus ring visible") == "focus"
    assert as_written("fami", "家人") == "fami"  # no word of the texts makes it: left as it is
    report = check_store(load_store(demo), TODAY)
    [pair] = [f for f in _pair_findings(report) if "feedback_no_mock_db_zh.md" in f.paths]
    assert "postgres" in pair.details["shared"] and "postgre" not in pair.message.replace("postgres", "")
