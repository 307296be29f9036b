"""The chat's routes: the page, asking a question, committing a streamed answer, a new chat, the theme."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for

from app.assistant.base import Exchange
from app.errors import AppError, BadRequest, Conflict, NotFound
from app.extensions import ask_limit
from app.rules import question_problem
from app.services import services, settings
from app.web.chat.history import History, clear_history, load_history
from app.web.chat.page import (
    controls_context,
    current_suggestions,
    follow_up_questions,
    form_context,
    last_number,
    render_page,
    store_exchange,
)
from app.web.chat.stream import ChatAnswer, failed_html
from app.web.chat.tokens import TokenRefused, ask_token, current_turn, read_ask_token, read_commit_token
from app.web.htmx import is_htmx
from app.web.observability import record_answer
from app.web.redirects import safe_local_path
from app.web.session import THEME_KEY
from app.web.sse import answer_messages, sse_message, sse_response
from app.web.templating import THEMES

bp = Blueprint("chat", __name__)
bp.add_app_template_filter(follow_up_questions, "follow_ups")


@bp.get("/")
def index():
    """The chat page: courses, suggestions, the conversation so far and the question form."""
    return render_page(load_history())


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
                "chat/_ask_form.html", oob=True, error=problem, value=question, **form_context()
            )
        return render_page(load_history(), form_error=problem, form_value=question), 400

    history = load_history()
    if is_htmx():
        return render_template(
            "chat/_ask_pending.html",
            question=question,
            number=last_number(history) + 1,
            stream_url=url_for(".stream", t=ask_token(question)),
            **controls_context(pending=True),
        )
    # Without JavaScript: answer in this request. Errors (model down, index down) go to the one error
    # handler, which offers to ask again.
    answer = services().assistant.answer(question, history.for_model(settings().max_history))
    record_answer(answer)
    exchange = Exchange(question=question, answer=answer.markdown, sources=answer.sources)
    stored = store_exchange(exchange, history)
    # Land on the new exchange, not the top of the page.
    return redirect(url_for(".index", _anchor=f"exchange-{last_number(stored)}"), 303)


@bp.get("/ask/stream")
def stream():
    """The answer to a question posted before, as Server-Sent Events (see chat/stream.py)."""
    history = load_history()
    number = last_number(history) + 1
    form = controls_context(pending=False)
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
    face = ChatAnswer(question, current_turn(), number, form)
    return sse_response(answer_messages(events, face))


@bp.post("/ask/commit")
def commit():
    """Store a streamed exchange in the history cookie, once; a tampered, expired or used token is refused."""
    try:
        exchange = read_commit_token(request.form.get("token"))
    except TokenRefused as exc:
        raise Conflict(
            "This answer was not saved: it was saved already, or is too old.", detail=str(exc)
        ) from exc
    stored = store_exchange(exchange, load_history())
    # The trim note may change with the new exchange; nothing else on the page does.
    return render_template("chat/_history_note.html", oob=True, history=stored)


@bp.post("/new")
def new():
    """Start a new conversation."""
    clear_history()
    if not is_htmx():
        return redirect(url_for(".index"), 303)
    return render_template("chat/_new_response.html", history=History(), suggestions=current_suggestions())


@bp.post("/theme")
def theme():
    """Store the theme choice (auto, light or dark) and go back to the page it came from."""
    choice = request.form.get("theme", "")
    if choice not in THEMES:
        raise BadRequest("Choose auto, light or dark.")
    session[THEME_KEY] = choice
    if is_htmx():
        # In place: the page keeps its scroll position and any answer still streaming.
        return render_template("_theme_response.html", theme=choice)
    return redirect(safe_local_path(request.form.get("next"), url_for(".index")), 303)


@bp.get("/courses/<course_id>")
def course(course_id: str):
    """A course's outline page: every lesson, linked."""
    record = services().index.get_course(course_id)
    if record is None:
        raise NotFound("There is no course at this address.")
    return render_template("chat/course.html", course=record)
