"""What the chat's templates show for an exchange, from the database or from the cookie's memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.assistant.base import Answer, Exchange, Source
from app.store.records import ExchangeRecord

# What a question without a finished answer says, and offers "Ask again" for.
UNFINISHED = {
    "interrupted": "The answer was interrupted.",
    "stopped": "You stopped this answer.",
    "failed": "The answer failed.",
}


@dataclass
class ExchangeView:
    """One exchange as `_exchange.html` takes it."""

    number: int
    question: str
    answer: str = ""
    sources: list[Source] = field(default_factory=list)
    status: str = "answered"  # pending | answered | interrupted | stopped | failed
    id: int | None = None  # the store's exchange id (None: not stored)
    vote: str | None = None
    conversation_id: str | None = None
    versions: list[int] | None = None  # the ids of its versions, oldest first (None: not looked up)
    run_id: str | None = None  # a pending exchange's answer run, which the page follows
    stream_url: str | None = None

    @classmethod
    def answered(
        cls, number: int, question: str, answer: Answer, exchange_id: int | None, conversation_id: str | None
    ) -> ExchangeView:
        """A finished answer's exchange, streamed or not."""
        return cls(
            number,
            question,
            answer.markdown,
            list(answer.sources),
            id=exchange_id,
            conversation_id=conversation_id,
        )

    @property
    def note(self) -> str | None:
        """What to say about an answer that did not finish."""
        return UNFINISHED.get(self.status)


def dump_sources(sources: list[Source]) -> list[dict[str, Any]]:
    """Sources as the store keeps them; the video second only when the source is timed."""
    return [
        source.model_dump(exclude={"start_seconds"} if source.start_seconds is None else None)
        for source in sources
    ]


def load_sources(stored: list[dict[str, Any]]) -> list[Source]:
    """Sources from the store; an unreadable one is left out rather than failing the page."""
    sources = []
    for item in stored:
        try:
            sources.append(Source.model_validate(item))
        except ValidationError:
            continue
    return sources


def from_record(record: ExchangeRecord, number: int, conversation_id: str) -> ExchangeView:
    """The view of a stored exchange (one still pending is followed, or reads interrupted: follow.py)."""
    return ExchangeView(
        number=number,
        question=record.question,
        answer=record.answer,
        sources=load_sources(record.sources),
        status=record.status,
        id=record.id,
        vote=record.vote,
        conversation_id=conversation_id,
    )


def from_versions(
    versions: list[ExchangeRecord], number: int, conversation_id: str, shown: set[int]
) -> ExchangeView:
    """The view of one exchange: the version asked for in `shown`, else its latest."""
    chosen = next((record for record in versions if record.id in shown), versions[-1])
    view = from_record(chosen, number, conversation_id)
    view.versions = [record.id for record in versions]
    return view


def from_memory(exchanges: list[Exchange], first_number: int) -> list[ExchangeView]:
    """Views of the cookie's exchanges, numbered from `first_number`."""
    return [
        ExchangeView(number, e.question, e.answer, list(e.sources))
        for number, e in enumerate(exchanges, start=first_number)
    ]
