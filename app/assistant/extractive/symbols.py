"""A one-letter symbol a follow-up asks about that the previous answer used ("k", "n", "x").

A symbol is no content word (a single letter says nothing alone), so "what's the usual k?" looks as if it
had no topic; yet after an answer that said "with k commonly set to 60" it plainly asks about that answer.
"""

from __future__ import annotations

from app.language.lexicon import FUNCTION_WORDS
from app.language.tokens import tokens


def symbols(text: str) -> set[str]:
    """The single letters a text writes as words of their own, other than the words "a" and "I"."""
    return {word.lower() for word in tokens(text) if len(word) == 1 and word.isalpha()} - FUNCTION_WORDS


def asks_symbol_of(question: str, answer: str) -> bool:
    """True when the question asks about a one-letter symbol the answer writes as a word of its own."""
    return bool(symbols(question) & symbols(answer))
