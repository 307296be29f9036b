"""Answer runs in the database: each one's events in order, its heartbeat, its end and a Stop from elsewhere.

Pages served by one worker follow an answer made in another by reading these rows (when no Redis is set).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from app.store.database import Database
from app.store.models import AnswerRun, AnswerRunEvent, now
from app.store.soft import describe, soft

NEW_RUN = insert(AnswerRun)
NEW_EVENT = insert(AnswerRunEvent)
EVENTS_FROM = (
    select(AnswerRunEvent.data)
    .where(AnswerRunEvent.run_id == bindparam("r_id"), AnswerRunEvent.seq >= bindparam("start"))
    .order_by(AnswerRunEvent.seq)
)
log = logging.getLogger(__name__)
# Longer than any answer takes: a run's events (and the question row naming it) are kept this long.
RUN_KEEP_SECONDS = 3600
STATE = select(AnswerRun.beat_at, AnswerRun.ended_at).where(AnswerRun.id == bindparam("r_id"))


@dataclass(frozen=True)
class RunState:
    """What a follower needs to know of a run besides its events: how old its heartbeat is, and its end."""

    seconds_since_beat: float
    ended: bool


class AnswerRuns:
    """The runs table and its events: written by the worker making the answer, read by any other."""

    def __init__(self, db: Database):
        self.db = db

    @soft("journal")
    def start(self, run_id: str) -> None:
        """Record a run that starts now (its heartbeat fresh)."""
        stamp = now()
        with self.db.statements() as connection:
            connection.execute(
                NEW_RUN,
                {"id": run_id, "beat_at": stamp, "created_at": stamp, "stop_requested": False},
            )

    @soft("journal")
    def append(self, run_id: str, seq: int, data: dict[str, Any]) -> None:
        """Keep event number `seq` of a run."""
        with self.db.statements() as connection:
            connection.execute(NEW_EVENT, {"run_id": run_id, "seq": seq, "data": data})

    @soft("journal")
    def end(self, run_id: str) -> None:
        """Mark a run ended (its last event is kept already)."""
        with self.db.statements() as connection:
            connection.execute(update(AnswerRun).where(AnswerRun.id == run_id).values(ended_at=now()))

    @soft("journal")
    def beat(self, run_ids: list[str]) -> None:
        """Renew the heartbeat of runs still in progress in this process."""
        with self.db.statements() as connection:
            connection.execute(update(AnswerRun).where(AnswerRun.id.in_(run_ids)).values(beat_at=now()))

    @soft("journal")
    def request_stop(self, run_id: str) -> None:
        """Ask the worker making the answer to stop it."""
        with self.db.statements() as connection:
            connection.execute(update(AnswerRun).where(AnswerRun.id == run_id).values(stop_requested=True))

    def events(self, run_id: str, start: int) -> list[dict[str, Any]]:
        """The run's events from number `start` on (none while the database cannot answer)."""
        try:
            with self.db.statements() as connection:
                return [row.data for row in connection.execute(EVENTS_FROM, {"r_id": run_id, "start": start})]
        except SQLAlchemyError as exc:
            _log_read(exc)
            return []

    def state(self, run_id: str) -> RunState | None:
        """The run's heartbeat age and end; None when there is no such run (or the database is down)."""
        try:
            with self.db.statements() as connection:
                row = connection.execute(STATE, {"r_id": run_id}).one_or_none()
        except SQLAlchemyError as exc:
            _log_read(exc)
            return None
        if row is None:
            return None
        return RunState((now() - row.beat_at).total_seconds(), row.ended_at is not None)

    def stop_requested(self, run_ids: list[str]) -> set[str]:
        """Which of these runs another worker asked to stop."""
        try:
            with self.db.statements() as connection:
                rows = connection.execute(
                    select(AnswerRun.id).where(AnswerRun.id.in_(run_ids), AnswerRun.stop_requested)
                )
                return {row.id for row in rows}
        except SQLAlchemyError as exc:
            _log_read(exc)
            return set()

    def purge(self, max_age: float) -> int:
        """Delete runs (and their events) started more than `max_age` seconds ago; return how many went."""
        cutoff = now() - timedelta(seconds=max_age)
        with self.db.writing() as session:
            old = select(AnswerRun.id).where(AnswerRun.created_at < cutoff)
            session.execute(delete(AnswerRunEvent).where(AnswerRunEvent.run_id.in_(old)))
            result = session.execute(delete(AnswerRun).where(AnswerRun.created_at < cutoff))
            return int(result.rowcount)  # type: ignore[attr-defined]


def _log_read(exc: SQLAlchemyError) -> None:
    """One warning for a read a follower retries anyway."""
    log.warning("reading an answer run failed: %s", describe(exc))
