"""The API's answers: the JSON of a finished answer, its SSE face, and the session_id that continues it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from app.assistant.base import Answer, Exchange, Source
from app.bidi import neutralize
from app.errors import BadRequest
from app.links import safe_url
from app.rules import recent
from app.services import settings
from app.web.errors import public_error
from app.web.exchanges import decode_exchanges, encode_exchanges
from app.web.observability import record_answer
from app.web.sse import sse_message

SESSION_SALT = "api-session"
# MAX_HISTORY (at most 20) exchanges of long answers, compressed, stay far below this.
MAX_SESSION_TOKEN_CHARS = 64_000


class ApiAnswer:
    """The API's face of a streamed answer: `status`, `text` (a markdown piece), then `done` or `error`."""

    def __init__(self, question: str, history: list[Exchange]):
        self.question, self.history = question, history

    def status(self, text: str) -> Iterator[str]:
        """The status line as JSON."""
        yield sse_message("status", _json({"text": text}))

    def text(self, piece: str) -> Iterator[str]:
        """The next piece of markdown as JSON."""
        yield sse_message("text", _json({"text": piece}))

    def done(self, answer: Answer) -> str:
        """The finished answer, as the non-streamed query returns it."""
        return sse_message("done", _json(query_result(answer, self.question, self.history)))

    def failed(self, error: Exception) -> str:
        """The error as the error handler's JSON, with its status."""
        status, _title, message, detail = public_error(error, "while streaming an API answer")
        return sse_message("error", _json({"error": message, "detail": detail, "status": status}))


def _json(value: Any) -> str:
    """An SSE message's JSON data, without bidi controls as every JSON response."""
    return json.dumps(neutralize(value))


def query_result(answer: Answer, question: str, history: list[Exchange]) -> dict[str, Any]:
    """The JSON for a finished answer, with the session_id that continues the conversation."""
    record_answer(answer)
    exchange = Exchange(question=question, answer=answer.markdown, sources=answer.sources)
    history = recent([*history, exchange], settings().max_history)
    result = {
        "answer": answer.markdown,
        "sources": [short_label(source) for source in answer.sources],
        "citations": [citation_json(source) for source in answer.sources],
        "session_id": _serializer().dumps(encode_exchanges(history)),
    }
    if answer.model_error:  # the model failed: `answer` is the extractive one, headed by this message
        result["model_error"] = answer.model_error
    return result


def citation_json(source: Source) -> dict[str, Any]:
    """One citation of the answer; a timed one carries `start_seconds` (its link opens the video there)."""
    citation: dict[str, Any] = {
        "label": source.label,
        "course": source.course_title,
        "lesson": source.lesson_number,
        "lesson_title": source.lesson_title,
        "link": safe_url(source.link),
    }
    if source.start_seconds is not None:
        citation["start_seconds"] = source.start_seconds
    return citation


def short_label(source: Source) -> str:
    """The original string form of a source: "Course – Lesson n"."""
    if source.lesson_number is None:
        return source.course_title
    return f"{source.course_title} – Lesson {source.lesson_number}"


def _serializer() -> URLSafeTimedSerializer:
    """Signs and checks the session_id tokens (timestamped, so they expire like the session cookie)."""
    return URLSafeTimedSerializer(str(current_app.config["SECRET_KEY"]), salt=SESSION_SALT)


def load_session(token: Any) -> list[Exchange]:
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
