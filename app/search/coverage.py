"""How much of a question the keyword index can see: the share of its word weight the library says.

A question reworded in words the courses never say ("UK" where a lecture says "England", "unsolved" where
it says "open") leaves BM25 ranking by the question's everyday words alone ("happening", "list"); the
fusion then weighs keywords by this share, so such a question is ranked by meaning.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from app.language.lexicon import FUNCTION_WORDS
from app.language.tokens import stem, tokens
from app.search.catalog import CatalogSnapshot
from app.search.spelling import Speller
from app.search.variants import variants


class WordCounts(Protocol):
    """What coverage reads of the library's keyword view (`lexical.LibraryView`)."""

    frequencies: Counter[str]

    @property
    def speller(self) -> Speller: ...

    def idf(self, term: str) -> float: ...

    def written_otherwise(self, text: str, vocabulary: frozenset[str]) -> set[str]: ...


def catalog_words(library: CatalogSnapshot) -> frozenset[str]:
    """The lower-cased words of the courses' titles and instructors, which name a course."""
    return frozenset(
        word.lower()
        for entry in library.entries
        for word in tokens(f"{entry.record.title} {entry.record.instructor or ''}")
    )


def covered(view: WordCounts, text: str, vocabulary: frozenset[str], named: frozenset[str]) -> float:
    """The share of the text's word weight (idf) that the library says in some spelling, 1.0 when it says
    every word. Said: as written or stemmed, in another form (`variants`), as two words, or misspelled
    (the speller corrects it to a library word); and the `named` words, which name a course (its title or
    instructor, often never said in its transcripts) rather than ask about its content."""

    def said(term: str) -> bool:
        return view.frequencies[term] > 0

    held = total = 0.0
    for word in tokens(text):
        if word.lower() in FUNCTION_WORDS:
            continue
        term = stem(word)
        weight = view.idf(term)
        total += weight
        if (
            said(term)
            or word.lower() in named
            or variants([term], said)
            or view.written_otherwise(word, vocabulary)
            or view.speller.correct(word, vocabulary) is not None
        ):
            held += weight
    return held / total if total else 1.0
