"""The conversation history, kept in Flask's signed session cookie within the browser's size budget."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from flask import current_app, session
from pydantic import TypeAdapter, ValidationError
from werkzeug.http import dump_cookie

from app.assistant.citations import strip_markers
from app.assistant.models import Exchange, Source
from app.rules import STORED_SNIPPET_CHARS, recent, snippet

SESSION_KEY = "chat"
FORMAT_VERSION = 1
# Browsers drop cookies over 4,096 bytes; stay clearly below, measured on the whole Set-Cookie value.
COOKIE_BUDGET = 4000
# Below this, shortening an answer or a question further is pointless: the exchange goes instead.
MIN_TEXT_CHARS = 120
ELLIPSIS = " …"
_PARTIAL_MARKER = re.compile(r"\[(?:\^\d*)?$")

# Compact, positional forms: [label, course, lesson, lesson title, course link, lesson link, snippet].
_StoredSource = tuple[str, str, int | None, str | None, str | None, str | None, str]
_StoredExchange = tuple[str, str, list[_StoredSource]]
_exchanges_adapter = TypeAdapter(list[_StoredExchange])
_session_adapter = TypeAdapter(tuple[Literal[1], list[_StoredExchange], bool])  # 1 is FORMAT_VERSION


@dataclass
class History:
    """The exchanges kept for this browser, and whether earlier turns had to go."""

    exchanges: list[Exchange] = field(default_factory=list)
    trimmed: bool = False

    def for_model(self, max_history: int) -> list[Exchange]:
        """The last `max_history` exchanges, sent to the model as turns."""
        return recent(self.exchanges, max_history)

    def add(self, exchange: Exchange, max_history: int) -> History:
        """A new history with `exchange` appended and only the last `max_history` kept."""
        # Keep at least the newest exchange so a page without JavaScript can show the answer.
        keep = max(max_history, 1)
        exchanges = [*self.exchanges, exchange]
        trimmed = self.trimmed or len(exchanges) > keep
        return History(exchanges[-keep:], trimmed)


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


def load_history() -> History:
    """The history from the session; anything unreadable (old format, tampered data) is a fresh start."""
    # Flask already drops a cookie signed with another key or forged; this guards the structure inside.
    try:
        version, exchanges, trimmed = _session_adapter.validate_python(session.get(SESSION_KEY))
    except ValidationError:
        return History()
    return History([_exchange(item) for item in exchanges], trimmed)


def save_history(history: History) -> History:
    """Store the history, trimmed until the session cookie fits the budget; returns what was stored."""
    exchanges = [exchange.model_copy(deep=True) for exchange in history.exchanges]
    trimmed = history.trimmed
    session.permanent = True
    while True:
        session[SESSION_KEY] = [FORMAT_VERSION, encode_exchanges(exchanges), trimmed]
        if cookie_size() < COOKIE_BUDGET:
            return History(exchanges, trimmed)
        if not _shrink(exchanges):
            # Other session data fills the cookie; keep the history out rather than lose the whole cookie.
            session.pop(SESSION_KEY, None)
            return History([], True)
        # Shortening the only exchange drops no earlier turn; the note speaks of earlier turns only.
        trimmed = trimmed or len(exchanges) < len(history.exchanges)


def clear_history() -> None:
    """Forget the conversation."""
    session.pop(SESSION_KEY, None)


def _shrink(exchanges: list[Exchange]) -> bool:
    """Make the history smaller by one step, least valuable first; False when nothing is left to cut."""
    if len(exchanges) > 1:
        exchanges.pop(0)
        return True
    if not exchanges:
        return False
    exchange = exchanges[0]
    if any(source.snippet for source in exchange.sources):
        for source in exchange.sources:
            source.snippet = ""
        return True
    if len(exchange.answer) > MIN_TEXT_CHARS:
        exchange.answer = _shorten(exchange.answer)
        return True
    if len(exchange.question) > MIN_TEXT_CHARS:
        exchange.question = _shorten(exchange.question)
        return True
    if exchange.sources:
        # Markers number the sources; without them they would point nowhere.
        exchange.sources.clear()
        exchange.answer = strip_markers(exchange.answer)
        return True
    exchanges.clear()
    return True


def _shorten(text: str) -> str:
    """Cut a text to about half, at a word boundary when there is one, marking the cut."""
    if text.endswith(ELLIPSIS):
        text = text[: -len(ELLIPSIS)]
    cut = text[: len(text) // 2]
    boundary = cut.rfind(" ")
    if boundary > len(cut) // 2:
        cut = cut[:boundary]
    # A citation marker cut in half would show as stray brackets.
    cut = _PARTIAL_MARKER.sub("", cut)
    return cut.rstrip() + ELLIPSIS


def cookie_size() -> int:
    """The byte length of the Set-Cookie value the current session would produce."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # the proxy's real app
    interface = app.session_interface
    value = interface.get_signing_serializer(app).dumps(dict(session))
    header = dump_cookie(
        interface.get_cookie_name(app),
        value,
        expires=interface.get_expiration_time(app, session),
        path=interface.get_cookie_path(app),
        domain=interface.get_cookie_domain(app),
        secure=interface.get_cookie_secure(app),
        httponly=interface.get_cookie_httponly(app),
        samesite=interface.get_cookie_samesite(app),
        partitioned=interface.get_cookie_partitioned(app),
        max_size=0,  # measuring oversized candidates is the point; no warning for them
    )
    return len(header.encode("latin-1"))
