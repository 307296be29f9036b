"""What the chat page and its fragments show: courses, suggestions, conversations, the question form."""

from __future__ import annotations

from typing import Any, NamedTuple

from flask import render_template, request

from app.assistant.base import Exchange, Source
from app.assistant.citations import MARKER
from app.search.models import CourseRecord
from app.services import services, settings
from app.store.records import ConversationSummary
from app.store.soft import StoreUnavailable
from app.web.chat.exchanges import ExchangeView
from app.web.session import browser_id
from app.web.viewer import viewer, visible_courses

# Lessons listed per course in the sidebar; the course's outline page lists the rest.
SIDEBAR_LESSONS = 30


class Suggestion(NamedTuple):
    """A question to offer, and the course it is about (shown under it)."""

    question: str
    course: str


# Questions about one lesson, varied so the suggestions show different things the assistant can do.
LESSON_QUESTIONS = (
    "What is “{lesson}” about?",
    "What are the key points of lesson {number}, “{lesson}”?",
    "Explain the main idea of “{lesson}” with an example.",
    "Summarize “{lesson}” in a few sentences.",
)
MAX_SUGGESTIONS = 4


def suggested_questions(courses: list[CourseRecord]) -> list[Suggestion]:
    """Up to four questions from different courses and lessons, each asked a different way."""
    picks: list[tuple[CourseRecord, int]] = []
    for round_ in range(MAX_SUGGESTIONS):
        for course in courses:
            # The first pass takes one lesson a course, the next another lesson of each, and so on.
            if len(picks) < MAX_SUGGESTIONS and round_ < len(course.lessons):
                picks.append((course, round_))
    suggestions = []
    for position, (course, round_) in enumerate(picks):
        lessons = course.lessons
        # Spread over the course rather than always its first lessons (often an introduction).
        lesson = lessons[(len(lessons) // 3 + round_ * max(1, len(lessons) // 2)) % len(lessons)]
        question = LESSON_QUESTIONS[position % len(LESSON_QUESTIONS)]
        suggestions.append(
            Suggestion(question.format(lesson=lesson.title, number=lesson.number), course.title)
        )
    if not suggestions and courses:
        suggestions.append(Suggestion(course_question(courses[0]), courses[0].title))
    return suggestions


def current_suggestions() -> list[Suggestion]:
    """The suggestions for the courses indexed now (none while the index cannot answer)."""
    return page_suggestions(_courses()[0])


def page_suggestions(courses: list[CourseRecord]) -> list[Suggestion]:
    """The questions the viewer's course space suggests, else questions about the courses they read."""
    space = viewer().space
    if space is not None and space.settings.suggestions:
        return [Suggestion(question, space.name) for question in space.settings.suggestions]
    return suggested_questions(courses)


def course_question(course: CourseRecord) -> str:
    """The question behind a course's "Ask about this course"."""
    return f"What does the {course.title} course cover, lesson by lesson?"


FOLLOW_UPS = (
    "Can you explain “{lesson}” in more detail?",
    "What comes after lesson {number} of {course}?",
    "Give me an example from “{lesson}”.",
)


def follow_up_questions(exchange: Exchange | ExchangeView) -> list[str]:
    """Two or three next questions drawn from the lessons the answer cites."""
    cited = {int(number) for number in MARKER.findall(exchange.answer)}
    lessons: list[Source] = []
    for number, source in enumerate(exchange.sources, 1):
        if cited and number not in cited:
            continue
        key = (source.course_title, source.lesson_number)
        if source.lesson_title and all((s.course_title, s.lesson_number) != key for s in lessons):
            lessons.append(source)
    questions = []
    for position, template in enumerate(FOLLOW_UPS):
        if not lessons:
            break
        source = lessons[position % len(lessons)]
        if source.lesson_number is None and "{number}" in template:
            continue
        question = template.format(
            lesson=source.lesson_title, number=source.lesson_number, course=source.course_title
        )
        if question != exchange.question:
            questions.append(question)
    return questions[:3] if len(questions) >= 2 else []


def is_touch_device() -> bool:
    """True for a phone or tablet, where focusing the question box raises the keyboard over the answer."""
    # Chromium sends Sec-CH-UA-Mobile on every request; the user agent covers the other browsers.
    agent = request.headers.get("User-Agent", "")
    return request.headers.get("Sec-CH-UA-Mobile") == "?1" or any(
        word in agent for word in ("Mobi", "Android", "iPhone", "iPad")
    )


def render_page(
    exchanges: list[ExchangeView],
    conversation_id: str | None = None,
    trimmed: bool = False,
    form_error: str | None = None,
    form_value: str = "",
    pending: bool = False,
) -> str:
    """Render the whole chat page: one conversation (stored, or the cookie's), or a new, empty one."""
    courses, courses_error = _courses()
    conversations, conversations_error = recent_conversations()
    return render_template(
        "chat/index.html",
        courses=courses,
        courses_error=courses_error,
        suggestions=page_suggestions(courses),
        space=viewer().space,
        staff=viewer().role == "staff",
        sign_in=settings().oidc_enabled and not viewer().signed_in,
        course_question=course_question,
        sidebar_lessons=SIDEBAR_LESSONS,
        exchanges=exchanges,
        trimmed=trimmed,
        conversations=conversations,
        conversations_error=conversations_error,
        mode=services().assistant.mode,
        model_name=settings().model_name,
        error=form_error,
        value=form_value,
        pending=pending,  # an answer on the page is still being made: Send waits for it
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
    return visible_courses()


def controls_context(pending: bool, conversation_id: str | None) -> dict[str, Any]:
    """What the question form needs when sent out-of-band, `pending` or not."""
    return {"pending": pending, **form_context(conversation_id)}


def form_context(conversation_id: str | None = None) -> dict[str, Any]:
    """What the question form needs, with the conversation a question continues (None: a new one)."""
    config = settings()
    return {
        "max_chars": config.max_question_chars,
        "max_history": config.max_history,
        "conversation_id": conversation_id or "",
        "stores_conversations": config.store_conversations,
        "autofocus_ok": not is_touch_device(),
    }
