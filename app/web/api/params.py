"""Reading the API's requests: a JSON object body, text fields and integer query arguments, or a 400."""

from __future__ import annotations

from typing import Any

from flask import request

from app.errors import BadRequest
from app.rules import checked_question
from app.services import settings


def json_object() -> dict[str, Any]:
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


def required_text(value: Any, name: str) -> str:
    """A non-empty string of at most MAX_QUESTION_CHARS characters, or a 400 naming the field."""
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"Missing {name}.", detail=f"'{name}' must be a non-empty string.")
    return checked_question(value, settings().max_question_chars)


def int_arg(name: str, minimum: int, maximum: int | None = None) -> int | None:
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
