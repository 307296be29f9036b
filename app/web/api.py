"""The JSON API (query, courses, search) and the health checks; no cookies, so no CSRF."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, current_app, jsonify, request
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from app.assistant.models import Answer, AnswerEvent, DoneEvent, Exchange, Source, StatusEvent, TextEvent
from app.assistant.service import final_answer
from app.errors import AppError, BadRequest, ServiceUnavailable
from app.extensions import ask_limit, csrf
from app.links import safe_url
from app.rules import MAX_PASSAGES, checked_question, recent
from app.search.serialize import results_json
from app.services import services, settings
from app.web.errors import describe
from app.web.history import decode_exchanges, encode_exchanges
from app.web.observability import record_answer
from app.web.sse import close_events, sse_message, sse_response

bp = Blueprint("api", __name__)
csrf.exempt(bp)

SESSION_SALT = "api-session"
# MAX_HISTORY (at most 20) exchanges of long answers, compressed, stay far below this.
MAX_SESSION_TOKEN_CHARS = 64_000


@bp.post("/api/query")
@ask_limit
def query():
    """Answer `query`, continuing the conversation carried by `session_id`; `stream: true` answers as SSE."""
    body = _json_object()
    question = _required_text(body.get("query"), "query")
    history = _load_session(body.get("session_id"))
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest("Bad stream.", detail="'stream' must be true or false.")
    # The assistant keeps the last MAX_HISTORY; a bad question is refused here, before any stream starts.
    events = services().assistant.stream(question, history)
    if stream:
        return sse_response(_query_messages(events, question, history))
    return jsonify(_query_result(final_answer(events), question, history))


def _query_messages(events: Iterator[AnswerEvent], question: str, history: list[Exchange]) -> Iterator[str]:
    """SSE of the answer events as JSON: `status`, `text` (a markdown piece), then `done` or `error`."""
    try:
        for event in events:
            if isinstance(event, StatusEvent):
                yield sse_message("status", json.dumps({"text": event.text}))
            elif isinstance(event, TextEvent):
                yield sse_message("text", json.dumps({"text": event.text}))
            elif isinstance(event, DoneEvent):
                yield sse_message("done", json.dumps(_query_result(event.answer, question, history)))
                return
        raise RuntimeError("the answerer ended without an answer")
    except Exception as exc:  # the headers are sent: the error travels as the last message
        status, _title, message, detail = describe(exc)
        if status >= 500:
            current_app.logger.warning("%s while streaming an API answer: %s", status, exc)
            detail = message  # as the error handler does: no internals to clients
        yield sse_message("error", json.dumps({"error": message, "detail": detail, "status": status}))
    finally:
        close_events(events)


def _query_result(answer: Answer, question: str, history: list[Exchange]) -> dict[str, Any]:
    """The JSON for a finished answer (noted in the metrics), with the session_id that continues it."""
    record_answer(answer)
    exchange = Exchange(question=question, answer=answer.markdown, sources=answer.sources)
    history = recent([*history, exchange], settings().max_history)
    return {
        "answer": answer.markdown,
        "sources": [short_label(source) for source in answer.sources],
        "citations": [
            {
                "label": source.label,
                "course": source.course_title,
                "lesson": source.lesson_number,
                "lesson_title": source.lesson_title,
                "link": safe_url(source.link),
            }
            for source in answer.sources
        ],
        "session_id": _serializer().dumps(encode_exchanges(history)),
    }


@bp.get("/api/courses")
def courses():
    """Every indexed course with its lessons."""
    records = services().index.courses()
    return jsonify(
        total_courses=len(records),
        course_titles=[record.title for record in records],
        courses=[
            {
                "title": record.title,
                "link": safe_url(record.link),
                "instructor": record.instructor,
                "lessons": [
                    {**lesson.model_dump(), "link": safe_url(lesson.link)} for lesson in record.lessons
                ],
            }
            for record in records
        ],
    )


@bp.get("/api/search")
def search():
    """Passages matching `q`, optionally within a course and lesson, at most `k`."""
    text = _required_text(request.args.get("q"), "q")
    course = request.args.get("course", "").strip() or None
    lesson = _int_arg("lesson", minimum=0)
    k = _int_arg("k", minimum=1, maximum=MAX_PASSAGES)
    passages = services().index.search(text, course=course, lesson=lesson, k=k)
    return jsonify(results_json(passages))


@bp.get("/healthz")
def healthz():
    """The process is up."""
    return jsonify(status="ok")


@bp.get("/readyz")
def readyz():
    """The model is loaded and the index answers; 503 (and warming up in the background) until then."""
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
    return jsonify(status="ready", courses=count)


def short_label(source: Source) -> str:
    """The original string form of a source: "Course – Lesson n"."""
    if source.lesson_number is None:
        return source.course_title
    return f"{source.course_title} – Lesson {source.lesson_number}"


def _serializer() -> URLSafeTimedSerializer:
    """Signs and checks the session_id tokens (timestamped, so they expire like the session cookie)."""
    return URLSafeTimedSerializer(str(current_app.config["SECRET_KEY"]), salt=SESSION_SALT)


def _load_session(token: Any) -> list[Exchange]:
    """The history a session_id carries; a tampered or malformed one is refused."""
    if token is None or token == "":
        return []
    if not isinstance(token, str):
        raise BadRequest("Invalid session_id.", detail="session_id must be a string returned by this API.")
    if len(token) > MAX_SESSION_TOKEN_CHARS:  # before checking the signature: never unpack a huge token
        raise BadRequest("Invalid session_id.", detail="The session_id is longer than any this API issues.")
    try:
        lifetime = int(current_app.permanent_session_lifetime.total_seconds())
        history = _serializer().loads(token, max_age=lifetime)
        return recent(decode_exchanges(history), settings().max_history)
    except SignatureExpired as exc:
        raise BadRequest(
            "Expired session_id.", detail="Start a new conversation without a session_id."
        ) from exc
    except (BadSignature, ValueError) as exc:
        raise BadRequest(
            "Invalid session_id.", detail="The session_id was not issued by this server."
        ) from exc


def _json_object() -> dict[str, Any]:
    """The request body as a JSON object, or a 400."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # silent=True covers malformed JSON, not JSON nested past Python's stack
        raise BadRequest("The JSON body is nested too deeply.") from None
    if not isinstance(body, dict):
        raise BadRequest(
            "Expected a JSON object.",
            detail='Send Content-Type: application/json and a body like {"query": "..."}.',
        )
    return body


def _required_text(value: Any, name: str) -> str:
    """A non-empty string of at most MAX_QUESTION_CHARS characters, or a 400 naming the field."""
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"Missing {name}.", detail=f"'{name}' must be a non-empty string.")
    return checked_question(value, settings().max_question_chars)


def _int_arg(name: str, minimum: int, maximum: int | None = None) -> int | None:
    """An optional integer query argument within bounds, or a 400 naming it."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"Bad {name}.", detail=f"'{name}' must be a whole number.") from None
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise BadRequest(f"Bad {name}.", detail=f"'{name}' must be {bounds}.")
    return value
