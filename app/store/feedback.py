"""Votes on answers: one per exchange, changeable, by the browser that owns the conversation."""

from __future__ import annotations

from sqlalchemy import select

from app.errors import BadRequest
from app.store.database import Database
from app.store.models import COMMENT_CHARS, VOTES, Conversation, Exchange, Feedback, now
from app.store.records import Vote
from app.store.soft import hard


class Votes:
    """Record and change a browser's vote on an answer."""

    def __init__(self, db: Database):
        self.db = db

    @hard
    def vote(self, owner: str, exchange_id: int, vote: Vote, comment: str | None = None) -> bool:
        """Set `owner`'s vote on an exchange; a comment is kept on a down vote only. False unless owned."""
        if vote not in VOTES:
            raise BadRequest("A vote is 'up' or 'down'.")
        comment = " ".join((comment or "").split()) or None
        if comment is not None and len(comment) > COMMENT_CHARS:
            raise BadRequest(f"A comment holds at most {COMMENT_CHARS} characters.")
        with self.db.writing() as session:
            owned = session.scalar(
                select(Exchange.id)
                .join(Conversation, Conversation.id == Exchange.conversation_id)
                .where(
                    Exchange.id == exchange_id, Conversation.owner == owner, Conversation.deleted_at.is_(None)
                )
            )
            if owned is None:
                return False
            session.merge(
                Feedback(
                    exchange_id=exchange_id,
                    vote=vote,
                    comment=comment if vote == "down" else None,
                    updated_at=now(),
                )
            )
            return True

    @hard
    def get(self, owner: str, exchange_id: int) -> tuple[Vote, str | None] | None:
        """`owner`'s vote and comment on an exchange, or None."""
        with self.db.reading() as session:
            row = session.execute(
                select(Feedback.vote, Feedback.comment)
                .join(Exchange, Exchange.id == Feedback.exchange_id)
                .join(Conversation, Conversation.id == Exchange.conversation_id)
                .where(
                    Feedback.exchange_id == exchange_id,
                    Conversation.owner == owner,
                    Conversation.deleted_at.is_(None),
                )
            ).one_or_none()
            return (row.vote, row.comment) if row is not None else None
