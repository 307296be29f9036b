"""What the chat page and its fragments show: courses, suggestions, conversations, the question form."""

from __future__ import annotations

from typing import Any

from flask import render_template

from app.errors import AppError
from app.search.models import CourseRecord
from app.services import services, settings
from app.store.records import ConversationSummary
from app.store.soft import StoreUnavailable
from app.web.chat.exchanges import ExchangeView
from app.web.session import browser_id

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


def render_page(
    exchanges: list[ExchangeView],
    conversation_id: str | None = None,
    trimmed: bool = False,
    form_error: str | None = None,
    form_value: str = "",
) -> str:
    """Render the whole chat page: one conversation (stored, or the cookie's), or a new, empty one."""
    courses, courses_error = _courses()
    assistant = services().assistant
    conversations, conversations_error = recent_conversations()
    return render_template(
        "chat/index.html",
        courses=courses,
        courses_error=courses_error,
        suggestions=suggested_questions(courses),
        sidebar_lessons=SIDEBAR_LESSONS,
        exchanges=exchanges,
        trimmed=trimmed,
        conversations=conversations,
        conversations_error=conversations_error,
        mode=assistant.mode,
        model=assistant.model,
        error=form_error,
        value=form_value,
        **form_context(conversation_id),
    )


def recent_conversations() -> tuple[list[ConversationSummary], str | None]:
    """This browser's stored conversations, newest first, or the reason they cannot be listed."""
    owner = browser_id(create=False)
    if not settings().store_conversations or owner is None:
        return [], None
    try:
        return services().store.conversations.recent(owner), None
    except StoreUnavailable as exc:
        return [], exc.message


def _courses() -> tuple[list[CourseRecord], str | None]:
    """The indexed courses, or an empty list and the reason when the index cannot answer."""
    try:
        return services().index.courses(), None
    except AppError as exc:
        return [], exc.message


def controls_context(pending: bool, conversation_id: str | None) -> dict[str, Any]:
    """What the question form and the suggestions need when sent out-of-band, `pending` or not."""
    return {
        "pending": pending,
        "suggestions": suggested_questions(_courses()[0]),
        **form_context(conversation_id),
    }


def form_context(conversation_id: str | None = None) -> dict[str, Any]:
    """What the question form needs, with the conversation a question continues (None: a new one)."""
    config = settings()
    return {
        "max_chars": config.max_question_chars,
        "max_history": config.max_history,
        "conversation_id": conversation_id or "",
        "stores_conversations": config.store_conversations,
    }
