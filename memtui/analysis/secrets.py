"""Secrets in memory files: seed 004's patterns plus cloud keys, chat and payment tokens, private keys."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memtui.analysis.text import Corpus

# (label, pattern). Ordered from most to least specific; the first hit on a span wins.
# Every pattern is linear on any line (issue 7 H2: one 256 KB line of `http://?` took minutes): a pattern whose
# prefix could start again inside its own run starts only where that run starts (a lookbehind) and never gives
# back what a possessive quantifier took, so each character is scanned a bounded number of times. Conditions
# that cannot be said that way (a token parameter inside a URL, the `eyJ` of a JWT) are checked on the match by
# `_REFINE`. `benchmarks/regex_adversarial.py` times each one on adversarial lines.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx))
    for label, rx in (
        ("private key block", r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}+"),
        ("OpenAI-style API key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}+"),
        ("Stripe key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}+"),
        ("Brave Search API key", r"\bBSA[A-Za-z0-9_-]{20,}+"),
        ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}+|github_pat_[A-Za-z0-9_]{22,}+)"),
        ("Google OAuth token", r"\bya29\.[A-Za-z0-9_-]{10,}+"),
        ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
        ("AWS secret access key", r"(?i)aws_?secret_?access_?key\s*+[:=]\s*+['\"]?[A-Za-z0-9/+=]{40}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}+"),
        ("Slack webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}+"),
        # three dot-separated base64url segments; _REFINE requires the first to hold `eyJ` (a JSON header)
        ("JSON Web Token", r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{13,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+"),
        # from `://` on; _REFINE walks back over the scheme (`[a-z][a-z0-9+.-]*` after a word boundary)
        ("URL carrying credentials", r"://[^\s/:@]++:[^\s/@]{3,}+@\S++"),
        # a whole URL; _REFINE requires a token-like parameter in it
        ("URL carrying a token", r"(?i)\bhttps?://\S++"),
        (
            "credential assignment",
            r"(?i)\b(?:api[_-]?key|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|password|passwd|client[_-]?secret)\b\s*+[:=]\s*+['\"]?(?=[A-Za-z0-9/+_.\-]*?\d)[A-Za-z0-9/+_.\-]{12,}+",
        ),
        ("long hex string", r"\b[a-f0-9]{32,}+\b"),
        ("long base64 string", r"(?<![A-Za-z0-9/+])[A-Za-z0-9+/]{40,}+={0,2}"),
    )
)

_TOKEN_PARAM = re.compile(
    r"(?i)[?&#](?:access_token|token|api_?key|apikey|key|secret|sig|signature|password|auth|code)=[^&\s]{8,}+"
)
_JWT_HEAD = re.compile(r"\beyJ")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")


def _scheme_start(line: str, colon: int) -> int | None:
    """Where the URL scheme ending at `colon` starts: the leftmost `[a-z]` at a word boundary in the run before it."""
    run = colon
    while run > 0 and line[run - 1] in _SCHEME_CHARS:
        run -= 1
    for at in range(run, colon):
        if "a" <= line[at] <= "z" and (at == 0 or not (line[at - 1].isalnum() or line[at - 1] == "_")):
            return at
    return None


_MIXED = (re.compile(r"[A-Z]"), re.compile(r"[a-z]"), re.compile(r"\d"))


def _refine(label: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The span a pattern's match really counts for, or None when the extra condition fails (all linear)."""
    value = match.group(0)
    if label == "URL carrying a token":
        end = None
        for param in _TOKEN_PARAM.finditer(value):
            end = param.end()  # the last one, as a greedy `\S*` before it would have reached
        return (match.start(), match.start() + end) if end is not None else None
    if label == "URL carrying credentials":
        start = _scheme_start(match.string, match.start())
        return (start, match.end()) if start is not None else None
    if label == "JSON Web Token":
        head_end = value.index(".")
        head = _JWT_HEAD.search(value, 0, head_end)
        return (match.start() + head.start(), match.end()) if head and head_end - head.start() >= 13 else None
    if label == "long base64 string":
        # upper, lower and a digit somewhere: a word or a path is not a key
        return match.span() if all(rx.search(value) for rx in _MIXED) else None
    return match.span()


_DIGEST_CONTEXT = re.compile(
    r"(?i)\b(?:commits?|sha(?:-?(?:1|256|512))?|hash(?:es)?|revisions?|rev|checksums?|md5|digests?|guids?|uuids?"
    r"|fingerprints?|etags?)\b|guid|uuid"
)
"""Words that name a long hex string as an identifier or a digest (a git SHA, a Unity `guid:`, a UUID, a checksum).
The bare `guid`/`uuid` also match inside names (`VisualConfigGuid`, `asset_uuid`)."""
_DIGEST_LENGTHS = (32, 40, 64)
"""MD5, GUIDs and dashless UUIDs; SHA-1 (git); SHA-256."""


@dataclass(frozen=True)
class SecretHit:
    """One suspected secret: what it looks like, where, and a redacted preview (never the secret itself)."""

    label: str
    line: int
    preview: str


def redact(value: str) -> str:
    """Show just enough of a secret to find it: its first 4 characters and its length."""
    return f"{value[:4]}… ({len(value)} chars)"


_LITERALS = (
    "private key",
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "bsa",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "ya29.",
    "aiza",
    "akia",
    "asia",
    "agpa",
    "aida",
    "aroa",
    "aws",
    "xox",
    "hooks.slack",
    "eyj",
    "key",
    "secret",
    "token",
    "passw",
)
_LONG_RUN = re.compile(r"[A-Za-z0-9+/]{32}")


def _may_hold_secret(text: str) -> bool:
    """A cheap test that rules out most texts: literal markers (case-folded once) or a long key-like run."""
    low = text.lower()
    if any(marker in low for marker in _LITERALS):
        return True
    if "://" in low and ("@" in low or "=" in low):
        return True  # a URL that may carry credentials or a token parameter
    return _LONG_RUN.search(text) is not None


def suspects(texts: list[str]) -> set[int]:
    """Indexes of the texts worth a full scan, found in one pass over all of them (cheap for big stores)."""
    corpus = Corpus(texts)
    found = corpus.holders(_LITERALS)
    # a bare URL is no secret; one with credentials (@) or parameters (=) may be
    found |= {i for i in corpus.holders(["://"]) if "@" in texts[i] or "=" in texts[i]}
    found |= {corpus.owner(m.start()) for m in _LONG_RUN.finditer(corpus.joined)}
    return found


def scan(text: str) -> list[SecretHit]:
    """Every suspected secret in a text, one per span."""
    return [SecretHit(label, number, redact(line[start:end])) for label, number, line, start, end in _found(text)]


def redacted(text: str) -> str:
    """The text with every suspected secret replaced by its redacted preview, for showing on screen."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for _, number, _, start, end in _found(text):
        spans.setdefault(number, []).append((start, end))
    if not spans:
        return text
    lines = text.splitlines(keepends=True)
    for number, found in spans.items():
        line = lines[number - 1]
        for start, end in sorted(found, reverse=True):
            line = line[:start] + redact(line[start:end]) + line[end:]
        lines[number - 1] = line
    return "".join(lines)


def _found(text: str) -> Iterator[tuple[str, int, str, int, int]]:
    """(label, line number, line, start, end) of every suspected secret, one per span."""
    if not _may_hold_secret(text):
        return  # the common case: nothing secret-shaped anywhere
    heading = ""  # the nearest Markdown heading above the line ("## Script GUIDs")
    table: list[str] = []  # the header row's cells of the Markdown table the line is in
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            heading = stripped
        if stripped.startswith("|"):
            if not table:
                table = _cells(stripped)
        else:
            table = []
        if not _may_hold_secret(line):
            continue
        taken: list[tuple[int, int]] = []
        for label, pattern in PATTERNS:
            for match in pattern.finditer(line):
                span = _refine(label, match)
                if span is None or any(s < span[1] and span[0] < e for s, e in taken):
                    continue
                value = line[span[0] : span[1]]
                if label == "long hex string" and _looks_like_digest(line, span[0], value, heading, table):
                    continue
                if label == "long base64 string" and value.count("/") > 2:
                    continue  # a path, not a key
                taken.append(span)
                yield label, number, line, span[0], span[1]


def _cells(row: str) -> list[str]:
    """The cells of a Markdown table row (`| a | b |` -> `a`, `b`)."""
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _looks_like_digest(line: str, start: int, value: str, heading: str, table: list[str]) -> bool:
    """A hex string of a digest's or a GUID's length that its context names as one: a git SHA, a Unity `guid:`,
    a UUID, a checksum. The name may be on the line, in its table column's header (`| Script | GUID |`) or in the
    heading above (`## Script GUIDs`). Anything else hex and long is treated as a credential."""
    if len(value) not in _DIGEST_LENGTHS:
        return False
    if _DIGEST_CONTEXT.search(line):
        return True
    if table and line.lstrip().startswith("|"):
        column = line[:start].count("|") - 1
        if 0 <= column < len(table) and _DIGEST_CONTEXT.search(table[column]):
            return True
    return bool(heading) and _DIGEST_CONTEXT.search(heading) is not None
