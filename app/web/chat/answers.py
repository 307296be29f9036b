"""A pending question's life after the ask: its stream (claimed once), Stop, and the commit to memory."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for

from app.errors import AppError, BadRequest, Conflict
from app.services import services
from app.store.soft import DOWN
from app.web.chat.asking import finish, model_memory, remember, stop_elsewhere
from app.web.chat.exchanges import ExchangeView
from app.web.chat.in_flight import IN_FLIGHT, InFlightAnswer
from app.web.chat.page import controls_context
from app.web.chat.stream import ChatAnswer, failed_html, finished_html, tracked
from app.web.chat.tokens import TokenRefused, current_turn, read_commit_token
from app.web.chat.views import bp
from app.web.htmx import is_htmx
from app.web.question_log import logged
from app.web.session import browser_id
from app.web.sse import answer_messages, sse_message, sse_response
from app.web.viewer import viewer

ANSWERED_ALREADY = "This question was answered already, or has expired. Please ask it again."
NOT_REMEMBERED = (
    "This answer was not saved to the assistant's memory: it was saved already, is too old, or another tab "
    "saved an answer at the same moment."
)
# How long a question waits for its stream (a module constant, so a test can shorten it).
CLAIM_SECONDS = 300


@bp.get("/ask/stream/<pending_id>")
def stream(pending_id: str):
    """The answer to a question posted before, as Server-Sent Events, to the asking browser, once."""
    owner = browser_id(create=False)
    conversation_id = request.args.get("c") or None
    number = request.args.get("n", 1, type=int)
    form = controls_context(False, conversation_id)
    # An EventSource retries anything but a finished stream: refusals are a last message, not a 4xx.
    claim = services().store.pending.claim(owner, pending_id, max_age=CLAIM_SECONDS) if owner else None
    if owner is None or claim is None or claim is DOWN:  # replayed, expired, another's; database down
        refused = BadRequest(ANSWERED_ALREADY)
        return sse_response(iter([sse_message("done", failed_html(refused, "", number, form))]))
    question = claim.question
    live = InFlightAnswer(pending_id, owner, question, number, conversation_id, claim.exchange_id)
    memory = model_memory(owner, conversation_id, exclude=claim.exchange_id)
    try:
        events = services().assistant.stream(question, memory, viewer().scope)
    except AppError as exc:  # e.g. MAX_QUESTION_CHARS lowered since the question was posted
        finish(claim.exchange_id, "failed")
        return sse_response(iter([sse_message("done", failed_html(exc, question, number, form))]))
    face = ChatAnswer(live, current_turn(), form)
    return sse_response(answer_messages(tracked(logged(events, question, claim.exchange_id), live), face))


@bp.post("/ask/stop/<pending_id>")
def stop(pending_id: str):
    """Stop a streaming answer: the page keeps what it said so far, marked stopped; the form is enabled."""
    owner = browser_id(create=False)
    live = IN_FLIGHT.stop(pending_id, owner)
    conversation_id = request.form.get("conversation", "").strip() or None
    if live is not None:
        finish(live.exchange_id, "stopped", text=live.text)
        view = ExchangeView(
            live.number,
            live.question,
            live.text,
            status="stopped",
            id=live.exchange_id,
            conversation_id=live.conversation_id,
        )
        conversation_id = live.conversation_id
    else:
        # Streaming in another worker: the stored exchange is marked stopped here; the page's stream closes
        # with this swap, and that worker keeps the partial answer, stopped, when it notices (stream.py).
        exchange_id = request.form.get("exchange", type=int)
        stop_elsewhere(owner, conversation_id, exchange_id)
        view = ExchangeView(
            request.form.get("number", 1, type=int),
            request.form.get("question", ""),
            status="stopped",
            id=exchange_id,
            conversation_id=conversation_id,
        )
    if not is_htmx():
        if conversation_id:
            return redirect(url_for(".conversation", conversation_id=conversation_id), 303)
        return redirect(url_for(".index"), 303)
    return finished_html(view, controls_context(False, conversation_id), None)


@bp.post("/ask/commit")
def commit():
    """Put a streamed exchange into the cookie's memory, once; a refusal (409, which htmx gets as a 200
    fragment from the error handler) says so in place of the request."""
    owner = browser_id(create=False)
    try:
        exchange, conversation_id = read_commit_token(request.form.get("token"), owner)
    except TokenRefused as exc:
        raise Conflict(NOT_REMEMBERED, detail=str(exc)) from exc
    stored = remember(exchange, owner, conversation_id)
    # The trim note may change with the new exchange; nothing else on the page does.
    return render_template("chat/_history_note.html", oob=True, trimmed=stored.trimmed)
