"""The compact form of exchanges that browsers and API clients carry back to us.

The chat's history cookie, its commit tokens and the API's session_id all hold it: positional lists, not
dicts, since every byte of the cookie counts against its budget.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.assistant.base import Exchange, Source
from app.rules import STORED_SNIPPET_CHARS, snippet

# Compact, positional forms: [label, course, lesson, lesson title, course link, lesson link, snippet],
# plus the second in the lesson's video as an eighth item only when the source is timed.
_UntimedSource = tuple[str, str, int | None, str | None, str | None, str | None, str]
_TimedSource = tuple[str, str, int | None, str | None, str | None, str | None, str, float]
_StoredSource = _UntimedSource | _TimedSource
_StoredExchange = tuple[str, str, list[_StoredSource]]
_exchanges_adapter = TypeAdapter(list[_StoredExchange])


def encode_exchanges(exchanges: list[Exchange]) -> list[list[Any]]:
    """The compact, JSON-ready form of exchanges (lists, since the session serializer tags tuples)."""
    return [
        [
            exchange.question,
            exchange.answer,
            [_encode_source(source) for source in exchange.sources],
        ]
        for exchange in exchanges
    ]


def _encode_source(source: Source) -> list[Any]:
    """One source's compact form; the video second is added only when there is one."""
    item: list[Any] = [
        source.label,
        source.course_title,
        source.lesson_number,
        source.lesson_title,
        source.course_link,
        source.lesson_link,
        snippet(source.snippet, STORED_SNIPPET_CHARS),
    ]
    if source.start_seconds is not None:
        item.append(source.start_seconds)
    return item


def decode_exchanges(data: Any) -> list[Exchange]:
    """Exchanges from their compact form; raises ValueError when the structure is not ours."""
    try:
        stored = _exchanges_adapter.validate_python(data)
    except ValidationError as exc:
        raise ValueError("not a stored conversation") from exc
    return [_exchange(item) for item in stored]


def _exchange(item: _StoredExchange) -> Exchange:
    """One Exchange from its stored tuple."""
    question, answer, sources = item
    return Exchange(
        question=question,
        answer=answer,
        sources=[_source(item) for item in sources],
    )


def _source(item: _StoredSource) -> Source:
    """One Source from its stored tuple, timed when it carries an eighth item."""
    label, course, number, title, course_link, lesson_link, text = item[:7]
    return Source(
        label=label,
        course_title=course,
        lesson_number=number,
        lesson_title=title,
        course_link=course_link,
        lesson_link=lesson_link,
        snippet=text,
        start_seconds=item[7] if len(item) == 8 else None,
    )
