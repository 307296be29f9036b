"""What the chat page and its fragments show: courses, suggestions, numbering and the question form."""

from __future__ import annotations

from typing import Any

from flask import render_template

from app.assistant.base import Exchange
from app.errors import AppError
from app.search.models import CourseRecord
from app.services import services, settings
from app.web.chat.history import History, save_history
from app.web.chat.tokens import advance_turn, current_turn

# Lessons listed per course in the sidebar; the course's outline page lists the rest.
SIDEBAR_LESSONS = 30


def suggested_questions(courses: list[CourseRecord]) -> list[str]:
    """A few questions that show what the assistant can do with the courses there are."""
    if not courses:
        return []
    first = courses[0]
    questions = [f"What lessons are in the {first.title} course?"]
    if first.lessons:
        lesson = first.lessons[1] if len(first.lessons) > 1 else first.lessons[0]
        questions.append(f"What does lesson {lesson.number} of {first.title} cover?")
    if len(courses) > 1:
        questions.append(f"Give me an outline of the {courses[1].title} course.")
    return questions


def render_page(history: History, form_error: str | None = None, form_value: str = "") -> str:
    """Render the whole chat page."""
    courses, courses_error = _courses()
    assistant = services().assistant
    return render_template(
        "chat/index.html",
        courses=courses,
        courses_error=courses_error,
        suggestions=suggested_questions(courses),
        sidebar_lessons=SIDEBAR_LESSONS,
        history=history,
        first_number=last_number(history) - len(history.exchanges) + 1,
        mode=assistant.mode,
        model=assistant.model,
        error=form_error,
        value=form_value,
        **form_context(),
    )


def _courses() -> tuple[list[CourseRecord], str | None]:
    """The indexed courses, or an empty list and the reason when the index cannot answer."""
    try:
        return services().index.courses(), None
    except AppError as exc:
        return [], exc.message


def last_number(history: History) -> int:
    """The number of the newest exchange, whose element id is exchange-N."""
    # Counted by commits, not by what the history keeps: a page still showing trimmed exchanges gets no
    # duplicate ids, and a new chat does not reuse anchors.
    return max(current_turn(), len(history.exchanges))


def store_exchange(exchange: Exchange, history: History) -> History:
    """Append an exchange to the stored history (spending every commit token issued so far)."""
    advance_turn()
    return save_history(history.add(exchange, settings().max_history))


def controls_context(pending: bool) -> dict[str, Any]:
    """What the question form and the suggestions need when sent out-of-band, `pending` or not."""
    return {"pending": pending, "suggestions": suggested_questions(_courses()[0]), **form_context()}


def form_context() -> dict[str, Any]:
    """What the question form needs."""
    config = settings()
    return {"max_chars": config.max_question_chars, "max_history": config.max_history}
