"""What kind of note a memory is by its own account: superseded, a plan, the delivered result, or a session log.

The judgement reads these of the whole memory (its name, description and opening), not claim by claim: a
superseded memory is never paired, a plan and its delivered result are not a contradiction, and logs narrate.
"""

from __future__ import annotations

import re

SUPERSEDED = re.compile(
    r"\b(?:HISTORICAL|SUPERSEDED|DEPRECATED|OBSOLETE|OUTDATED|NO LONGER (?:VALID|CURRENT|APPLIES))\b|"
    r"\b(?:superseded|obsoleted) by\b|^[^\w\n]*status[^\S\n]*:[^\w\n]*(?:superseded|deprecated|historical|obsolete)\b|"
    r"已废弃|已作废|已过时|已被取代|廃止",
    re.MULTILINE,
)
"""A memory, or a sentence in one, saying it is historical or superseded."""
_SUPERSEDED_HINTS = ("historical", "supersed", "deprecat", "obsolete", "outdated", "no longer", "已", "廃止")
_PLAN = re.compile(
    r"\b(?:plan|plans|planned|planning|roadmap|todo|to-do|next steps?|proposal|proposed|design|spec|backlog|"
    r"upcoming|will|pending|draft|phase)\b|计划|待办|方案|下一步",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"\b(?:built|done|implemented|shipped|landed|completed|complete|merged|delivered|finished|resolved|fixed|"
    r"live|released|deployed)\b|已完成|已实现|已上线|完成了|已修复",
    re.IGNORECASE,
)
_LOG = re.compile(
    r"(?:^|[\s_\-/])(?:session|sessions|handoff|hand-off|"
    # "log level", "log format", "audit logs in S3" are settings, not a log
    r"(?:log|logs)(?![\s_\-]+(?:level|levels|format|retention|rotation|files?|lines?|messages?|output|shipping|"
    r"sampling|in|at|to|are|go|goes|must|should))|"
    r"changelog|journal|diary|status|progress|"
    r"retro|retrospective|worklog|devlog|bug_fixes|context|recap|summary|wip)(?:$|[\s_\-.:/\d])",
    re.IGNORECASE,
)


def is_superseded(title: str, description: str, body: str) -> str:
    """The marker when a memory says of itself that it is historical or superseded, else ""."""
    head = "\n".join((title, description, body[:400]))
    low = head.lower()
    if not any(k in low for k in _SUPERSEDED_HINTS):
        return ""  # nearly every memory: skip the regular expression
    m = SUPERSEDED.search(head)
    return m.group(0).strip() if m else ""


def is_plan(title: str, description: str) -> bool:
    """Whether a memory presents itself as a plan, a roadmap or next steps."""
    return bool(_PLAN.search(title.replace("_", " ").replace("-", " ") + " " + description))


def says_done(title: str, description: str) -> bool:
    """Whether a memory presents itself as the delivered result ("built", "done", "shipped")."""
    return bool(_DONE.search(title.replace("_", " ").replace("-", " ") + " " + description))


_RULE_NAME = re.compile(r"(?:feedback|user|reference)[\s_\-]", re.IGNORECASE)
# Bounded runs: `\W*` and `\S+` both take `---…`, so unbounded they cost quadratic time on a long first line.
_LOG_DESCRIBED = re.compile(
    r"^\W{0,20}(?:\S{1,40}\s+){0,3}?(?:session|handoff|hand-off|changelog|journal|diary|retro|retrospective|worklog|devlog|"
    r"recap|wip)(?:$|[\s_\-.:/\d])",
    re.IGNORECASE,
)


def is_log(title: str, description: str) -> bool:
    """Whether a memory is a session note, handoff or log rather than a standing fact or rule.

    The name says so ("session_12", "bug_fixes_and_context"), or the description opens by saying so; a rule
    that mentions `context.Context` or "log + env_logger" in its description is not a log.
    """
    if _RULE_NAME.match(title):
        return False  # a feedback, user or reference memory is a standing rule even when it names a `log` crate
    return bool(_LOG.search(" " + title.replace("_", " ") + " ")) or bool(_LOG_DESCRIBED.search(description[:80]))


_EVENT = re.compile(
    r"(?:^|[\s_\-])(?:incident|postmortem|post-mortem|outage)(?:$|[\s_\-\d])|事故|故障复盘", re.IGNORECASE
)


def is_event_record(title: str) -> bool:
    """Whether a memory is named as the record of an event (an incident, an outage, a postmortem): what happened
    stays true whatever is changed after it."""
    return bool(_EVENT.search(title))
