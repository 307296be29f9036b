"""The chat blueprint: the page, asking a question, a new conversation, the theme switch."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for

from app.assistant.models import Exchange
from app.errors import AppError, BadRequest, NotFound
from app.extensions import ask_limit
from app.links import safe_url
from app.rules import question_problem
from app.search.models import CourseRecord
from app.services import services, settings
from app.web.chat_stream import chat_messages, failed_html
from app.web.history import History, clear_history, load_history, save_history
from app.web.htmx import is_htmx
from app.web.markdown import render_answer, render_markdown, source_anchor
from app.web.observability import record_answer
from app.web.redirects import safe_local_path
from app.web.sse import sse_message, sse_response
from app.web.stream_tokens import (
    TokenRefused,
    advance_turn,
    ask_token,
    current_turn,
    read_ask_token,
    read_commit_token,
)

bp = Blueprint("chat", __name__)

THEMES = ("auto", "light", "dark")
# Lessons listed per course in the sidebar; the course's outline page lists the rest.
SIDEBAR_LESSONS = 30


@bp.app_template_filter("markdown")
def markdown_filter(text: str):
    """Jinja filter: markdown to sanitized HTML."""
    return render_markdown(text)


@bp.app_template_filter("answer_html")
def answer_html_filter(exchange: Exchange):
    """Jinja filter: an exchange's answer as sanitized HTML, its citation markers linked to its sources."""
    return render_answer(exchange.answer, exchange.sources)


@bp.app_template_filter("source_anchor")
def source_anchor_filter(exchange: Exchange, number: int) -> str:
    """Jinja filter: the page id of an exchange's `number`-th source, where its markers link."""
    return source_anchor(exchange.answer, number)


@bp.app_template_filter("safe_url")
def safe_url_filter(url: str | None) -> str | None:
    """Jinja filter: the URL if it is a plain http(s) link, else None."""
    return safe_url(url)


@bp.app_context_processor
def inject_theme() -> dict:
    """Give every page the visitor's theme choice."""
    theme = session.get("theme")
    return {"theme": theme if theme in THEMES else "auto"}


@bp.get("/")
def index():
    """The chat page: courses, suggestions, the conversation so far and the question form."""
    return _page(load_history())


@bp.post("/ask")
@ask_limit
def ask():
    """Ask: for htmx the question at once with its answer streaming; else answer, store and redirect."""
    question = request.form.get("question", "").replace("\r\n", "\n").strip()
    # Checked here too, so the form can show the problem in place, keeping what was typed.
    problem = question_problem(question, settings().max_question_chars)
    if problem:
        if is_htmx():
            return render_template(
                "_ask_form.html", oob=True, error=problem, value=question, **_form_context()
            )
        return _page(load_history(), form_error=problem, form_value=question), 400

    history = load_history()
    if is_htmx():
        return render_template(
            "_ask_pending.html",
            question=question,
            number=last_number(history) + 1,
            stream_url=url_for(".stream", t=ask_token(question)),
            **_controls_context(pending=True),
        )
    # Without JavaScript: answer in this request. Errors (model down, index down) go to the one error
    # handler, which offers to ask again.
    answer = services().assistant.answer(question, history.for_model(settings().max_history))
    record_answer(answer)
    stored = _commit(Exchange(question=question, answer=answer.markdown, sources=answer.sources), history)
    # Land on the new exchange, not the top of the page.
    return redirect(url_for(".index", _anchor=f"exchange-{last_number(stored)}"), 303)


@bp.get("/ask/stream")
def stream():
    """The answer to a question posted before, as Server-Sent Events (see chat_stream.chat_messages)."""
    history = load_history()
    number = last_number(history) + 1
    form = _controls_context(pending=False)
    # An EventSource retries anything but a finished stream: refusals are a last message, not a 4xx.
    try:
        question = read_ask_token(request.args.get("t", ""))
    except TokenRefused:
        expired = BadRequest("This question has expired. Please ask it again.")
        return sse_response(iter([sse_message("done", failed_html(expired, "", number, form))]))
    try:
        events = services().assistant.stream(question, history.for_model(settings().max_history))
    except AppError as exc:  # e.g. MAX_QUESTION_CHARS lowered since the question was posted
        return sse_response(iter([sse_message("done", failed_html(exc, question, number, form))]))
    return sse_response(chat_messages(events, question, current_turn(), number, form))


@bp.post("/ask/commit")
def commit():
    """Store a streamed exchange in the history cookie, once; a tampered, expired or used token is refused."""
    try:
        exchange = read_commit_token(request.form.get("token"))
    except TokenRefused as exc:
        raise AppError(
            "This answer was not saved: it was saved already, or is too old.", detail=str(exc), status=409
        ) from exc
    stored = _commit(exchange, load_history())
    # The trim note may change with the new exchange; nothing else on the page does.
    return render_template("_history_note.html", oob=True, history=stored)


@bp.post("/new")
def new():
    """Start a new conversation."""
    clear_history()
    if not is_htmx():
        return redirect(url_for(".index"), 303)
    return render_template("_new_response.html", history=History())


@bp.post("/theme")
def theme():
    """Store the theme choice (auto, light or dark) and go back to the page it came from."""
    choice = request.form.get("theme", "")
    if choice not in THEMES:
        raise BadRequest("Choose auto, light or dark.")
    session["theme"] = choice
    return redirect(safe_local_path(request.form.get("next"), url_for(".index")), 303)


@bp.get("/courses/<course_id>")
def course(course_id: str):
    """A course's outline page: every lesson, linked."""
    record = services().index.get_course(course_id)
    if record is None:
        raise NotFound("There is no course at this address.")
    return render_template("course.html", course=record)


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


def _page(history: History, form_error: str | None = None, form_value: str = ""):
    """Render the whole chat page."""
    courses, courses_error = _courses()
    assistant = services().assistant
    return render_template(
        "chat.html",
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
        **_form_context(),
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


def _commit(exchange: Exchange, history: History) -> History:
    """Append an exchange to the stored history (spending every commit token issued so far)."""
    advance_turn()
    return save_history(history.add(exchange, settings().max_history))


def _controls_context(pending: bool) -> dict:
    """What the question form and the suggestions need when sent out-of-band, `pending` or not."""
    return {"pending": pending, "suggestions": suggested_questions(_courses()[0]), **_form_context()}


def _form_context() -> dict:
    """What the question form needs."""
    config = settings()
    return {"max_chars": config.max_question_chars, "max_history": config.max_history}
