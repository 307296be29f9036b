"""One word in another form: a query word the library never says, scored with the library's nouns of it.

A student asks with the verb ("how do cacti adapt to drought") where the lecture says the noun ("an adaptation
to drought"). The stem (`names.stem`) strips only "s" and "ing", so the question's term matches no passage and
keywords rank by its other words alone. Such a term is scored as one family with the nouns its word forms by
an ending the library says ("adapt": "adaptation"): its passages are those holding any form, its idf that of
their union, so the family weighs as the word does in the library. Only noun endings, and only for a term the
library never says. Not the base word a stem lost its silent e from ("retrieving": "retrieve"), nor an "-ed"
or "-al" form: measured on the sample library, such a form of a course's everyday word ("retrieve",
"retrieval") outweighed the question's topic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

import numpy as np

# Only a term of this many letters has forms: a short one is too often the start of another word.
MIN_FORM = 4
# Endings that make a noun of a verb ("react": "reaction", "inform": "information", "assess": "assessment").
ENDINGS = ("ion", "ation", "ment")


class TermCounts(Protocol):
    """What scoring a family reads of the library's keyword view (`lexical.LibraryView`)."""

    frequencies: Counter[str]
    norm: np.ndarray

    @property
    def size(self) -> int: ...

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]: ...

    def idf_of(self, holding: int) -> float: ...


def other_forms(term: str, said: Callable[[str], bool]) -> set[str]:
    """The nouns of a term's word that the library says, when it never says the term itself."""
    if not term.isalpha() or len(term) < MIN_FORM or said(term):
        return set()
    return {term + ending for ending in ENDINGS if said(term + ending)}


def families(terms: Iterable[str], said: Callable[[str], bool]) -> list[frozenset[str]]:
    """The query terms, each with its said other forms; two terms sharing a form are one family."""
    found: list[set[str]] = []
    for term in sorted(terms):
        family = {term} | other_forms(term, said)
        for other in [other for other in found if other & family]:
            family |= other
            found.remove(other)
        found.append(family)
    return [frozenset(family) for family in found]


def family_postings(view: TermCounts, family: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """The rows holding any form of the family, each with the count of all its forms there."""
    gathered = [view.postings(term) for term in sorted(family)]
    if len(gathered) == 1:
        return gathered[0]
    rows = np.concatenate([rows for rows, _ in gathered])
    counts = np.concatenate([counts for _, counts in gathered])
    unique, inverse = np.unique(rows, return_inverse=True)
    return unique, np.bincount(inverse, weights=counts)


def family_scores(view: TermCounts, terms: Iterable[str], k1: float) -> np.ndarray:
    """Okapi BM25 of every row of the view, each family of the query terms scored as one term (Lucene's
    idf over the rows holding any of its forms)."""
    total = np.zeros(view.size)
    for family in families(terms, lambda term: view.frequencies[term] > 0):
        rows, counts = family_postings(view, family)
        if len(rows):
            idf = view.idf_of(len(rows))
            total[rows] += idf * counts * (k1 + 1) / (counts + view.norm[rows])
    return total
