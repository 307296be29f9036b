"""The compact form of exchanges that browsers and API clients carry back to us.

The chat's history cookie, its commit tokens and the API's session_id all hold it: positional lists, not
dicts, since every byte of the cookie counts against its budget.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from app.assistant.base import Exchange, Source
from app.rules import STORED_SNIPPET_CHARS, snippet

# Compact, positional forms: [label, course, lesson, lesson title, course link, lesson link, snippet].
_StoredSource = tuple[str, str, int | None, str | None, str | None, str | None, str]
_StoredExchange = tuple[str, str, list[_StoredSource]]
_exchanges_adapter = TypeAdapter(list[_StoredExchange])


def encode_exchanges(exchanges: list[Exchange]) -> list[list[Any]]:
    """The compact, JSON-ready form of exchanges (lists, since the session serializer tags tuples)."""
    return [
        [
            exchange.question,
            exchange.answer,
            [
                [
                    s.label,
                    s.course_title,
                    s.lesson_number,
                    s.lesson_title,
                    s.course_link,
                    s.lesson_link,
                    snippet(s.snippet, STORED_SNIPPET_CHARS),
                ]
                for s in exchange.sources
            ],
        ]
        for exchange in exchanges
    ]


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
        sources=[
            Source(
                label=label,
                course_title=course,
                lesson_number=number,
                lesson_title=title,
                course_link=course_link,
                lesson_link=lesson_link,
                snippet=snippet,
            )
            for label, course, number, title, course_link, lesson_link, snippet in sources
        ],
    )
