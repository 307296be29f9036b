"""The conversation history, kept in Flask's signed session cookie within the browser's size budget."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from flask import session
from pydantic import TypeAdapter, ValidationError

from app.assistant.base import Exchange
from app.assistant.citations import strip_markers
from app.rules import recent
from app.web.exchanges import decode_exchanges, encode_exchanges
from app.web.session import HISTORY_KEY, MEMORY_OF_KEY, fits

FORMAT_VERSION = 1
# Below this, shortening an answer or a question further is pointless: the exchange goes instead.
MIN_TEXT_CHARS = 120
ELLIPSIS = " …"
_PARTIAL_MARKER = re.compile(r"\[(?:\^\d*)?$")

_session_adapter = TypeAdapter(tuple[Literal[1], list[Any], bool])  # 1 is FORMAT_VERSION


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


def load_history() -> History:
    """The history from the session; anything unreadable (old format, tampered data) is a fresh start."""
    # Flask already drops a cookie signed with another key or forged; this guards the structure inside.
    try:
        version, exchanges, trimmed = _session_adapter.validate_python(session.get(HISTORY_KEY))
        return History(decode_exchanges(exchanges), trimmed)
    except (ValidationError, ValueError):
        return History()


def save_history(history: History) -> History:
    """Store the history, trimmed until the session cookie fits the budget; returns what was stored."""
    exchanges = [exchange.model_copy(deep=True) for exchange in history.exchanges]
    trimmed = history.trimmed
    session.permanent = True
    while True:
        session[HISTORY_KEY] = [FORMAT_VERSION, encode_exchanges(exchanges), trimmed]
        if fits():
            return History(exchanges, trimmed)
        if not _shrink(exchanges):
            # Other session data fills the cookie; keep the history out rather than lose the whole cookie.
            session.pop(HISTORY_KEY, None)
            return History([], True)
        # Shortening the only exchange drops no earlier turn; the note speaks of earlier turns only.
        trimmed = trimmed or len(exchanges) < len(history.exchanges)


def clear_history() -> None:
    """Forget the conversation."""
    session.pop(HISTORY_KEY, None)
    session.pop(MEMORY_OF_KEY, None)


def memory_of() -> str | None:
    """The stored conversation the cookie's memory belongs to (None: the cookie-only conversation)."""
    value = session.get(MEMORY_OF_KEY)
    return value if isinstance(value, str) and value else None


def load_memory(conversation_id: str | None) -> History:
    """The cookie's memory if it belongs to `conversation_id`, else an empty one."""
    return load_history() if memory_of() == conversation_id else History()


def save_memory(history: History, conversation_id: str | None) -> History:
    """Store `history` as the memory of `conversation_id` (None: the cookie-only conversation)."""
    # Set first: the budget counts the key too.
    if conversation_id:
        session[MEMORY_OF_KEY] = conversation_id
    else:
        session.pop(MEMORY_OF_KEY, None)
    return save_history(history)


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
