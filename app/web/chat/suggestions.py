"""The questions the empty chat offers: one per lesson, asked different ways, each checked to be answered
from the lesson it names."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import NamedTuple

from app.assistant.extractive import ExtractiveAnswerer
from app.errors import AppError
from app.search.embedding import get_embedder
from app.search.models import CourseRecord, LessonInfo
from app.services import services, settings


class Suggestion(NamedTuple):
    """A question to offer, the course it is about (shown under it) and the lesson it names."""

    question: str
    course: str
    lesson: int | None = None


# Questions about one lesson, varied so the suggestions show different things the assistant can do.
LESSON_QUESTIONS = (
    "What is “{lesson}” about?",
    "What are the key points of lesson {number}, “{lesson}”?",
    "Explain the main idea of “{lesson}” with an example.",
    "Summarize “{lesson}” in a few sentences.",
)
MAX_SUGGESTIONS = 4
# Candidates checked at most, so a library whose lessons answer poorly costs a bounded first page.
MAX_CHECKED = 12
# Checked lists kept (one per library version and course space): older versions are dropped, not kept forever.
MAX_KEPT = 32


def course_question(course: CourseRecord) -> str:
    """The question behind a course's "Ask about this course"."""
    return f"What does the {course.title} course cover, lesson by lesson?"


def candidates(courses: list[CourseRecord]) -> Iterator[Suggestion]:
    """Lesson questions from different courses in turn, each course's lessons spread over it (not always its
    introduction), each asked a different way."""
    spread = [_spread(course.lessons) for course in courses]
    position = 0
    for round_ in range(max((len(lessons) for lessons in spread), default=0)):
        for course, lessons in zip(courses, spread, strict=True):
            if round_ >= len(lessons):
                continue
            lesson = lessons[round_]
            question = LESSON_QUESTIONS[position % len(LESSON_QUESTIONS)]
            position += 1
            yield Suggestion(
                question.format(lesson=lesson.title, number=lesson.number), course.title, lesson.number
            )


def _spread(lessons: list[LessonInfo]) -> list[LessonInfo]:
    """Every lesson once, from a third of the way in, alternating with the lesson half the course later."""
    count, order = len(lessons), []
    for step in range(count):
        for offset in (step, step + count // 2):
            index = (count // 3 + offset) % count
            if index not in order:
                order.append(index)
    return [lessons[index] for index in order]


def suggested_questions(
    courses: list[CourseRecord], cites: Callable[[Suggestion], bool] | None = None
) -> list[Suggestion]:
    """Up to four questions from different courses and lessons, each one whose answer `cites` the lesson it
    names (all, without a check); the first course's outline question when no lesson has one."""
    suggestions: list[Suggestion] = []
    for checked, suggestion in enumerate(candidates(courses)):
        if len(suggestions) == MAX_SUGGESTIONS or checked == MAX_CHECKED:
            break
        if (suggestion.course, suggestion.lesson) in {(s.course, s.lesson) for s in suggestions}:
            continue  # a lesson met again on a short course
        if cites is None or cites(suggestion):
            suggestions.append(suggestion)
    if not suggestions and courses:
        suggestions.append(Suggestion(course_question(courses[0]), courses[0].title))
    return suggestions


_checked: dict[tuple[object, ...], list[Suggestion]] = {}
_checking = threading.Lock()


def checked_suggestions(courses: list[CourseRecord]) -> list[Suggestion]:
    """The suggestions for these courses, each answered from its lesson; checked once per version of the
    library (its courses' content) and answering mode."""
    key = (settings().mode, *sorted((course.id, course.content_hash) for course in courses))
    with _checking:
        if key not in _checked:
            while len(_checked) >= MAX_KEPT:
                del _checked[next(iter(_checked))]  # the oldest: a version synced over long ago
            _checked[key] = suggested_questions(courses, _answer_check())
        return _checked[key]


def _answer_check() -> Callable[[Suggestion], bool]:
    """Whether a suggestion's answer cites its lesson: the extractive answer itself, or in Claude mode (whose
    answers cost a call) the passages its search tool would give the model for that question."""
    assistant = services().assistant
    config = settings()
    answerer = None
    if assistant.mode == "extractive":
        answerer = ExtractiveAnswerer(
            assistant.toolbox, get_embedder(config.embedding_model, config.embedding_cache_dir)
        )

    def cites(suggestion: Suggestion) -> bool:
        try:
            if answerer is not None:
                sources = answerer.answer(suggestion.question, []).sources
                cited = [(source.course_title, source.lesson_number) for source in sources]
            else:
                found = assistant.toolbox.index.search(suggestion.question, k=assistant.toolbox.max_results)
                cited = [(passage.course_title, passage.lesson_number) for passage in found]
        except AppError:
            return False
        return (suggestion.course, suggestion.lesson) in cited

    return cites
