"""Choose which candidate sentences an answer reads for meaning: embedding is most of an answer's time, so
only a few are read, and which ones decides whether the answering sentence can be found at all."""

from __future__ import annotations

from app.search.models import Passage

# Sentences embedded per answer.
MAX_EMBEDDED = 20
# Around a sentence that shares a word with the topic, its neighbours are read too (its answer often
# follows it): this many before it, and this many after it counting itself.
BEFORE = 1
AFTER = 2


def worth_reading(
    candidates: list[tuple[Passage, int, str]], shares: list[float], defining: list[bool], run: int
) -> list[int]:
    """The candidates to embed, by index: every sentence of the best passage, those sharing a word with the
    topic and their neighbours, the `run` after a definition of the subject, at most MAX_EMBEDDED.

    Candidates are listed passage by passage, best passage first: after the best passage's, the higher
    share goes first, and between equal shares the earlier passage.
    """
    first = candidates[0][0]
    reason: dict[int, float] = {}
    for i, (passage, _, _) in enumerate(candidates):
        if passage is first or shares[i] > 0:
            # A definition is judged with what follows it (see `quotes.lead`): that run is read whole.
            for j in _around(candidates, i, run if defining[i] else AFTER):
                reason[j] = max(reason.get(j, 0.0), shares[i])
    ranked = sorted(reason, key=lambda i: (candidates[i][0] is not first, -reason[i], i))
    return sorted(ranked[:MAX_EMBEDDED])


def _around(candidates: list[tuple[Passage, int, str]], i: int, after: int) -> list[int]:
    """The candidate and its neighbours within its own passage."""
    passage = candidates[i][0]
    return [
        j for j in range(i - BEFORE, i + after) if 0 <= j < len(candidates) and candidates[j][0] is passage
    ]
