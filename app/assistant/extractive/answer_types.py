"""Answer-type matching: what kind of fact a question asks for (a person, a time, a number) and whether a
sentence holds one. A sentence that holds the asked kind of fact is a likelier answer than one that only
shares the question's words ("who thought of it?" is answered by the sentence naming someone)."""

from __future__ import annotations

import re

from app.assistant.extractive.fitted import fitted
from app.language.tokens import content_words, stem
from app.search.models import Passage

PERSON = "person"
TIME = "time"
NUMBER = "number"

# What a sentence of the asked kind gains in rank score (fitted by `python -m bench.fit`).
BONUS = fitted("BONUS")

# Words that say what someone is: a question asking "which philosopher" asks for a person, and a sentence
# saying one names a person even when captions spell the name lower-case ("a French physicist called cue
# re").
_ROLE_WORDS = (
    r"economist|psychologist|scientist|researcher|philosopher|mathematician|physicist|physician|"
    r"biologist|neuroscientist|inventor|professor|student|colleague|author|engineer"
)
# The question word opens the question, after a conjunction a follow-up may start with ("and who …?").
_OPENING = r"^\s*(?:(?:and|so|but|ok|okay|then)\s*,?\s+)?"
_ASKS = {
    # "which philosopher ...?" asks for a person as "who ...?" does ("what researchers found" need not).
    PERSON: re.compile(
        _OPENING + r"(?:who|whom|whose)\b|\bby whom\b|\bwhich (?:person|people|" + _ROLE_WORDS + r")s?\b",
        re.I,
    ),
    TIME: re.compile(_OPENING + r"when\b|\b(?:what|which) (?:year|decade|century|date|time period)\b", re.I),
    NUMBER: re.compile(
        r"\bhow (?:many|much|common|often|frequent|likely|long|big|large|old|far)\b"
        r"|\b(?:what|which) (?:percentage|percent|proportion|fraction|share|number|ratio|amount)\b",
        re.I,
    ),
}

_ROLES = re.compile(r"\b(?:" + _ROLE_WORDS + r")s?\b", re.I)
# A capitalised word that is no name: the pronoun I and its contractions, titles of address aside.
_NOT_NAMES = {"i", "i'm", "i've", "i'll", "i'd", "ok", "okay", "oh", "um", "uh", "yeah", "so", "and", "but"}
# Capitalised only: "may" and "march" are verbs as often as months.
_MONTHS = (
    r"January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
)
_TIME = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\b[0-9]0s\b|\b(?i:century|centuries|decade|decades|ago)\b"
    r"|\b(?:" + _MONTHS + r")\b"
)
_NUMBER = re.compile(
    r"[0-9]|%|\b(?:percent|per cent|half|quarter|twice|dozen|hundred|hundreds|thousand|thousands|"
    r"million|millions|billion|billions|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def asked_type(question: str) -> str | None:
    """The kind of fact the question asks for (PERSON, TIME or NUMBER), or None."""
    for kind, pattern in _ASKS.items():
        if pattern.search(question):
            return kind
    return None


def holds(kind: str, sentence: str, known: set[str]) -> bool:
    """True when the sentence holds a fact of the kind; `known` are the stemmed words of the question and
    of the passage's titles, which name what is asked about rather than the answer."""
    if kind == TIME:
        return bool(_TIME.search(sentence))
    if kind == NUMBER:
        return bool(_NUMBER.search(sentence))
    return _new_role(sentence, known) or _names(sentence, known)


def holds_kind(kind: str | None, topic: str, passage: Passage, sentence: str) -> bool:
    """True when a sentence of the passage holds the kind of fact the topic asks for."""
    if kind is None:
        return False
    # The question's and the titles' words name what is asked about ("Pasteur" in the Pasteur lecture).
    known = set(content_words(f"{topic} {passage.course_title} {passage.lesson_title}"))
    return holds(kind, sentence, known)


def bonus(kind: str | None, topic: str, passage: Passage, sentence: str) -> float:
    """What a sentence of the passage gains for holding the kind of fact the topic asks for: BONUS or 0."""
    return BONUS if holds_kind(kind, topic, passage, sentence) else 0.0


def _new_role(sentence: str, known: set[str]) -> bool:
    """True when the sentence says what someone is, in a word the question did not ask with: "the
    philosopher" answers "who ...?", not "which philosopher ...?" (any sentence on philosophers echoes it)."""
    return any(stem(match.group()) not in known for match in _ROLES.finditer(sentence))


def _names(sentence: str, known: set[str]) -> bool:
    """True when a capitalised word inside the sentence (not its first) is new: likely a name."""
    words = _WORD.findall(sentence)
    for word in words[1:]:
        stems = set(content_words(word))
        if word[0].isupper() and word.lower() not in _NOT_NAMES and stems and not stems & known:
            return True
    return False
