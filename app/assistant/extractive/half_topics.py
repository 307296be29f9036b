"""A comparison half that only says where to look ("… vs what the pottery course says") asks the other
half's question there.

Split at its joining word, "what does the baking course say about glazes vs what the pottery course says"
leaves its second half no topic of its own, only the course it names. Such a half is no reason to answer
the question whole (where neither course's passage need come first): it takes the other half's topic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.assistant.extractive.intent import Plan


def names_only(half: Plan) -> bool:
    """True for a half that names a course or lesson and asks nothing of its own."""
    return half.overview and not half.course_error and (half.course is not None or half.lesson is not None)


def shared_topics(halves: tuple[Plan, ...]) -> tuple[Plan, ...]:
    """The halves, one that only names where to look taking the other's topic (the other asks something)."""
    return tuple(
        replace(half, topic=other.topic) if names_only(half) and not other.overview else half
        for half, other in zip(halves, halves[::-1], strict=True)
    )
