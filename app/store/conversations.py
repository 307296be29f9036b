"""Conversations and their exchanges, each reachable only through the browser id that owns it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from app.errors import BadRequest
from app.store.database import Database
from app.store.models import TITLE_CHARS, Conversation, Exchange, Feedback, new_id, now
from app.store.records import (
    Asked,
    ConversationSummary,
    ExchangeRecord,
    Outcome,
    Status,
    Transcript,
    Vote,
)
from app.store.soft import hard, soft

LIST_LIMIT = 50
# Longer than any answer takes (the model's timeout and retries): a question still pending after this lost its
# answer to a worker that died, and reads as interrupted.
STALE_PENDING = timedelta(minutes=10)


# The answer path's statements, built once: building a statement per call costs more than running it.
NEW_CONVERSATION = insert(Conversation)
# The owner check and the "recently active" stamp in one statement.
TOUCH = (
    update(Conversation)
    .where(Conversation.id == bindparam("c_id"), Conversation.owner == bindparam("c_owner"))
    .values(updated_at=bindparam("stamp"))
)
NEW_EXCHANGE = insert(Exchange).returning(Exchange.id)
# The columns to set come from the parameters' names.
FINISH = update(Exchange).where(Exchange.id == bindparam("e_id"))


def title_from(text: str) -> str:
    """A conversation title: the text on one line, cut to fit."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _summary(row: Conversation) -> ConversationSummary:
    """The record of a conversation row."""
    return ConversationSummary(row.id, row.title, row.created_at, row.updated_at)


def _owned(session: Session, owner: str, conversation_id: str) -> Conversation | None:
    """The conversation if `owner` owns it; a stranger learns nothing, not even that it exists."""
    row = session.get(Conversation, conversation_id)
    return row if row is not None and row.owner == owner else None


def _status(exchange: Exchange, stale: datetime) -> Status:
    """The exchange's status, a pending one left behind by a dead worker read as interrupted."""
    if exchange.status == "pending" and exchange.created_at < stale:
        return "interrupted"
    return cast(Status, exchange.status)


class Conversations:
    """Store questions as they are asked, complete them as answers end, and read them back."""

    def __init__(self, db: Database):
        self.db = db

    @soft("ask")
    def ask(self, owner: str, question: str, conversation_id: str | None = None) -> Asked | None:
        """Store a pending question: in a new conversation, or in `conversation_id` if `owner` owns it."""
        stamp = now()
        with self.db.statements() as connection:
            if conversation_id is None:
                conversation_id = new_id()
                connection.execute(
                    NEW_CONVERSATION,
                    {
                        "id": conversation_id,
                        "owner": owner,
                        "title": title_from(question),
                        "created_at": stamp,
                        "updated_at": stamp,
                    },
                )
            elif (
                connection.execute(
                    TOUCH, {"c_id": conversation_id, "c_owner": owner, "stamp": stamp}
                ).rowcount
                != 1
            ):
                return None  # not this browser's conversation, or none at all
            exchange_id = connection.scalar(
                NEW_EXCHANGE,
                {
                    "conversation_id": conversation_id,
                    "question": question,
                    "answer": "",
                    "sources": [],
                    "status": "pending",
                    "created_at": stamp,
                },
            )
            return Asked(conversation_id, int(exchange_id))  # type: ignore[arg-type]  # RETURNING gives one id

    @soft("finish")
    def finish(self, exchange_id: int, outcome: Outcome) -> bool:
        """Complete a pending exchange with how its answer ended; False when there is no such exchange."""
        with self.db.statements() as connection:
            values = {
                "e_id": exchange_id,
                "status": outcome.status,
                "answer": outcome.answer,
                "sources": outcome.sources,
                "mode": outcome.mode,
                "first_text_ms": outcome.first_text_ms,
                "total_ms": outcome.total_ms,
                "confidence": outcome.confidence,
            }
            return connection.execute(FINISH, values).rowcount == 1

    @hard
    def recent(self, owner: str, limit: int = LIST_LIMIT) -> list[ConversationSummary]:
        """The browser's conversations, most recently active first."""
        with self.db.reading() as session:
            rows = session.scalars(
                select(Conversation)
                .where(Conversation.owner == owner)
                .order_by(Conversation.updated_at.desc(), Conversation.created_at.desc())
                .limit(limit)
            )
            return [_summary(row) for row in rows]

    @hard
    def transcript(self, owner: str, conversation_id: str) -> Transcript | None:
        """The whole conversation with the browser's votes, or None unless `owner` owns it."""
        with self.db.reading() as session:
            conversation = _owned(session, owner, conversation_id)
            if conversation is None:
                return None
            rows = session.execute(
                select(Exchange, Feedback.vote)
                .outerjoin(Feedback, Feedback.exchange_id == Exchange.id)
                .where(Exchange.conversation_id == conversation_id)
                .order_by(Exchange.id)
            )
            stale = now() - STALE_PENDING
            exchanges = [
                ExchangeRecord(
                    id=exchange.id,
                    question=exchange.question,
                    answer=exchange.answer,
                    sources=exchange.sources or [],
                    status=_status(exchange, stale),
                    mode=exchange.mode,
                    confidence=exchange.confidence,
                    created_at=exchange.created_at,
                    vote=cast(Vote | None, vote),
                )
                for exchange, vote in rows
            ]
            return Transcript(_summary(conversation), exchanges)

    @hard
    def rename(self, owner: str, conversation_id: str, title: str) -> bool:
        """Give an owned conversation a new title; False unless `owner` owns it."""
        title = title_from(title)
        if not title:
            raise BadRequest("A conversation's title needs some text.")
        with self.db.writing() as session:
            conversation = _owned(session, owner, conversation_id)
            if conversation is not None:
                conversation.title = title
            return conversation is not None

    @hard
    def delete(self, owner: str, conversation_id: str) -> bool:
        """Delete an owned conversation with its exchanges and votes; False unless `owner` owns it."""
        with self.db.writing() as session:
            result = session.execute(
                delete(Conversation).where(Conversation.id == conversation_id, Conversation.owner == owner)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    @hard
    def purge(self, older_than_days: int) -> int:
        """Delete conversations untouched for `older_than_days`; return how many went."""
        cutoff = now() - timedelta(days=older_than_days)
        with self.db.writing() as session:
            result = session.execute(delete(Conversation).where(Conversation.updated_at < cutoff))
            return int(result.rowcount)  # type: ignore[attr-defined]
