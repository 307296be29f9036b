"""A question whose passages come from two lessons alike: it may be about both, so it reads further.

A question about two things that is no comparison in form ("how did the potters take to the glazers'
new kilns?") is answered whole, and the search tool's five passages are shared between the two lessons. Each
lesson then holds fewer of the five places, and the passage that answers for one of them often ranks 6th to
10th, as a comparison half's does (`half_pool`). When another lesson's best passage comes as close as a
passage whose sentences an answer may quote beside its lead (`quotes.MAX_GAP`), the answer reads the next
best passages too, as a question asking for a fact does (`retrieve.wider`). A question asking what one
term is ("what is slip casting?") is about one thing: it reads the five, or a next passage's sentence that
merely sounds alike joins its definition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.assistant.extractive.quotes import MAX_GAP
from app.search.models import Passage

if TYPE_CHECKING:
    from app.assistant.extractive.intent import Plan


def about_two_lessons(plan: Plan, passages: list[Passage]) -> bool:
    """True when the plan may be about two lessons: it asks no term's definition, and its passages come
    from two lessons alike."""
    return plan.term is None and from_two_lessons(passages)


def from_two_lessons(passages: list[Passage]) -> bool:
    """True when the passages come from two lessons or more, the second's best within MAX_GAP of the
    first's."""
    best: dict[tuple[str, int], float] = {}
    for passage in passages:
        place = (passage.course_title, passage.lesson_number)
        best[place] = max(best.get(place, passage.score), passage.score)
    scores = sorted(best.values(), reverse=True)
    return len(scores) > 1 and scores[1] >= scores[0] - MAX_GAP
