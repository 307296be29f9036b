"""Asking: where a question is stored, what the model remembers, and how an answer is recorded."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from app.assistant.base import Answer, Exchange
from app.errors import NotFound
from app.rules import recent
from app.services import services, settings
from app.store.records import Outcome, Transcript
from app.store.soft import DOWN, StoreUnavailable
from app.web.chat.exchanges import dump_sources, load_sources
from app.web.chat.history import History, load_memory, save_memory
from app.web.chat.tokens import advance_turn, current_turn
from app.web.session import browser_id

log = logging.getLogger(__name__)
# The retention purge runs on an ask at most this often per process (no cron needed).
PURGE_EVERY_SECONDS = 3600
_purge_lock = threading.Lock()
_last_purge = [float("-inf")]


@dataclass(frozen=True)
class Asked:
    """A question about to be answered: where it is stored (if at all) and its place on the page."""

    owner: str
    question: str
    conversation_id: str | None  # the stored conversation (None: the cookie-only one)
    exchange_id: int | None  # the stored pending exchange (None: not stored)
    number: int
    created: bool  # a new stored conversation began with this question


def gone() -> NotFound:
    """The one answer for a conversation that is not this browser's, or not at all."""
    return NotFound("There is no conversation at this address.")


def stores() -> bool:
    """True when conversations are kept in the database (STORE_CONVERSATIONS)."""
    return settings().store_conversations


def transcript(owner: str | None, conversation_id: str) -> Transcript:
    """The owned conversation, or NotFound; StoreUnavailable when the database cannot answer."""
    found = services().store.conversations.transcript(owner, conversation_id) if owner else None
    if found is None:
        raise gone()
    return found


def begin(question: str, requested: str | None, version_of: int | None = None) -> Asked:
    """Store the question as asked (pending) in `requested` or a new conversation, as a new version of the
    exchange `version_of` (a Retry or Edit, in its place) when that is one of it; a down database stores
    nothing and the question continues the cookie-only conversation."""
    owner = browser_id()
    assert owner is not None  # made on demand
    if not stores():
        return Asked(owner, question, None, None, cookie_number(), False)
    _maybe_purge()
    number = 1
    if requested:
        try:
            exchanges = transcript(owner, requested).versions
        except StoreUnavailable:
            return _unstored(owner, question, requested)
        places = [n for n, versions in enumerate(exchanges, 1) if any(v.id == version_of for v in versions)]
        number = places[0] if places else len(exchanges) + 1
        version_of = version_of if places else None
    asked = services().store.conversations.ask(owner, question, requested or None, version_of)
    if asked is DOWN:
        return _unstored(owner, question, requested)
    if asked is None:
        raise gone()
    return Asked(owner, question, asked.conversation_id, asked.exchange_id, number, not requested)


def _unstored(owner: str, question: str, requested: str | None) -> Asked:
    """The question when the database is down: the memory it had moves to the cookie-only conversation."""
    memory = load_memory(requested or None)
    if requested and memory.exchanges:
        save_memory(memory, None)
    return Asked(owner, question, None, None, cookie_number(), False)


def cookie_number() -> int:
    """The next exchange number of the cookie-only conversation."""
    # Counted by commits, so a page that kept trimmed exchanges gets no duplicate ids.
    history = load_memory(None)
    return max(current_turn(), len(history.exchanges)) + 1


def model_memory(
    owner: str | None, conversation_id: str | None, exclude: int | None = None
) -> list[Exchange]:
    """The exchanges the model remembers: the cookie's when they belong here, else the stored ones."""
    limit = settings().max_history
    memory = load_memory(conversation_id)
    if conversation_id is None or memory.exchanges:
        return memory.for_model(limit)
    try:
        found = transcript(owner, conversation_id)
    except (StoreUnavailable, NotFound):
        return []
    return recent(
        [
            Exchange(question=r.question, answer=r.answer, sources=load_sources(r.sources))
            for r in found.current
            if r.status == "answered" and r.id != exclude
        ],
        limit,
    )


def remember(exchange: Exchange, owner: str | None, conversation_id: str | None) -> History:
    """Put an exchange into the cookie's memory of its conversation (spending every commit token so far)."""
    advance_turn()
    history = load_memory(conversation_id)
    if conversation_id is not None and not history.exchanges:
        # The memory held another conversation: start from this one's stored exchanges (this one included).
        stored = model_memory(owner, conversation_id)
        if stored and stored[-1].question == exchange.question and stored[-1].answer == exchange.answer:
            stored = stored[:-1]
        history = History(stored)
    return save_memory(history.add(exchange, settings().max_history), conversation_id)


def finish(exchange_id: int | None, status: str, answer: Answer | None = None, text: str = "") -> None:
    """Complete a stored exchange with how its answer ended (soft: a down database loses the record)."""
    if exchange_id is None:
        return
    if answer is not None:
        outcome = Outcome(
            status="answered", answer=answer.markdown, sources=dump_sources(answer.sources), mode=answer.mode
        )
    else:
        outcome = Outcome(status=status, answer=text)  # type: ignore[arg-type]
    services().store.conversations.finish(exchange_id, outcome)


def stop_elsewhere(owner: str | None, conversation_id: str | None, exchange_id: int | None) -> bool:
    """Mark `owner`'s pending exchange stopped (its stream runs in another process); True if it was."""
    if exchange_id is None or conversation_id is None:
        return False
    try:
        found = transcript(owner, conversation_id)
    except (StoreUnavailable, NotFound):
        return False
    if not any(record.id == exchange_id and record.status == "pending" for record in found.exchanges):
        return False
    finish(exchange_id, "stopped")
    return True


def _maybe_purge() -> threading.Thread | None:
    """Delete what CONVERSATION_RETENTION_DAYS has passed, at most once an hour, off the request thread;
    the thread that does it, if one started."""
    now = time.monotonic()
    with _purge_lock:
        if now - _last_purge[0] < PURGE_EVERY_SECONDS:
            return None
        _last_purge[0] = now
    store = services().store
    thread = threading.Thread(target=_purge, args=(store,), name="retention-purge", daemon=True)
    thread.start()
    return thread


def _purge(store) -> None:
    """Run the retention purge; a failure is a warning, tried again an hour later."""
    try:
        purged = store.purge_expired()
        log.info("retention purge: %s", purged)
    except Exception as exc:  # the database may be down: the next hour tries again
        log.warning("retention purge failed: %s", exc)
