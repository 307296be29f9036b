"""How sure an extractive answer is that the library covers the question: the decline decision.

No fixed cosine carries over between libraries (long spoken chunks score higher against every question than
short written ones), but the share of the question's own words that the first passage holds does, once each
word is weighted by how much it says. A question no course covers names a term the library never uses
("Shapley", "BERT") while its generic words ("game", "course", "explain") match anywhere. Two weights,
multiplied, find the term:
- rarity in the library (BM25's idf): "Shapley" weighs more than "game";
- meaning: how far the question's vector moves when the word is left out. A rare but idle word ("being",
  "twice", "geographically") barely moves it, the topic moves it most. Rarity alone overweights such words
  in a small library, where every generic word is rare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.search.embedding.protocol import Embedder
from app.search.models import Passage
from app.search.names import stem, tokens

# The passages whose words count: the first of the ranking, which the answer's lead usually quotes (the best
# of the first three let a passage that merely shares the generic words stand in for the answer).
COVER_PASSAGES = 1
# Below this confidence the answer declines. Fitted on the sample library (between its highest no-coverage
# question, 0.14, and its lowest content question, 0.18), checked on the lecture set: see README, "make eval".
MIN_CONFIDENCE = 0.16


@dataclass(frozen=True)
class Signals:
    """The decline signals of one answer: the first passage's cosine and the weighted word share."""

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


def meaning_weights(text: str, words: list[str], embedder: Embedder) -> dict[str, float]:
    """How much each (stemmed) word carries the text's meaning: 1 - the cosine of the text without it."""
    written = tokens(text)
    variants = [" ".join(token for token in written if stem(token) != word) for word in words]
    # Embedded as queries: the embedder keeps those, so a question asked again costs nothing.
    whole = np.asarray(embedder.embed_query(" ".join(written)), dtype=np.float32)
    moved = [1.0 - float(np.dot(embedder.embed_query(variant), whole)) for variant in variants]
    return {word: max(0.0, distance) for word, distance in zip(words, moved, strict=True)}


def coverage(words: list[str], weights: dict[str, float], passages: list[Passage]) -> float:
    """The weighted share of the words found in the best of the first passages (1.0 for no words)."""
    total = sum(weights.get(word, 0.0) for word in words)
    if not words or total <= 0:
        return 1.0
    best = 0.0
    for passage in passages[:COVER_PASSAGES]:
        held = passage_words(passage)
        best = max(best, sum(weights.get(word, 0.0) for word in words if word in held) / total)
    return best


def signals(
    text: str,
    words: list[str],
    passages: list[Passage],
    rarity: Callable[[list[str]], dict[str, float]],
    embedder: Embedder,
) -> Signals:
    """The signals of an answer drawn from `passages` for a question `text` whose topic words are `words`."""
    unique = list(dict.fromkeys(words))
    cosine = passages[0].score if passages else 0.0
    if not unique or not passages:
        return Signals(cosine=cosine, coverage=1.0 if not unique else 0.0)
    rare = rarity(unique)
    meaning = meaning_weights(text, unique, embedder)
    weights = {word: meaning[word] * rare.get(word, 0.0) for word in unique}
    return Signals(cosine=cosine, coverage=coverage(unique, weights, passages))
