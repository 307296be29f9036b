"""Questions waiting for their stream: the URL carries an opaque id, the question stays here."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, delete, insert, select, update

from app.store.database import Database
from app.store.models import PendingQuestion, new_id, now
from app.store.records import Claim
from app.store.soft import hard, soft

# A stream opens within a second of its question; past this an unclaimed question is stale.
CLAIM_SECONDS = 300

HOLD = insert(PendingQuestion)
_UNCLAIMED = (
    PendingQuestion.id == bindparam("p_id"),
    PendingQuestion.owner == bindparam("p_owner"),
    PendingQuestion.claimed_at.is_(None),
    PendingQuestion.created_at >= bindparam("cutoff"),
)
_CLAIMED = (PendingQuestion.question, PendingQuestion.exchange_id)
# One conditional statement each: of any number of concurrent claims on any hosts, one changes the row.
CLAIM = update(PendingQuestion).where(*_UNCLAIMED).values(claimed_at=bindparam("stamp")).returning(*_CLAIMED)
# Without stored conversations the claim deletes the question, so nothing of it outlives the claim.
CLAIM_AND_DELETE = delete(PendingQuestion).where(*_UNCLAIMED).returning(*_CLAIMED)


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
        row = {"id": pending_id, "owner": owner, "question": question, "exchange_id": exchange_id}
        with self.db.statements() as connection:
            connection.execute(HOLD, {**row, "created_at": now()})
        return pending_id

    @soft("claim")
    def claim(self, owner: str, pending_id: str, max_age: float = CLAIM_SECONDS) -> Claim | None:
        """The question, to the first claim by its owner within `max_age` seconds; None to every other."""
        stamp = now()
        values = {"p_id": pending_id, "p_owner": owner, "cutoff": stamp - timedelta(seconds=max_age)}
        with self.db.statements() as connection:
            if self.keep_claimed:
                row = connection.execute(CLAIM, {**values, "stamp": stamp}).one_or_none()
            else:
                row = connection.execute(CLAIM_AND_DELETE, values).one_or_none()
        return Claim(question=row.question, exchange_id=row.exchange_id) if row is not None else None

    @hard
    def runs_for(self, owner: str, exchange_ids: list[int]) -> dict[int, str]:
        """The question id (its answer run's id) of each of `owner`'s exchanges, by exchange id."""
        if not exchange_ids:
            return {}
        with self.db.reading() as session:
            rows = session.execute(
                select(PendingQuestion.id, PendingQuestion.exchange_id).where(
                    PendingQuestion.owner == owner, PendingQuestion.exchange_id.in_(exchange_ids)
                )
            )
            return {row.exchange_id: row.id for row in rows}

    @hard
    def purge(self, max_age: float = CLAIM_SECONDS) -> int:
        """Delete questions older than `max_age` seconds, claimed or not; return how many went."""
        cutoff = now() - timedelta(seconds=max_age)
        with self.db.writing() as session:
            result = session.execute(delete(PendingQuestion).where(PendingQuestion.created_at < cutoff))
            return int(result.rowcount)  # type: ignore[attr-defined]
