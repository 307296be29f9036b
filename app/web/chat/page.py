"""What the chat page and its fragments show: courses, suggestions, conversations, the question form."""

from __future__ import annotations

from typing import Any

from flask import render_template, request

from app.assistant.base import Exchange, Source
from app.assistant.citations import MARKER
from app.search.models import CourseRecord
from app.services import services, settings
from app.store.records import ConversationSummary
from app.store.soft import StoreUnavailable
from app.web.chat.exchanges import ExchangeView
from app.web.chat.suggestions import Suggestion, checked_suggestions, course_question
from app.web.session import browser_id
from app.web.viewer import viewer, visible_courses

# Lessons listed per course in the sidebar; the course's outline page lists the rest.
SIDEBAR_LESSONS = 30


def current_suggestions() -> list[Suggestion]:
    """The suggestions for the courses indexed now (none while the index cannot answer)."""
    return page_suggestions(_courses()[0])


def page_suggestions(courses: list[CourseRecord]) -> list[Suggestion]:
    """The questions the viewer's course space suggests, else checked ones about the courses they read."""
    space = viewer().space
    if space is not None and space.settings.suggestions:
        return [Suggestion(question, space.name) for question in space.settings.suggestions]
    return checked_suggestions(courses)


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


def retrieved_only(exchange: Exchange | ExchangeView) -> set[int]:
    """The numbers of the sources an answer with citation markers never cites: retrieved, not used."""
    cited = {int(number) for number in MARKER.findall(exchange.answer)}
    return set(range(1, len(exchange.sources) + 1)) - cited if cited else set()


def version_ids(exchange: ExchangeView) -> list[int]:
    """The ids of a stored exchange's versions, oldest first (looked up when the view has none)."""
    if exchange.versions is not None:
        return exchange.versions
    if exchange.id is None or not settings().store_conversations:
        return []
    try:
        return services().store.conversations.versions(exchange.id)
    except StoreUnavailable:
        return []


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
