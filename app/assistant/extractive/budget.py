"""Choose which candidate sentences an answer reads for meaning: embedding is most of an answer's time, so
only a few are read, and which ones decides whether the answering sentence can be found at all."""

from __future__ import annotations

import os

from app.assistant.extractive.sentences import is_question
from app.search.models import Passage

# Sentences embedded per answer.
MAX_EMBEDDED = 20
# Sentences read after one sharing a word with the topic (its answer often follows it), and before it.
AFTER = 2
BEFORE = 1

VARIANT = os.environ.get("BUDGET_VARIANT", "base")


def worth_reading(
    candidates: list[tuple[Passage, int, str]], shares: list[float], defining: list[bool], run: int
) -> list[int]:
    """The candidates to embed, by index: every sentence of the best passage, those sharing a word with the
    topic and their neighbours, the `run` after a definition of the subject, at most MAX_EMBEDDED."""
    first = candidates[0][0]
    reason: dict[int, float] = {}
    for i, (passage, _, _) in enumerate(candidates):
        if passage is first or shares[i] > 0:
            for j in _around(candidates, i, run if defining[i] else AFTER):
                reason[j] = max(reason.get(j, 0.0), shares[i])
    if VARIANT == "base":
        ranked = sorted(reason, key=lambda i: (candidates[i][0] is not first, -reason[i], i))
        return sorted(ranked[:MAX_EMBEDDED])
    # Diversity: after the best passage, each other passage's best statement with its neighbours, passages
    # nearest in meaning first, then the rest by share.
    spread: dict[int, int] = {}
    if VARIANT in ("div", "divlist", "divq"):
        seen: set[int] = set()
        others = [i for i in range(len(candidates)) if candidates[i][0] is not first and shares[i] > 0]
        if VARIANT == "divq":
            others.sort(key=lambda i: (is_question(candidates[i][2]), -shares[i], i))
        else:
            others.sort(key=lambda i: (-shares[i], is_question(candidates[i][2]), i))
        picks = []
        for i in others:
            key = id(candidates[i][0])
            if key not in seen:
                seen.add(key)
                picks.append(i)
        if VARIANT != "divlist":
            picks.sort(key=lambda i: -candidates[i][0].score)
        for order, i in enumerate(picks):
            for j in _around(candidates, i, run if defining[i] else AFTER):
                spread.setdefault(j, order)
    ranked = sorted(
        reason, key=lambda i: (candidates[i][0] is not first, i not in spread, spread.get(i, 0), -reason[i], i)
    )
    return sorted(ranked[:MAX_EMBEDDED])


def _around(candidates: list[tuple[Passage, int, str]], i: int, after: int) -> list[int]:
    """The candidate and its neighbours within its own passage."""
    passage = candidates[i][0]
    near = range(i - BEFORE, i + after)
    return [j for j in near if 0 <= j < len(candidates) and candidates[j][0] is passage]
