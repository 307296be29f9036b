"""An answer's life after the ask: the pages that follow it, Stop, and the commit to memory."""

from __future__ import annotations

from collections.abc import Iterator

from flask import current_app, redirect, render_template, request, url_for

from app.errors import BadRequest, Conflict
from app.web.chat.asking import remember, stop_elsewhere
from app.web.chat.exchanges import ExchangeView
from app.web.chat.follow import find_run, follow, last_event_id
from app.web.chat.history import load_memory
from app.web.chat.journal import journal
from app.web.chat.page import controls_context
from app.web.chat.run import RUNS
from app.web.chat.stream import ChatAnswer, error_html, finished_html
from app.web.chat.tokens import TokenRefused, current_turn, read_commit_token
from app.web.chat.views import bp
from app.web.htmx import is_htmx
from app.web.session import browser_id
from app.web.sse import sse_message, sse_response
from app.web.stream_slots import FOLLOWERS, StreamSlot, TooManyStreams, claim_stream_slot

ANSWERED_ALREADY = "This question was answered already, or has expired. Please ask it again."
NOT_REMEMBERED = (
    "This answer was not saved to the assistant's memory: it was saved already, is too old, or another tab "
    "saved an answer at the same moment."
)


@bp.get("/ask/stream/<pending_id>")
def stream(pending_id: str):
    """Follow the asking browser's answer run as Server-Sent Events: from any page, tab or worker."""
    owner = browser_id(create=False)
    number = request.args.get("n", 1, type=int)
    found = find_run(pending_id) if owner else None
    # An EventSource retries anything but a finished stream: refusals are a last message, not a 4xx.
    if found is None or found[1]["owner"] != owner:  # expired, another's, unknown
        form = controls_context(False, request.args.get("c") or None)
        html = error_html(BadRequest(ANSWERED_ALREADY), "", number, form)
        return sse_response(iter([sse_message("done", html)]))
    source, start = found
    form = controls_context(False, start["conversation_id"])
    face = ChatAnswer(start, number, current_turn(), form)
    try:
        slot = claim_stream_slot(FOLLOWERS)
    except TooManyStreams as refused:
        return sse_response(iter([sse_message("done", error_html(refused, start["question"], number, form))]))
    messages = follow(source, face, last_event_id(request.headers.get("Last-Event-ID")))
    return sse_response(_releasing(messages, slot), slot)


def _releasing(messages: Iterator[str], slot: StreamSlot) -> Iterator[str]:
    """The messages, freeing `slot` as soon as they end (the response's close may come later)."""
    try:
        yield from messages
    finally:
        slot.release()


@bp.post("/ask/stop/<pending_id>")
def stop(pending_id: str):
    """Stop an answer: the page keeps what it said so far, marked stopped; the form is enabled."""
    owner = browser_id(create=False)
    run = RUNS.get(pending_id)
    conversation_id = request.form.get("conversation", "").strip() or None
    if run is not None and run.owner == owner and run.stop():
        start = run.events[0]
        view = ExchangeView(
            request.form.get("number", 1, type=int),
            start["question"],
            run.text,
            status="stopped",
            id=run.exchange_id,
            conversation_id=start["conversation_id"],
        )
        conversation_id = start["conversation_id"]
    else:
        # Made in another worker: the stored exchange is marked stopped here, and that worker, told through
        # the journal, stops the answer and keeps what it said (run.py).
        exchange_id = request.form.get("exchange", type=int)
        if stop_elsewhere(owner, conversation_id, exchange_id):
            journal(current_app._get_current_object()).request_stop(pending_id)  # type: ignore[attr-defined]
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
    token = request.form.get("token")
    try:
        exchange, conversation_id = read_commit_token(token, owner)
    except TokenRefused as exc:
        if _remembered_already(token, owner):
            return ""  # another tab following the same answer saved it: nothing to say
        raise Conflict(NOT_REMEMBERED, detail=str(exc)) from exc
    stored = remember(exchange, owner, conversation_id)
    # The trim note may change with the new exchange; nothing else on the page does.
    return render_template("chat/_history_note.html", oob=True, trimmed=stored.trimmed)


def _remembered_already(token: str | None, owner: str | None) -> bool:
    """True when the token's exchange is the last one the cookie remembers of its conversation."""
    try:
        exchange, conversation_id = read_commit_token(token, owner, any_turn=True)
    except TokenRefused:
        return False
    remembered = load_memory(conversation_id).exchanges
    return bool(remembered) and remembered[-1] == exchange
