""" "What is X" questions and the sentences that define X ("X is …", "X (Y) is …", "X stands for …")."""

from __future__ import annotations

import re

from app.search.names import STOPWORDS, stem, tokens

DEFINITION_QUESTION_RE = re.compile(
    r"^\s*(?:what\s+(?:is|are)|what's|whats|define|definition\s+of|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# Stemmed, as the sentence's words are compared: "stands for", "means", "refers to", "describes".
DEFINING_VERBS = frozenset({"is", "are", "stand", "mean", "refer", "describe"})
# The term comes early (a definition starts with it), its verb right after (", or RAG," may come between).
TERM_WITHIN = 12
VERB_WITHIN = 5
# A term of more words than this is a question about something, not a name to define.
MAX_TERM_WORDS = 4


def defined_term(question: str) -> list[str] | None:
    """The stemmed words of the term a "what is X" question asks to define, or None."""
    match = DEFINITION_QUESTION_RE.match(question)
    if not match:
        return None
    words = [stem(word) for word in tokens(match.group(1)) if word.lower() not in STOPWORDS]
    return words if 0 < len(words) <= MAX_TERM_WORDS else None


def defines(sentence: str, term: list[str]) -> bool:
    """True when the sentence opens with the term and says what it is ("A fixture is a function …")."""
    words = [stem(word) for word in tokens(sentence)]
    last = next(
        (position for position, word in enumerate(words[:TERM_WITHIN]) if word == term[-1]),
        None,
    )
    if last is None or not set(term) <= set(words[: last + 1]):
        return False
    if DEFINING_VERBS & set(words[:last]):  # "The idea is that a fixture …": the term is not the subject
        return False
    return bool(DEFINING_VERBS & set(words[last + 1 : last + 1 + VERB_WITHIN]))
