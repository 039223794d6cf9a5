"""Issue 9, second round: which notes are logs, exceptions to a rule, and the cues the model reads."""

from __future__ import annotations

import datetime as dt

from conftest import memory

from memtui.analysis.check import check_store
from memtui.analysis.claims import is_log
from memtui.analysis.cues import change_words
from memtui.analysis.lexicon import CHANGE_CUES
from memtui.analysis.relations import Weights, prepare, score_pair
from memtui.core.store import load_store

TODAY = dt.date(2026, 11, 30)


def _pairs(report) -> list:  # type: ignore[no-untyped-def]
    return [f for f in report.findings if f.kind in ("contradiction", "duplicate")]


def test_a_rule_naming_a_log_crate_or_context_is_not_a_log_but_a_session_note_is() -> None:
    assert not is_log("feedback-rust-log-env-logger", "Rust 服务日志改用 log + env_logger")
    assert not is_log("feedback-go-ctx-first", "Go I/O functions take ctx context.Context first")
    assert not is_log("feedback_logging", "Use the shared log helper; logs go to stdout")
    assert is_log("session_2026_05_13", "What we did today")
    assert is_log("bug_fixes_and_context_2026-05-17", "Fixes of the week")
    assert is_log("notes", "Session 12: the importer is wired up")
    assert is_log("project_devlog", "Build log of the renderer")


def test_a_rule_and_the_exception_it_grants_a_narrower_case_are_not_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(
        {
            "feedback_csrf.md": memory(
                "feedback_csrf",
                description="Don't disable CSRF protection",
                body="Never disable or bypass the CSRF middleware on any route that uses cookie sessions.",
                updated="2026-01-01",
            ),
            "feedback_webhooks_csrf.md": memory(
                "feedback_webhooks_csrf",
                description="/webhooks/* is exempt from CSRF; HMAC signatures instead",
                body="The /webhooks/* routes don't need the CSRF middleware: they use no cookie sessions "
                "and verify an HMAC signature instead.",
                updated="2026-03-01",
            ),
        }
    )
    report = check_store(load_store(store), TODAY)
    assert not [p for p in _pairs(report) if p.kind == "contradiction"]


def _moved_store(make_store, named: str):  # type: ignore[no-untyped-def]
    filler = "".join(
        f"- Worker pool {n} keeps its own connection budget and retries with backoff.\n" for n in range(12)
    )
    return make_store(
        {
            f"{named}.md": memory(
                named,
                description="Redis 6380 holds ops state; it shares the instance with the file system metadata",
                body="Ops state lives in Redis on port 6380 next to the JuiceFS metadata.\n"
                "- Root cause still open: evaluate moving ops state to its own Redis instance.\n" + filler,
                updated="2026-06-23",
            ),
            "project_storage_architecture.md": memory(
                "project_storage_architecture",
                description="Storage direction: Postgres is the source of truth, caches are disposable",
                body="Factor lifecycle state was migrated from Redis to Postgres on 2026-07-04; the old keys stay "
                "as a fallback until the move is verified.\n" + filler.replace("Worker pool", "Shard"),
                updated="2026-07-04",
            ),
            "project_dashboard.md": memory(
                "project_dashboard",
                description="The dashboard reads factor metrics",
                body="Grafana panels show factor counts per library.",
                updated="2026-05-01",
            ),
        }
    )


def test_a_note_saying_it_moved_away_from_what_another_note_is_named_after_is_a_contradiction(make_store) -> None:  # type: ignore[no-untyped-def]
    store = _moved_store(make_store, "project_redis_ops_state")
    report = check_store(load_store(store), TODAY)
    [pair] = [p for p in _pairs(report) if not p.held_back]
    assert pair.kind == "contradiction"
    assert pair.paths == ("project_redis_ops_state.md", "project_storage_architecture.md")
    assert "migrated from Redis to Postgres" in pair.details["newer_claim"]


def test_moving_away_after_an_incident_does_not_contradict_the_incidents_record(make_store) -> None:  # type: ignore[no-untyped-def]
    """A trial read `project_incident_redis_maxclients` against the later move of state to Postgres as false (and
    the card's advice, archive the incident as superseded, as wrong): what happened stays true."""
    store = _moved_store(make_store, "project_incident_redis_maxclients")
    report = check_store(load_store(store), TODAY)
    assert not [p for p in _pairs(report) if not p.held_back and p.kind == "contradiction"]


def test_two_topic_files_without_descriptions_are_not_read_as_equal_descriptions() -> None:
    a = prepare("debugging.md", "debugging", "", "# Debugging\n\nMenu items set the scene up once.")
    b = prepare("unity-mcp.md", "unity-mcp", "", "# Unity MCP\n\nThe CLI runs a tool with a JSON input.")
    assert score_pair(a, b, Weights([a, b])).fuzzy == 0.0
    c = prepare("x.md", "x", "Scenes open with assetPath", "")
    d = prepare("y.md", "y", "Scenes open with assetPath", "")
    assert score_pair(c, d, Weights([c, d])).fuzzy == 1.0


def test_two_notes_one_linking_the_other_are_never_duplicates(make_store) -> None:  # type: ignore[no-untyped-def]
    files = {
        "user_pet_python.md": memory(
            "user_pet_python",
            description="User keeps a pet ball python named Monty",
            body="The user has a ball python called Monty; it eats once a week.",
            updated="2026-08-10",
        ),
        "user-pet-ball-python.md": memory(
            "user-pet-ball-python",
            description="User's pet: a ball python called Monty",
            body="User owns a ball python named Monty, fed once a week.",
            updated="2026-08-11",
        ),
    }
    # unlinked, the two notes say the same thing: a duplicate
    [pair] = _pairs(check_store(load_store(make_store(files)), TODAY))
    assert pair.kind == "duplicate"
    # the newer links the older as a separate note: its author keeps them apart on purpose
    files["user-pet-ball-python.md"] = files["user-pet-ball-python.md"].replace(
        "once a week.", "once a week. See [[user_pet_python]]."
    )
    assert not _pairs(check_store(load_store(make_store(files)), TODAY))


def test_every_change_cue_can_match_a_text_that_uses_it() -> None:
    # a cue is looked up by its first word, whole, so a stem ("decommission") never met "decommissioned"
    for cue in CHANGE_CUES:
        assert cue in change_words(f"the old host {cue} last week"), cue
    assert "decommissioned" in change_words("the bastion is decommissioned")
