"""Text normalisation for comparing memories: Markdown stripped, width folded, English stemmed, CJK split into bigrams."""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from memtui.analysis.lexicon import GLOSSARY, STOPWORDS, ZH_STOP_CHARS

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_KO_JA = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_WORD = re.compile(r"[a-z0-9][a-z0-9+#]*(?:[._/@:-][a-z0-9+#]+)*")
_LABEL = re.compile(r"\*\*\s*(?:why|how to apply|rule)\s*(?:\*\*\s*[:：]?|[:：]\s*\*\*)", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`>#|]+|\[\[|\]\]|\]\([^()]*+\)|\[")  # possessive: linear on `](](](…`
_MARKUP_CHARS = frozenset("*_`>#|[]")
_SECTION = re.compile(r"\*\*\s*(why|how to apply)\s*(?:\*\*\s*[:：]?|[:：]\s*\*\*)", re.IGNORECASE)


def fold(text: str) -> str:
    """Unicode width folding (full-width to ASCII) and lower case."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).lower()


def strip_markdown(text: str) -> str:
    """Drop Markdown emphasis, link targets and the Why/How labels, keeping the words."""
    if "**" in text:
        text = _LABEL.sub(" ", text)
    if _MARKUP_CHARS.isdisjoint(text):
        return text  # most descriptions and names carry no markup: skip the substitution
    return _MARKUP.sub(" ", text)


def sections(body: str) -> tuple[str, str, str]:
    """Split a body into (rule, why, how-to-apply) by its bold labels; missing parts are empty."""
    if "**" not in body:
        return body.strip(), "", ""  # every label is bold: a body without `**` is all rule
    parts: dict[str, list[str]] = {"rule": [], "why": [], "how to apply": []}
    current = "rule"
    pos = 0
    for match in _SECTION.finditer(body):
        parts[current].append(body[pos : match.start()])
        current = match.group(1).lower()
        pos = match.end()
    parts[current].append(body[pos:])
    return " ".join(parts["rule"]).strip(), " ".join(parts["why"]).strip(), " ".join(parts["how to apply"]).strip()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: enough to make `tests`/`testing`/`tested` meet."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl, min_len in (
        ("ies", "y", 5),
        ("sses", "ss", 5),
        ("ing", "", 6),
        ("ed", "", 5),
        ("es", "", 5),
        ("s", "", 4),
        ("ly", "", 6),
    ):
        if suffix == "es" and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
            continue
        if word.endswith(suffix) and len(word) >= min_len and not word.endswith("ss"):
            base = word[: len(word) - len(suffix)] + repl
            if suffix in ("ing", "ed") and len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # stopped -> stop, running -> run
            return base
    return word


_HANGUL = re.compile(r"[\uac00-\ud7af]")
_KANA_SPLIT = re.compile(r"([\u3040-\u309f]+|[\u30a0-\u30ff]+)")


def _ko_ja_tokens(run: str) -> list[str]:
    """Korean words whole (no bigrams: they would pair every two notes sharing a particle) and Japanese split
    into katakana words and kanji bigrams, hiragana (mostly grammar) dropped."""
    if _HANGUL.search(run):
        return [run] if len(run) >= 2 else []
    out: list[str] = []
    for piece in _KANA_SPLIT.split(run):
        if not piece or "\u3040" <= piece[0] <= "\u309f":
            continue
        if "\u30a0" <= piece[0] <= "\u30ff":
            if len(piece) >= 2:
                out.append(piece)
        else:
            out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    return out


@lru_cache(maxsize=1)
def _segmenter() -> object | None:
    """The CC-CEDICT segmenter (lindera), loaded on the first Chinese text; None when it is not installed."""
    try:
        import lindera

        tokenizer: object = lindera.Tokenizer(lindera.load_dictionary("embedded://cc-cedict"), mode="normal")
        return tokenizer
    except Exception:  # noqa: BLE001 - any failure to load means: fall back to the glossary
        return None


_SENSE_NOISE = re.compile(
    r"\([^)]*\)?|\bCL:.*|\b(?:lit|fig|abbr|sb|sth|used|variant|old|see|also|surname)\b\.?.*|\.\.\."
)
GLOSS_SENSES = 3
"""Senses of a dictionary entry that give English concepts (the first ones are the common ones)."""


@lru_cache(maxsize=65536)
def gloss(word: str, senses: str) -> tuple[str, ...]:
    """English concept tokens of a dictionary word: the content words of its first senses."""
    out: list[str] = []
    for sense in senses.strip("/").split("/")[:GLOSS_SENSES]:
        sense = _SENSE_NOISE.sub(" ", sense.lower())
        words = [w for w in _WORD.findall(sense) if w != "to"]
        if 0 < len(words) <= 3:
            for w in words:
                token = _word_token(w)
                if token is not None and token not in out:
                    out.append(token)
    return tuple(out[:4])


@lru_cache(maxsize=16384)
def _dictionary_tokens(run: str) -> tuple[str, ...] | None:
    seg = _segmenter()
    if seg is None:
        return None
    out: list[str] = []
    for tok in seg.tokenize(run):  # type: ignore[attr-defined]
        word = tok.surface
        details = tok.details
        if len(word) >= 2:
            out.append(word)
        elif word in ZH_STOP_CHARS:
            continue
        if len(details) > 7 and details[7] != "*":
            out.extend(gloss(word, details[7]))
    return tuple(out)


def cjk_tokens(run: str) -> list[str]:
    """Tokens of a CJK run: dictionary words and their English concepts (CC-CEDICT: 数据库 → "database"), so
    Chinese and English memories meet on shared concepts. Without the dictionary installed, character bigrams
    and the hand glossary stand in. Korean and Japanese are handled apart (`_ko_ja_tokens`)."""
    if _KO_JA.search(run):
        return _ko_ja_tokens(run)
    words = _dictionary_tokens(run)
    if words is not None:
        return list(words)
    tokens: list[str] = []
    for term, concepts in GLOSSARY.items():
        if term in run:
            tokens.extend(stem(c) for c in concepts if c not in STOPWORDS)
    pieces = re.split("[" + ZH_STOP_CHARS + "]", run)
    for piece in pieces:
        if len(piece) == 1:
            tokens.append(piece)
        tokens.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    return tokens


@lru_cache(maxsize=131072)
def _word_token(word: str) -> str | None:
    word = word.strip(".-:/")
    if len(word) < 2 or word in STOPWORDS:
        return None
    return stem(word)


def as_written(token: str, *texts: str) -> str:
    """A stemmed token as the texts write it ("postgre" → "postgres", "focu" → "focus"): the first word of the
    texts that makes that token; the token itself when none does (a concept glossed from Chinese, a phrase)."""
    for text in texts:
        for m in _WORD.finditer(fold(text)):
            if _word_token(m.group(0)) == token:
                return m.group(0).strip(".-:/")
    return token


def tokens(text: str) -> list[str]:
    """Normalised tokens of a text: stemmed English words, numbers, identifiers, CJK bigrams and concepts."""
    return _folded_tokens(_split_quantities(strip_markdown(fold(text))))


_QUANTITY = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)-([a-z]+)\b")
"""A number joined to its unit by a hyphen ("a 15-minute gap", "the 10-year rule"), not inside a name
(`gpt-4-turbo`, `node-18-alpine`)."""


def _split_quantities(folded: str) -> str:
    """ "15-minute" also read as "15 minute", so it meets "15 minutes" and still differs from "30-minute" (a date
    or a range, digits on both sides of the hyphen, and a name with a number inside stay whole)."""
    return _QUANTITY.sub(r"\g<0> \1 \2", folded) if "-" in folded else folded


def _folded_tokens(folded: str) -> list[str]:
    out: list[str] = []
    if not folded.isascii():
        for run in _CJK.findall(folded):
            out.extend(cjk_tokens(run))
        folded = _CJK.sub(" ", folded)
    _word_tokens(_WORD.findall(folded), out)
    return out


def _word_tokens(words: list[str], out: list[str]) -> list[str]:
    known = _TOKEN_OF
    for word in words:
        token = known.get(word, _UNKNOWN)
        if token is _UNKNOWN:
            token = _word_token(word)
            if len(known) < _TOKEN_OF_MAX:
                known[word] = token
        if token is not None:
            out.append(token)
    return out


def token_set(text: str) -> frozenset[str]:
    """`frozenset(tokens(text))`, faster: once every word has been met, one lookup per word, all in C."""
    folded = _split_quantities(strip_markdown(fold(text)))
    if not folded.isascii():
        return frozenset(_folded_tokens(folded))
    words = _WORD.findall(folded)
    try:
        found: set[str | None] = set(map(_TOKEN_OF.__getitem__, words))
    except KeyError:  # a word not met yet: the loop learns it
        return frozenset(_word_tokens(words, []))
    found.discard(None)  # stop words
    return frozenset(found)  # type: ignore[arg-type]  # None is gone


_UNKNOWN = ""
_TOKEN_OF: dict[str, str | None] = {}
"""Word → token, filled as words are met: a plain dict lookup per word instead of a cached call (the hot loop
of reading a big store)."""
_TOKEN_OF_MAX = 200_000


def is_ko_ja(text: str) -> bool:
    """Whether a text holds Korean or Japanese (kana, hangul): compared more cautiously than Chinese."""
    return bool(_KO_JA.search(text))


def has_cjk(text: str) -> bool:
    """Whether a text holds Chinese, Japanese or Korean characters."""
    return not text.isascii() and bool(_CJK.search(text))


class Corpus:
    """Many texts searched at once: one lower-cased string, with a map from offsets back to texts."""

    SEPARATOR = "\n\x00\n"

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.joined = self.SEPARATOR.join(texts)
        self.low = self.joined.lower()
        self.starts: list[int] = []
        offset = 0
        for text in texts:
            self.starts.append(offset)
            offset += len(text) + len(self.SEPARATOR)

    def owner(self, pos: int) -> int:
        """The index of the text holding a position of the joined string."""
        return bisect.bisect_right(self.starts, pos) - 1

    def holders(self, markers: Iterable[str]) -> set[int]:
        """Indexes of the texts containing any marker (case-folded), each found in one pass."""
        found: set[int] = set()
        for marker in markers:
            pos = self.low.find(marker)
            while pos != -1:
                index = self.owner(pos)
                found.add(index)
                nxt = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.low)
                pos = self.low.find(marker, nxt)  # one hit per text is enough
        return found
