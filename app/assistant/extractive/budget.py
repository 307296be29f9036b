"""Choose which candidate sentences an answer reads for meaning: embedding is most of an answer's time, so
only a few are read, and which ones decides whether the answering sentence can be found at all."""

from __future__ import annotations

from app.assistant.extractive.sentences import is_question
from app.search.models import Passage

# Sentences embedded per answer.
MAX_EMBEDDED = 20
# Around a sentence that shares a word with the topic, its neighbours are read too (its answer often
# follows it): this many before it, and this many after it counting itself.
BEFORE = 1
AFTER = 2


def worth_reading(
    candidates: list[tuple[Passage, int, str]],
    shares: list[float],
    defining: list[bool],
    run: int,
    reading: int = MAX_EMBEDDED,
) -> list[int]:
    """The candidates to embed, by index: every sentence of the best passage, those sharing a word with the
    topic and their neighbours, the `run` after a definition of the subject, at most `reading`.

    Candidates are listed passage by passage, best passage first: after the best passage's, the higher
    share goes first, and between equal shares the earlier passage. The passage nearest in meaning is read
    at least once: where a lecture says the topic's word in many sentences, equal shares let passages listed
    earlier take every place, and a sentence's rank counts its passage's closeness (see `quotes`).
    """
    first = candidates[0][0]
    reason: dict[int, float] = {}
    for i, (passage, _, _) in enumerate(candidates):
        if passage is first or shares[i] > 0:
            # A definition is judged with what follows it (see `quotes.lead`): that run is read whole.
            for j in _around(candidates, i, run if defining[i] else AFTER):
                reason[j] = max(reason.get(j, 0.0), shares[i])
    ranked = sorted(reason, key=lambda i: (candidates[i][0] is not first, -reason[i], i))
    unread = _unread_nearest(candidates, shares, ranked[:reading])
    if unread is not None:
        extra = set(_around(candidates, unread, run if defining[unread] else AFTER))
        ranked = sorted(reason, key=lambda i: (candidates[i][0] is not first, i not in extra, -reason[i], i))
    return sorted(ranked[:reading])


def _unread_nearest(
    candidates: list[tuple[Passage, int, str]], shares: list[float], read: list[int]
) -> int | None:
    """The sentence saying most of the topic in the passage nearest in meaning, a statement before a
    question, when nothing of that passage is read; None when something is, or it says no word."""
    nearest = max((passage for passage, _, _ in candidates), key=lambda passage: passage.score)
    if any(candidates[i][0] is nearest for i in read):
        return None
    saying = [i for i, (passage, _, _) in enumerate(candidates) if passage is nearest and shares[i] > 0]
    return min(saying, key=lambda i: (-shares[i], is_question(candidates[i][2]), i), default=None)


def _around(candidates: list[tuple[Passage, int, str]], i: int, after: int) -> list[int]:
    """The candidate and its neighbours within its own passage."""
    passage = candidates[i][0]
    return [
        j for j in range(i - BEFORE, i + after) if 0 <= j < len(candidates) and candidates[j][0] is passage
    ]
