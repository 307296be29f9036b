"""The JSON API's routes (query, courses, search) and the health checks; no cookies, so no CSRF."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from app.assistant.service import final_answer
from app.errors import AppError, BadRequest, ServiceUnavailable
from app.extensions import ask_limit, csrf, ratelimit_store_ok
from app.rules import MAX_PASSAGES
from app.search.serialize import courses_json, results_json
from app.services import services, settings
from app.store.schema import BEHIND
from app.web.api.answers import ApiAnswer, load_session, query_result
from app.web.api.params import int_arg, json_object, required_text
from app.web.question_log import logged
from app.web.sse import answer_messages, sse_response
from app.web.stream_slots import claim_stream_slot

bp = Blueprint("api", __name__)
csrf.exempt(bp)


@bp.post("/api/query")
@ask_limit
def query():
    """Answer `query`, continuing the conversation carried by `session_id`; `stream: true` answers as SSE."""
    body = json_object()
    question = required_text(body.get("query"), "query")
    history = load_session(body.get("session_id"))
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest("Bad stream.", detail="'stream' must be true or false.")
    # One of the client's stream slots, streamed or not (both hold a thread while the model works): over
    # MAX_STREAMS_PER_CLIENT this is a 429 before the model is called.
    slot = claim_stream_slot()
    try:
        # The assistant keeps the last MAX_HISTORY; a bad question is refused here, before any stream starts.
        events = logged(services().assistant.stream(question, history), question)
    except BaseException:
        slot.release()
        raise
    if stream:
        return sse_response(answer_messages(events, ApiAnswer(question, history), slot), slot)
    with slot:
        return jsonify(query_result(final_answer(events), question, history))


@bp.get("/api/courses")
def courses():
    """Every indexed course with its lessons."""
    return jsonify(courses_json(services().index.courses()))


@bp.get("/api/search")
def search():
    """Passages matching `q`, optionally within a course and lesson, at most `k`."""
    text = required_text(request.args.get("q"), "q")
    course = request.args.get("course", "").strip() or None
    lesson = int_arg("lesson", minimum=0)
    k = int_arg("k", minimum=1, maximum=MAX_PASSAGES)
    passages = services().index.search(text, course=course, lesson=lesson, k=k)
    return jsonify(results_json(passages))


@bp.get("/healthz")
def healthz():
    """The process is up."""
    return jsonify(status="ok")


def _schema_current() -> bool:
    """False when the database answers but its schema is behind this version's (`flask db upgrade`)."""
    try:
        return services().store.schema_current()
    except Exception as exc:  # noqa: BLE001 - a database failing between two queries is "down", said above
        current_app.logger.warning("readyz: the database schema could not be read: %s", type(exc).__name__)
        return True


def ratelimit_store_state() -> str:
    """The rate-limit store as /readyz reports it: off, ok or unreachable."""
    if not settings().ratelimit_enabled:
        return "off"
    return "ok" if ratelimit_store_ok() else "unreachable"


@bp.get("/readyz")
def readyz():
    """The model is loaded and the index answers; 503 (and warming up in the background) until then.

    It reports the database too, but a database that is down keeps the host ready: answers are still served
    (only their records are lost), and a shared database down would otherwise take every host out at once.
    A database whose schema is behind is a 503: nothing would be stored until `flask db upgrade`.
    """
    if not services().warm:
        services().start_warm_up()
        raise ServiceUnavailable("The assistant is warming up (loading the embedding model).")
    try:
        count = services().index.ping()
    except AppError:
        raise
    except Exception as exc:  # a backend failing in a way the index did not foresee is still "not ready"
        current_app.logger.warning("readyz: index not ready: %s", exc)
        raise ServiceUnavailable("The course index is not answering.", detail=type(exc).__name__) from exc
    # The limits keep working per process without their store, and answers without the database: either
    # down is reported, not unready, so a shared store going down does not take every host out.
    store = ratelimit_store_state()
    if store == "unreachable":
        current_app.logger.warning("readyz: the rate-limit store is unreachable")
    database = "ok" if services().store.ping() else "down"
    if database == "ok" and not _schema_current():
        raise ServiceUnavailable(BEHIND)
    degraded = store == "unreachable" or database == "down"
    return jsonify(
        status="degraded" if degraded else "ready", courses=count, ratelimit_store=store, database=database
    )
