"""Asked questions and their answer runs: the id a page's stream URL carries, mapped to its stored exchange,
so a reloaded page finds the answer being made for it (app/web/chat/follow.py)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, select

from app.store.database import Database
from app.store.models import PendingQuestion, new_id, now
from app.store.soft import hard, soft

# The longest a row is needed when nothing else says (the retention purge keeps rows as long as runs).
KEEP_SECONDS = 300

HOLD = insert(PendingQuestion)


class PendingQuestions:
    """Give each asked question an opaque id for its answer run, owned by the browser that asked it."""

    def __init__(self, db: Database):
        self.db = db

    @soft("hold")
    def hold(self, owner: str, question: str, exchange_id: int | None = None) -> str:
        """Keep `question` for `owner`; return the opaque id of its answer run."""
        pending_id = new_id()
        row = {"id": pending_id, "owner": owner, "question": question, "exchange_id": exchange_id}
        with self.db.statements() as connection:
            connection.execute(HOLD, {**row, "created_at": now()})
        return pending_id

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
    def purge(self, max_age: float = KEEP_SECONDS) -> int:
        """Delete questions older than `max_age` seconds; return how many went."""
        cutoff = now() - timedelta(seconds=max_age)
        with self.db.writing() as session:
            result = session.execute(delete(PendingQuestion).where(PendingQuestion.created_at < cutoff))
            return int(result.rowcount)  # type: ignore[attr-defined]
