"""A follow-up pointing back with a definite article: "the gates" after an answer about LSTMs means its gates.

Such a question asks about a part of what was just answered, as "its gates" does, so its sentences are
quoted for its own words ("gates made of"), not pulled back to the previous topic ("what an LSTM is").
"""

from __future__ import annotations

import re

from app.language.tokens import stem, word_stems

# "the" and the two words after it (an adjective may come between: "the forget gate").
DEFINITE_RE = re.compile(r"\bthe\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", re.I)


def points_back(question: str, answer: str) -> bool:
    """True when the question says "the <word>" (or "the <adjective> <word>") of a word the previous answer
    said, a word of more than one letter."""
    said = word_stems(answer)
    # A single letter is a symbol of what was answered ("the usual k" after "k commonly set to 60"): the
    # question asks about that answer, not about a part of it (symbols.py).
    return any(
        stem(word) in said
        for match in DEFINITE_RE.finditer(question)
        for word in match.groups()
        if word and len(word) > 1
    )
