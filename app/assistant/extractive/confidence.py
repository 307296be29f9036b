"""How sure an extractive answer is that the library covers the question: the decline decision.

No fixed cosine carries over between libraries (long spoken chunks score higher against every question than
short written ones), but the share of the question's own words that the passages found hold does: a question
no course covers names a term the library never uses ("Shapley", "BERT"), while its generic words ("game",
"course") match anywhere. So the words are weighted by rarity (BM25's idf over the library): a missing rare
word costs more than a present common one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.search.models import Passage
from app.search.names import stem, tokens

# The passages whose words count: the first few of the ranking (the answer quotes from these).
COVER_PASSAGES = 3
# Below this confidence the answer declines. Fitted on the sample library (the midpoint between its highest
# declined no-coverage question, 0.23, and its lowest content question, 0.25), checked on the lecture set,
# where it declines 3 of 7 no-coverage questions by itself and no content question (the lecture set's own
# best cut, 0.28, would decline 1-2 sample content questions): see README, "make eval".
MIN_CONFIDENCE = 0.24


@dataclass(frozen=True)
class Signals:
    """The decline signals of one answer: the first passage's cosine and the rarity-weighted word share."""

    cosine: float
    coverage: float

    @property
    def confidence(self) -> float:
        """One figure in [0, 1]: the coverage, the signal that separates on both labelled libraries."""
        return round(self.coverage, 3)


def passage_words(passage: Passage) -> set[str]:
    """The stemmed words of a passage with its course and lesson titles (as the keyword index reads it)."""
    text = f"{passage.course_title} {passage.lesson_title or ''} {passage.text}"
    return {stem(token) for token in tokens(text)}


def coverage(words: list[str], rarity: dict[str, float], passages: list[Passage]) -> float:
    """The rarity-weighted share of the words found in the best of the first passages (1.0 for no words)."""
    total = sum(rarity.get(word, 0.0) for word in words)
    if not words or total <= 0:
        return 1.0
    best = 0.0
    for passage in passages[:COVER_PASSAGES]:
        held = passage_words(passage)
        best = max(best, sum(rarity.get(word, 0.0) for word in words if word in held) / total)
    return best


def signals(
    words: list[str], passages: list[Passage], rarity: Callable[[list[str]], dict[str, float]]
) -> Signals:
    """The signals of an answer drawn from `passages` for a question whose topic words are `words`."""
    unique = list(dict.fromkeys(words))
    cosine = passages[0].score if passages else 0.0
    return Signals(cosine=cosine, coverage=coverage(unique, rarity(unique), passages))
