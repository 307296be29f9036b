"""Definitions: a sentence that says what a term is ("A fixture is …"), and what a question is about."""

from __future__ import annotations

from app.assistant.extractive.intent import MAX_TERM_WORDS, QUESTION_WORDS
from app.search.names import content_words, stem, tokens

# Stemmed, as the sentence's words are compared: "stands for", "means", "refers to", "describes".
DEFINING_VERBS = frozenset({"is", "are", "stand", "mean", "refer", "describe"})
# A term after one of these is in an indirect question ("we know what X is"), which defines nothing.
ASKING_WORDS = frozenset({"what", "how", "why", "which", "whether"})
# The term comes early (a definition starts with it), its verb right after (", or RAG," may come between).
TERM_WITHIN = 12
VERB_WITHIN = 5


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
    if ASKING_WORDS & set(words[:last]):  # "now that we know what a fixture is": a question, not an answer
        return False
    return bool(DEFINING_VERBS & set(words[last + 1 : last + 1 + VERB_WITHIN]))


def subject(topic: str) -> list[str] | None:
    """The stemmed words of what a question is about when it names a thing and asks nothing more of it
    ("How does HNSW work?"), in order; None for a question about something ("How do fixtures share …")."""
    words = list(dict.fromkeys(content_words(topic, QUESTION_WORDS)))
    return words if 0 < len(words) <= MAX_TERM_WORDS else None
