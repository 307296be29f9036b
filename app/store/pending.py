"""Questions waiting for their stream: the URL carries an opaque id, the question stays here."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, update

from app.store.database import Database
from app.store.models import PendingQuestion, new_id, now
from app.store.records import Claim
from app.store.soft import hard, soft

# A stream opens within a second of its question; past this an unclaimed question is stale.
CLAIM_SECONDS = 300


class PendingQuestions:
    """Hold a question for the browser that asked it, and hand it to exactly one stream."""

    def __init__(self, db: Database, keep_claimed: bool = True):
        self.db = db
        # With conversations stored, a claimed row stays until purged (its exchange holds the question too).
        self.keep_claimed = keep_claimed

    @soft("hold")
    def hold(self, owner: str, question: str, exchange_id: int | None = None) -> str:
        """Keep `question` for `owner`'s stream; return the opaque id the stream URL carries."""
        pending_id = new_id()
        with self.db.statements() as connection:
            connection.execute(
                insert(PendingQuestion).values(
                    id=pending_id, owner=owner, question=question, exchange_id=exchange_id, created_at=now()
                )
            )
        return pending_id

    @soft("claim")
    def claim(self, owner: str, pending_id: str, max_age: float = CLAIM_SECONDS) -> Claim | None:
        """The question, to the first claim by its owner within `max_age` seconds; None to every other."""
        unclaimed = (
            PendingQuestion.id == pending_id,
            PendingQuestion.owner == owner,
            PendingQuestion.claimed_at.is_(None),
            PendingQuestion.created_at >= now() - timedelta(seconds=max_age),
        )
        # One conditional statement: of any number of concurrent claims on any hosts, one changes the row.
        # Without stored conversations the claim deletes the question, so nothing of it outlives the claim.
        claim = (
            update(PendingQuestion).where(*unclaimed).values(claimed_at=now())
            if self.keep_claimed
            else delete(PendingQuestion).where(*unclaimed)
        )
        with self.db.statements() as connection:
            row = connection.execute(
                claim.returning(PendingQuestion.question, PendingQuestion.exchange_id)
            ).one_or_none()
        return Claim(question=row.question, exchange_id=row.exchange_id) if row is not None else None

    @hard
    def purge(self, max_age: float = CLAIM_SECONDS) -> int:
        """Delete questions older than `max_age` seconds, claimed or not; return how many went."""
        cutoff = now() - timedelta(seconds=max_age)
        with self.db.writing() as session:
            result = session.execute(delete(PendingQuestion).where(PendingQuestion.created_at < cutoff))
            return int(result.rowcount)  # type: ignore[attr-defined]
