"""One memory normalised for comparison: its tokens at once, its cues and claims when a pair asks for them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from memtui.analysis import cues
from memtui.analysis import text as tx
from memtui.analysis.claims import Claim, memory_defaults, named_quantities, split_claims
from memtui.analysis.note_kinds import is_log, is_plan, is_superseded, says_done

_WIKILINK = re.compile(r"\[\[[^\][]*+\]\]")
_LINK_TARGET = re.compile(r"\[\[([^\][|#]*+)[^\][]*+\]\]")  # [[name|label]] and [[name#part]] link to `name`
RULE_CHARS = 500


def _opening(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


@dataclass(frozen=True)
class MemoryText:
    """What the comparison needs to know about one memory.

    Tokens are computed at once (candidate generation needs them for every memory); the cues are computed
    the first time a pair asks for them, so memories without a candidate partner never pay for them.
    """

    key: str
    title: str
    description: str
    rule: str
    how: str = field(repr=False)
    tokens: frozenset[str]
    subject: frozenset[str]
    """Tokens of the name and description: what the memory is about."""
    main: frozenset[str] = field(repr=False)
    """Tokens of the description and the rule."""
    cjk: bool
    date: str = ""
    """Newest date of the memory (ISO), to tell which one is newer."""
    body: str = field(default="", repr=False)
    """The whole body, split into claims when the memory meets a candidate partner."""
    links: frozenset[str] = frozenset()
    """Names of the memories its body links to (`[[user-duyet-stack]]`), lower case."""

    def links_to(self, other: MemoryText) -> bool:
        """Whether its body links to the other memory, by name or file name."""
        if not self.links:
            return False
        stem = other.key.rsplit("/", 1)[-1].removesuffix(".md").lower()
        return other.title.lower() in self.links or stem in self.links

    @cached_property
    def claims(self) -> tuple[Claim, ...]:
        """The statements it makes: description, sentences, bullets, table rows."""
        return split_claims(self.description, self.body)

    @cached_property
    def reason(self) -> frozenset[str]:
        """Tokens of the reason it gives (its **Why:** part), empty when it gives none."""
        return frozenset(t for t in tx.tokens(tx.sections(self.body)[1]) if len(t) > 1)

    @cached_property
    def superseded(self) -> str:
        """The marker when the memory says it is historical or superseded ("SUPERSEDED by ..."), else ""."""
        return is_superseded(self.title, self.description, self.body)

    @cached_property
    def defaults(self) -> dict[str, tuple[str, str]]:
        """Named settings whose default it states: value and the line stating it."""
        return memory_defaults(self.description, self.body)

    @cached_property
    def quantities(self) -> dict[str, tuple[str, str]]:
        """Quantities it gives a two-word name as current ("implicit wait" → "5s"): value and the line."""
        return named_quantities(self.description, self.body)

    @cached_property
    def kind_of_note(self) -> tuple[bool, bool, bool]:
        """(a plan, says it was delivered, a session log or handoff)."""
        return (
            is_plan(self.title, self.description),
            says_done(self.title, self.description),
            is_log(self.title, self.description),
        )

    @cached_property
    def name_tokens(self) -> frozenset[str]:
        """Tokens of its name, without the type prefix (`project_incident_redis_maxclients` → incident, redi...)."""
        words = _TYPE_PREFIX.sub("", _NAME_SEPARATORS.sub(" ", self.title).strip())
        return tx.token_set(words)

    @cached_property
    def folded(self) -> str:
        """Description and rule, case- and width-folded."""
        return tx.fold(self.description + " " + self.rule)

    @cached_property
    def negated(self) -> frozenset[str]:
        """Tokens in the scope of a negation in the description or rule."""
        return frozenset(cues.negated_tokens(self.description + " . " + self.rule))

    @cached_property
    def values(self) -> dict[str, frozenset[str]]:
        """Dates, URLs, numbers and e-mail addresses it states."""
        return cues.values(self.description + " " + self.rule)

    @cached_property
    def poles(self) -> frozenset[tuple[int, int]]:
        """(antonym pair, side) it takes."""
        return cues.poles(set(self.main) | set(tx.tokens(self.how)), self.folded + tx.fold(self.how), self.negated)

    @cached_property
    def flipped(self) -> frozenset[tuple[int, int]]:
        """Poles taken by negating the opposite word ("don't mock" takes the side of "real")."""
        return cues.poles(set(self.main & self.negated), "", self.negated)

    @cached_property
    def scope_words(self) -> frozenset[str]:
        """Words naming which part of the world the rule covers (staging, mobile, legacy...)."""
        found = frozenset(w for w in cues.SCOPE_ASCII if w in self.main)
        if self.cjk:
            found |= frozenset(w for w in cues.SCOPE_CJK if w in self.folded)
        return found

    @cached_property
    def change(self) -> tuple[str, ...]:
        """Change words it uses ("switched to", "no longer", 改为)."""
        return cues.change_words(self.folded)

    @cached_property
    def says_change(self) -> bool:
        """It uses a change word anywhere, its reason and how-to included."""
        return bool(cues.change_words(tx.fold(self.description + " " + self.body)))

    @cached_property
    def scope(self) -> tuple[str, ...]:
        """Scope phrases it uses ("only", "still", 仍然)."""
        return cues.scope_phrases(self.folded)


_NAME_SEPARATORS = re.compile(r"[_\-]+")
_TYPE_PREFIX = re.compile(r"^(?:user|feedback|project|reference)\b", re.IGNORECASE)


def prepare(key: str, title: str, description: str, body: str, date: str = "") -> MemoryText:
    """Normalise one memory for comparison."""
    links: frozenset[str] = frozenset()
    if "[[" in body:
        links = frozenset(m.group(1).strip().lower() for m in _LINK_TARGET.finditer(body))
        body = _WIKILINK.sub(" ", body)
    rule, _why, how = tx.sections(body)
    # The rule or fact leads a memory; long write-ups (session handoffs, architecture notes) would otherwise
    # share a word with everything, so only the opening of each part takes part in the comparison.
    rule, how = _opening(rule, RULE_CHARS), _opening(how, 300)
    name_words = _TYPE_PREFIX.sub("", _NAME_SEPARATORS.sub(" ", title).strip())
    described = tx.token_set(description)
    subject = tx.token_set(name_words) | described
    main = tx.token_set(rule) | described
    return MemoryText(
        key=key,
        title=title,
        description=description,
        rule=rule,
        how=how,
        tokens=main | subject,
        subject=subject,
        main=main,
        cjk=tx.has_cjk(description) or tx.has_cjk(rule),
        date=date,
        body=body,
        links=links,
    )
