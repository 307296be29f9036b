"""The chat's pages and asking: a new chat, a stored conversation, a question, the theme, course outlines."""

from __future__ import annotations

from flask import Blueprint, make_response, redirect, render_template, request, session, url_for

from app.assistant.base import Exchange
from app.assistant.service import final_answer
from app.errors import AppError, BadRequest, NotFound
from app.extensions import ask_limit
from app.rules import question_problem, typed
from app.services import services, settings
from app.store.models import new_id
from app.web.chat.asking import Asked, begin, finish, gone, model_memory, remember, stores, transcript
from app.web.chat.exchanges import ExchangeView, from_memory, from_versions
from app.web.chat.follow import attach_running
from app.web.chat.history import History, clear_history, load_memory
from app.web.chat.page import (
    controls_context,
    current_suggestions,
    follow_up_questions,
    form_context,
    recent_conversations,
    render_page,
    retrieved_only,
    version_ids,
)
from app.web.chat.run import start_run
from app.web.chat.stream import error_html, finished_html
from app.web.chat.tokens import current_turn
from app.web.htmx import is_htmx
from app.web.observability import record_answer
from app.web.question_log import logged
from app.web.redirects import safe_local_path
from app.web.session import THEME_KEY, browser_id
from app.web.stream_slots import TooManyStreams, claim_stream_slot
from app.web.templating import THEMES
from app.web.viewer import viewer, visible_index

bp = Blueprint("chat", __name__)
bp.add_app_template_filter(follow_up_questions, "follow_ups")
bp.add_app_template_filter(version_ids, "version_ids")
bp.add_app_template_filter(retrieved_only, "retrieved_only")


@bp.get("/")
def index():
    """A new chat; the cookie-only conversation when conversations are not stored (or were not, while the
    database was down)."""
    history = load_memory(None)
    return render_page(_cookie_views(history), trimmed=history.trimmed)


@bp.get("/c/<conversation_id>")
def conversation(conversation_id: str):
    """One stored conversation, only for the browser that owns it."""
    if not stores():
        raise NotFound("There is nothing at this address.")
    owner = browser_id(create=False)
    found = transcript(owner, conversation_id)
    shown = set(request.args.getlist("show", type=int))
    views = [
        from_versions(versions, n, conversation_id, shown)
        for n, versions in enumerate(found.versions, start=1)
    ]
    following = attach_running(views, owner)
    trimmed = len(views) > settings().max_history
    return render_page(views, conversation_id, trimmed=trimmed, pending=following)


@bp.post("/ask")
@ask_limit
def ask():
    """Ask: for htmx the question at once with its answer streaming; else answer, store and redirect."""
    question = typed(request.form.get("question", ""))
    requested = request.form.get("conversation", "").strip() or None
    # Checked here too, so the form can show the problem in place, keeping what was typed.
    problem = question_problem(question, settings().max_question_chars)
    if problem:
        if is_htmx():
            return render_template(
                "chat/_ask_form.html", oob=True, error=problem, value=question, **form_context(requested)
            )
        history = load_memory(None)
        return render_page(_cookie_views(history), requested, history.trimmed, problem, question), 400

    asked = begin(question, requested, request.form.get("version_of", type=int))
    if is_htmx():
        # The answer is made in the background under an opaque id; a stored question's row maps its exchange
        # to that id, so a reloaded page follows the answer. With the database down: answered right here.
        pending = services().store.pending
        run_id = pending.hold(asked.owner, question, asked.exchange_id) if stores() else new_id()
        if isinstance(run_id, str):
            return _start(asked, run_id)
    # Without JavaScript, or with the database down: answer in this request. Errors (model down, index
    # down) go to the one error handler, which offers to ask again.
    view = _answer_now(asked)
    if is_htmx():
        return finished_html(view, controls_context(False, asked.conversation_id), None)
    # Land on the new exchange, not the top of the page.
    anchor = f"exchange-{view.number}"
    if asked.conversation_id is None:
        return redirect(url_for(".index", _anchor=anchor), 303)
    return redirect(url_for(".conversation", conversation_id=asked.conversation_id, _anchor=anchor), 303)


def _start(asked: Asked, run_id: str):
    """Start making the answer (holding one of the client's slots until it ends); the question at once,
    its answer pending on a stream only this browser can follow; or why it could not start."""
    form = controls_context(False, asked.conversation_id)
    try:
        slot = claim_stream_slot()
    except TooManyStreams as refused:  # the model is not called; the question is kept, marked failed
        finish(asked.exchange_id, "failed")
        return _asked(asked, error_html(refused, asked.question, asked.number, form))
    memory = model_memory(asked.owner, asked.conversation_id, exclude=asked.exchange_id)
    try:
        events = services().assistant.stream(asked.question, memory, viewer().scope)
    except AppError as exc:  # e.g. a question the answerer refuses before it starts
        slot.release()
        finish(asked.exchange_id, "failed")
        return _asked(asked, error_html(exc, asked.question, asked.number, form))
    start = {
        "owner": asked.owner,
        "question": asked.question,
        "conversation_id": asked.conversation_id,
        "exchange_id": asked.exchange_id,
    }
    start_run(run_id, start, logged(events, asked.question, asked.exchange_id), slot)
    html = render_template(
        "chat/_ask_pending.html",
        question=asked.question,
        number=asked.number,
        pending_id=run_id,
        exchange_id=asked.exchange_id,
        stream_url=url_for(".stream", pending_id=run_id, c=asked.conversation_id, n=asked.number),
        **controls_context(True, asked.conversation_id),
    )
    return _asked(asked, html)


def _asked(asked: Asked, html: str):
    """The response to an htmx question: `html`, and for a new conversation its place on the page."""
    if asked.created:
        # The new conversation joins the sidebar's list, the address becomes its own, and the page's forms
        # (suggestions, course buttons) continue it.
        html += render_template(
            "chat/_conversation_field.html", oob=True, conversation_id=asked.conversation_id
        )
        conversations, error = recent_conversations()
        html += render_template(
            "chat/_conversation_list.html",
            oob=True,
            conversations=conversations,
            conversations_error=error,
            conversation_id=asked.conversation_id,
        )
    response = make_response(html)
    if asked.created:
        response.headers["HX-Push-Url"] = url_for(".conversation", conversation_id=asked.conversation_id)
    return response


def _answer_now(asked: Asked) -> ExchangeView:
    """Answer in this request, store the outcome and remember the exchange in the cookie."""
    memory = model_memory(asked.owner, asked.conversation_id, exclude=asked.exchange_id)
    try:
        # This request holds a thread while the model works, like a stream: over MAX_STREAMS_PER_CLIENT it
        # is a 429 error page (the question kept, marked failed) and the model is not called.
        with claim_stream_slot():
            answer = final_answer(
                logged(
                    services().assistant.stream(asked.question, memory, viewer().scope),
                    asked.question,
                    asked.exchange_id,
                )
            )
    except Exception:
        finish(asked.exchange_id, "failed")
        raise
    record_answer(answer)
    finish(asked.exchange_id, "answered", answer)
    remember(
        Exchange(question=asked.question, answer=answer.markdown, sources=answer.sources),
        asked.owner,
        asked.conversation_id,
    )
    return ExchangeView.answered(
        asked.number, asked.question, answer, asked.exchange_id, asked.conversation_id
    )


def _cookie_views(history: History) -> list[ExchangeView]:
    """The cookie-only conversation's exchanges, numbered as their anchors were."""
    last = max(current_turn(), len(history.exchanges))
    return from_memory(history.exchanges, last - len(history.exchanges) + 1)


@bp.post("/new")
def new():
    """Start a new conversation: an empty chat whose form is enabled, even if an answer was streaming."""
    clear_history()
    if not is_htmx():
        return redirect(url_for(".index"), 303)
    html = render_template(
        "chat/_new_response.html",
        exchanges=[],
        trimmed=False,
        suggestions=current_suggestions(),
        **controls_context(False, None),
    )
    response = make_response(html)
    if stores():
        response.headers["HX-Push-Url"] = url_for(".index")
    return response


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
    record = visible_index().get_course(course_id)
    if record is None:
        raise NotFound("There is no course at this address.")
    return render_template("chat/course.html", course=record)


__all__ = ["bp", "gone"]
