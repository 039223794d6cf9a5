"""Issue 9, a dense store: a pair alone is judged as the model was fitted on pairs alone; among many candidates
(a crowd of memories sharing a project's words) a first-engine verdict on two weakly related memories counts for
less, while a stated change still counts in full."""

from __future__ import annotations

from dataclasses import replace

from memtui.analysis.claims import changed_from
from memtui.analysis.evidence import STORE_FEATURES
from memtui.analysis.model import CLASSES, Model, fit, load_model
from memtui.analysis.pairs import PARTNER_RELATED, partner_counts
from memtui.analysis.relations import (
    FEATURES,
    FLAG_MIN_SHORT,
    MemoryText,
    Relation,
    Weights,
    classify,
    evidence,
    find_relations,
    prepare,
    scored_candidates,
)


def _memory(key: str, description: str, body: str, date: str = "2026-01-01") -> MemoryText:
    return prepare(key + ".md", key, description, body, date)


# One team's memories: most share the project's words (alerts, logs, PRs, branches, dashboards) with several others.
TEAM = [
    (
        "pkg_npm",
        "Install packages with npm",
        "Use npm for installs and scripts in the web repo; commit package-lock.json.",
    ),
    (
        "pkg_bun",
        "The web repo switched to bun",
        "The web repo switched to bun; don't run npm install there any more.",
        "2026-06-01",
    ),
    (
        "branches_merged",
        "Merged PR branches are deleted automatically",
        "Branches are deleted once their PR merges; the repository setting is on.",
    ),
    (
        "branches_stale",
        "Stale branches older than 90 days get deleted",
        "Remote branches without commits for 90 days are deleted by the weekly clean-up job.",
    ),
    (
        "alerts_p2",
        "P2 alerts go to the team's email list",
        "Non-urgent P2 alerts are routed to the team's email list; only P1 pages.",
    ),
    (
        "alerts_actionable",
        "Every paging alert must be actionable",
        "An alert that pages must need a human to act now; if nobody needs to act, it is a dashboard panel.",
    ),
    (
        "alerts_silence",
        "Don't silence alerts for more than 24 hours",
        "Alert silences last at most 24 hours; fix a noisy alert instead of silencing it longer.",
    ),
    (
        "logs_json",
        "Logs are JSON lines",
        "Every service logs one JSON object per line with ts, level, msg and trace_id.",
    ),
    (
        "logs_level",
        "Production log level is WARN",
        "The production log level changed from INFO to WARN for all services.",
    ),
    ("logs_secrets", "Never log secret values", "Never log secret values or tokens, not even partially masked."),
    ("traces", "Traces live in Tempo", "Search traces in Grafana Tempo by trace_id."),
    (
        "dash_api",
        "API latency dashboard",
        "The API latency dashboard is in Grafana under api-latency; check it when changing request handling.",
    ),
    (
        "dash_db",
        "DB latency dashboard",
        "The DB latency dashboard is in Grafana under db-latency; check it when changing queries.",
    ),
    (
        "review_time",
        "Answer review requests within one business day",
        "Answer review requests within one business day, even if only to say when.",
    ),
    (
        "pr_size",
        "Keep PRs under 400 changed lines",
        "Keep pull requests under 400 changed lines; generated files don't count.",
    ),
    (
        "pr_approval",
        "Don't merge your own PR without an approval",
        "Never merge your own PR before it has an approving review.",
    ),
    (
        "release_freeze",
        "Merge freeze before the release",
        "Merges to main freeze two days before each release; only fixes go in.",
    ),
    (
        "release_branch",
        "Release branches are cut from main",
        "Each release gets a release branch cut from main; cherry-pick fixes into it.",
    ),
    (
        "deploy_days",
        "Deploy on weekdays only",
        "Production deploys happen Monday to Thursday; never on a Friday or the weekend.",
    ),
    (
        "rollout",
        "Staged rollouts start at 10%",
        "Every production rollout starts at 10% of traffic and doubles each hour.",
    ),
    ("oncall", "On-call hands over on Mondays", "The on-call rotation hands over every Monday at 10:00."),
    (
        "user_role",
        "User is the team's tech lead",
        "The user leads a team of six backend engineers and reviews most PRs.",
    ),
    ("user_tz", "User works from Berlin", "The user works 09:00-17:30 Berlin time; keep meetings inside those hours."),
    (
        "tests_db",
        "Integration tests use a real database",
        "Integration tests run against a real Postgres in Docker, never a mock.",
    ),
]


def _team() -> list[MemoryText]:
    return [_memory(*row) for row in TEAM]


def _without_store_weights(model: Model) -> Model:
    """The same model with the store features' weights at zero: how it judged every pair before a crowd counted."""
    weights = {
        c: tuple(0.0 if f in STORE_FEATURES else w for f, w in zip(model.features, ws, strict=True))
        for c, ws in model.weights.items()
    }
    return replace(model, weights=weights)


def _shown(relations: list[Relation]) -> set[tuple[str, str]]:
    return {(r.older, r.newer) for r in relations if not r.held_back}


def test_a_pair_alone_is_no_crowd_and_reads_no_store_feature() -> None:
    a = _memory("logs_json", "Logs are JSON lines", "Every service logs one JSON object per line.")
    b = _memory("logs_level", "Production log level is WARN", "The production log level changed to WARN.", "2026-06-01")
    weights = Weights([a, b])
    assert weights.crowd(a, b) == 0.0
    features = dict(zip(FEATURES, evidence(a, b, weights).features, strict=True))
    assert all(features[f] == 0.0 for f in STORE_FEATURES)


def test_a_superseded_memory_is_nobodys_partner() -> None:
    docs = _team()
    old = _memory("alerts_old", "SUPERSEDED: P2 alerts went to the pager", "SUPERSEDED by alerts_p2. P2 alerts paged.")
    with_old = [*docs, old]
    scored = scored_candidates(with_old, Weights(with_old))
    assert old.superseded
    last = len(with_old) - 1
    assert any(last in pair and s.related >= PARTNER_RELATED for pair, s in scored.items())  # it is a candidate
    assert old.key not in partner_counts(with_old, scored)


def test_partners_are_the_candidates_a_memory_is_judged_against() -> None:
    docs = _team()
    partners = partner_counts(docs, scored_candidates(docs, Weights(docs)))
    # the package pair shares its words with nobody else; the alert and log notes with several
    assert partners["pkg_npm.md"] <= 2 and partners["alerts_p2.md"] >= 2
    weights = Weights(docs)
    weights.partners = partners
    by_key = {d.key: d for d in docs}
    assert 0.0 <= weights.crowd(by_key["pkg_npm.md"], by_key["pkg_bun.md"]) < 1.0


def test_long_notes_do_not_crowd_a_short_memory() -> None:
    """A long session note shares the project's words with every short rule: it is a partner of other long notes,
    not a look-alike crowding the short ones."""
    docs = _team()
    log_lines = "\n".join(
        f"- Step {n}: checked the alerts, the logs, the PR queue, the branches and the dashboards again."
        for n in range(12)
    )
    notes = [_memory(f"session_{n}", f"Session {n} notes", log_lines) for n in range(3)]
    store = [*docs, *notes]
    scored = scored_candidates(store, Weights(store))
    note_keys = {n.key for n in notes}
    mixed = [(i, j) for i, j in scored if len({store[i].key, store[j].key} & note_keys) == 1]
    assert any(scored[pair].related >= PARTNER_RELATED for pair in mixed)  # notes and rules are judged together…
    partners = partner_counts(store, scored)
    # …but the notes count only as each other's partners: the rules' crowds are what they were without the notes
    alone = partner_counts(docs, scored_candidates(docs, Weights(docs)))
    assert {k: v for k, v in partners.items() if k not in note_keys} == alone
    assert all(partners[k] == 2 for k in note_keys)


def test_in_a_crowd_a_weak_verdict_is_held_back_and_a_stated_change_still_shown() -> None:
    model = load_model()
    assert model is not None and all(f in model.features for f in STORE_FEATURES)
    docs = _team()
    before = {(r.older, r.newer): r.score for r in find_relations(docs, model=_without_store_weights(model))}
    judged = find_relations(docs, model=model)
    now = {(r.older, r.newer): r.score for r in judged}
    # two rules about PRs that share a prohibition but not a subject: strong enough to show before a crowd counted
    # (were it not that no claims conflict, see test_judgement), below the held-back floor now
    assert before[("pr_approval.md", "pr_size.md")] >= FLAG_MIN_SHORT
    assert ("pr_approval.md", "pr_size.md") not in now
    # the package manager switch states its change outright: shown either way
    assert ("pkg_npm.md", "pkg_bun.md") in _shown(judged)
    assert now.keys() < before.keys()


def test_alone_the_store_weights_change_nothing() -> None:
    model = load_model()
    assert model is not None
    a = _memory("tone_formal", "Replies in a polite, formal tone", "Answer customers in a polite, formal tone.")
    b = _memory("tone_direct", "Replies should be direct", "Answer customers in a direct, casual tone.", "2026-06-01")
    with_crowd = classify(a, b, Weights([a, b]), model)
    without = classify(a, b, Weights([a, b]), _without_store_weights(model))
    assert with_crowd is not None and without is not None
    assert (with_crowd.kind, with_crowd.score) == (without.kind, without.score)


def test_fit_from_a_start_changes_only_the_weights_it_is_told_to_learn() -> None:
    rows = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 1.0)]
    labels = ["contradiction", "duplicate", "none", "contradiction"]
    names = ("f1", "f2", "crowd")
    start = fit([r[:2] + (0.0,) for r in rows], labels, names)
    assert all(start.weights[c][2] == 0.0 for c in CLASSES[1:])  # a feature that is always zero keeps weight 0
    later = fit(rows, labels, names, start=start, learn={"crowd"})
    for c in CLASSES[1:]:
        assert later.bias[c] == start.bias[c]
        assert later.weights[c][:2] == start.weights[c][:2]
    assert any(later.weights[c][2] != 0.0 for c in CLASSES[1:])


def test_dont_any_more_leaves_its_object_behind() -> None:
    assert changed_from("The web repo switched to bun; don't run npm install there any more.") == {"npm"}
    assert changed_from("Don't use Jest anymore, use Vitest.") == {"jest"}
    assert changed_from("We do not need a VPN any more.") == {"vpn"}
    assert changed_from("Don't run the tests on Friday.") == frozenset()
    # "any more than" and "any more often" compare; they say nothing changed
    assert changed_from("Don't use mocks any more than you must.") == frozenset()
    assert changed_from("Don't call the status API any more often than once a minute.") == frozenset()


def test_two_defaults_of_one_setting_are_judged_however_many_look_alikes_crowd_them() -> None:
    # forty logs, each sharing most of its words with its neighbours: a log's strongest partners are those, and two
    # logs far apart that state two defaults of one setting share little else
    syllables = ("ka", "lo", "mi", "ra", "tu", "ven", "dor", "sil")
    words = [a + b + c for a in syllables for b in syllables for c in ("n", "x")][:80]
    logs = [
        _memory(
            f"log_{day:02d}",
            f"Log {day}",
            "Notes: " + " ".join(words[day : day + 15]) + ".",
            f"2026-05-{day % 28 + 1:02d}",
        )
        for day in range(40)
    ]
    older = replace(
        logs[0],
        body=logs[0].body + "\nWhether the report scans the whole market: `DAILY_SCAN_ALL` defaults to `false`.",
    )
    newer = replace(logs[20], body=logs[20].body + "\nAs the user asked, `DAILY_SCAN_ALL` now defaults to `true`.")
    docs = [prepare(m.key, m.title, m.description, m.body, m.date) for m in (older, newer, *logs[1:20], *logs[21:])]
    found = [r for r in find_relations(docs) if {r.older, r.newer} == {"log_00.md", "log_20.md"}]
    assert [(r.kind, r.held_back) for r in found] == [("contradiction", False)], found
    assert "daily_scan_all" in found[0].cue.lower()
