"""The pieces of a question's contractions, which are no words to rank by ("aren't": "aren" and "t").

Words are split at the apostrophe, so "aren't" asks for passages saying "aren" and "t", and "what's" for
"s". In a transcript these pieces are said everywhere, but not evenly: "aren" is in one passage of fifty
and weighs by keywords as much as a topic word. A negation's head ("aren", "don", "isn") is dropped with
its tail; a name before "'s" ("Miller's") is kept.
"""

from __future__ import annotations

import re

from app.language.tokens import stem

# A word, an apostrophe (straight or curly) and a contraction's tail.
CONTRACTION_RE = re.compile(r"\b([A-Za-z]+)['\u2019](t|s|ll|re|ve|d|m)\b", re.IGNORECASE)


def contraction_terms(text: str) -> set[str]:
    """The stemmed pieces of the text's contractions that are no words of its own: every tail, and the
    head of a negation ("aren't": "aren", "t"; "Miller's": "s")."""
    found: set[str] = set()
    for head, tail in CONTRACTION_RE.findall(text):
        found.add(tail.lower())
        if tail.lower() == "t":
            found.add(stem(head))
    return found
