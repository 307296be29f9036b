"""A follow-up that says only a few words of its own ("is a bigger pot fine?" after a question on repotting
ferns) may leave its subject out: the previous question's.

It is answered from its own words first: "and what is blind baking?" after a question on pastry faults
asks about blind baking, and the previous words would pull the search back to what was just answered. Only
when its own words find nothing is it asked again with the previous question's words, and only when the
library says every word of its own: a short follow-up naming something no course says ("and blender?")
asks about that thing, which the previous topic's passages would answer wrongly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from app.assistant.base import Exchange
from app.assistant.extractive.intent import FEW_WORDS, Plan, carried_words, plan_of
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words, stem

if TYPE_CHECKING:
    from app.search.index import CourseIndex


def elliptical(own: list[str], index: CourseIndex) -> bool:
    """True when a follow-up's own content words are few (some, at most FEW_WORDS) and all said by the
    library."""
    stems = list(dict.fromkeys(stem(word) for word in own))
    return 0 < len(stems) <= FEW_WORDS and index.held(stems) == set(stems)


def with_subject(plan: Plan, previous: Exchange, index: CourseIndex) -> Plan | None:
    """The plan of a follow-up that left its subject out, with the previous question's words; None for any
    other question (a comparison, one naming its lesson, one already carrying words on, one whose own
    words are many or unsaid)."""
    if plan.halves is not None or plan.context or plan.lesson is not None or plan.outline or not plan.near:
        return None
    own = content_words(plan.topic, NO_TOPIC_WORDS)
    if not elliptical(own, index):
        return None
    context = carried_words(own, plan_of(previous.question, index).topic)
    return replace(plan, context=context) if context else None
