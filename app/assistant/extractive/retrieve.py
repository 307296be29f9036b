"""Retrieve, the pipeline's second step: the passages or the outline a plan asks for, through the same
tools Claude calls (so both modes search, resolve and report a missing course alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.assistant.extractive.answer_types import asked_type
from app.assistant.tools import OUTLINE_TOOL, SEARCH_TOOL, ToolBox, ToolResult
from app.search.models import CourseRecord, Passage

if TYPE_CHECKING:
    from app.assistant.extractive.intent import Plan
    from app.search.index import CourseIndex

# An answer reads the index's this many best passages, the search tool's among them: the sentence that
# answers is often said in a passage that matches the question's words less well than the ones around it (a
# name or a figure, one of two lessons a question is about, a follow-up's point), and the sentence scorer,
# not the passage's rank, decides what is quoted.
WIDER = 10


def search(toolbox: ToolBox, query: str, course: CourseRecord | None, lesson: int | None) -> ToolResult:
    """The passages for a query, within the course and the lesson when given."""
    arguments = {"query": query, "course_name": course.title if course else None, "lesson_number": lesson}
    return toolbox.run(SEARCH_TOOL, arguments)


def search_query(plan: Plan) -> str:
    """The plan's topic; for a question naming only a course or lesson, that lesson's or course's title."""
    if not plan.overview:
        return plan.query
    if plan.course is not None:
        titles = {lesson.number: lesson.title for lesson in plan.course.lessons}
        return titles.get(plan.lesson, plan.course.title) if plan.lesson is not None else plan.course.title
    return plan.topic or "overview"


def course_outline(toolbox: ToolBox, course: CourseRecord) -> ToolResult:
    """A course's outline."""
    return toolbox.run(OUTLINE_TOOL, {"course_name": course.title})


def wider(index: CourseIndex, plan: Plan, query: str, passages: list[Passage]) -> list[Passage]:
    """The passages found, then the rest of the WIDER best of its course or lesson; a question asking what
    one term is reads only those found, unless it asks for a fact.

    Straight from the index, not the search tool: the tool returns MAX_RESULTS passages, this reads more.
    """
    if not passages or (plan.term is not None and asked_type(plan.quoted_for) is None):
        # A definition is said where the term is; a further passage's sentence that merely sounds like the
        # term ("the glaze's colour" for "what is a glaze kiln?") would join it.
        return passages
    course = plan.course.title if plan.course is not None else None
    lesson = plan.lesson
    lessons = {found.lesson_number for found in passages}
    if lesson is None and len(lessons) == 1 and lessons <= set(plan.near):
        # A follow-up answered from one of the lessons just quoted reads more of that lesson.
        lesson = passages[0].lesson_number
    return passages + next_best(index, query, course, lesson, passages, WIDER)


def next_best(
    index: CourseIndex, query: str, course: str | None, lesson: int | None, found: list[Passage], k: int
) -> list[Passage]:
    """The index's k best passages for the query in the course and lesson (when given) that are not among
    those `found`: more than the search tool returns, straight from the index."""
    seen = {passage.place for passage in found}
    return [
        passage
        for passage in index.search(query, course=course, lesson=lesson, k=k)
        if passage.place not in seen
    ]
