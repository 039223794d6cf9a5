"""Secrets in memory files: seed 004's patterns plus cloud keys, chat and payment tokens, private keys."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memtui.analysis.text import Corpus

# (label, pattern). Ordered from most to least specific; the first hit on a span wins.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx))
    for label, rx in (
        ("private key block", r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        ("OpenAI-style API key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}"),
        ("Stripe key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("Brave Search API key", r"\bBSA[A-Za-z0-9_-]{20,}"),
        ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        ("Google OAuth token", r"\bya29\.[A-Za-z0-9_-]{10,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
        ("AWS secret access key", r"(?i)aws_?secret_?access_?key\s*[:=]\s*['\"]?[A-Za-z0-9/+=]{40}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("Slack webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}"),
        ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
        ("URL carrying credentials", r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@[^\s]+"),
        (
            "URL carrying a token",
            r"(?i)\bhttps?://[^\s]*[?&#](?:access_token|token|api_?key|apikey|key|secret|sig|signature|password|auth|code)=[^&\s]{8,}",
        ),
        (
            "credential assignment",
            r"(?i)\b(?:api[_-]?key|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|password|passwd|client[_-]?secret)\b\s*[:=]\s*['\"]?(?=[A-Za-z0-9/+_.\-]*\d)[A-Za-z0-9/+_.\-]{12,}",
        ),
        ("long hex string", r"\b[a-f0-9]{32,}\b"),
        ("long base64 string", r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*\d)[A-Za-z0-9+/]{40,}={0,2}"),
    )
)

_COMMIT_CONTEXT = re.compile(r"(?i)\b(?:commit|sha|hash|revision|rev|checksum|sha256|md5|digest)\b")


@dataclass(frozen=True)
class SecretHit:
    """One suspected secret: what it looks like, where, and a redacted preview (never the secret itself)."""

    label: str
    line: int
    preview: str


def redact(value: str) -> str:
    """Show just enough of a secret to find it: its first 4 characters and its length."""
    return f"{value[:4]}… ({len(value)} chars)"


_LITERALS = ("private key", "sk-", "sk_", "rk_", "pk_", "bsa", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
             "ya29.", "aiza", "akia", "asia", "agpa", "aida", "aroa", "aws", "xox", "hooks.slack", "eyj", "key", "secret",
             "token", "passw")
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
    hits: list[SecretHit] = []
    if not _may_hold_secret(text):
        return hits  # the common case: nothing secret-shaped anywhere
    for number, line in enumerate(text.splitlines(), 1):
        if not _may_hold_secret(line):
            continue
        taken: list[tuple[int, int]] = []
        for label, pattern in PATTERNS:
            for match in pattern.finditer(line):
                span = match.span()
                if any(s < span[1] and span[0] < e for s, e in taken):
                    continue
                if label == "long hex string" and _looks_like_digest(line, match.group(0)):
                    continue
                if label == "long base64 string" and ("/" in match.group(0) and match.group(0).count("/") > 2):
                    continue  # a path, not a key
                taken.append(span)
                hits.append(SecretHit(label, number, redact(match.group(0))))
    return hits


def _looks_like_digest(line: str, value: str) -> bool:
    # A git SHA or checksum named as such is not a credential; anything else hex and long is treated as one.
    return len(value) in (40, 64) and bool(_COMMIT_CONTEXT.search(line))
