"""Words a student shortens that a course says in full ("backprop": "backpropagation", "hyperparam")."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

# A shortening this long or longer: shorter ones ("info", "stat") begin too many words to mean one.
MIN_SHORT = 5
# More words than this beginning with it: the shortening is ambiguous, and none is taken.
MOST = 3


def completions(term: str, terms: Sequence[str]) -> list[str]:
    """The longer `terms` (sorted) that begin with the stemmed `term`; none when the term is short or
    begins more than MOST of them."""
    if len(term) < MIN_SHORT or not term.isalpha():
        return []
    found: list[str] = []
    for other in terms[bisect_left(terms, term) :]:
        if not other.startswith(term):
            break
        if other != term:
            found.append(other)
        if len(found) > MOST:
            return []
    return found
