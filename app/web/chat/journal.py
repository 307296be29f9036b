"""Where an answer's events are kept for pages served by other workers: Redis when RATELIMIT_STORAGE_URI
names one, else the database (polled); with conversations not stored, nowhere but the worker's memory.

Every journal keeps a run's events in order (numbered from 0), its heartbeat and end, and a Stop asked
from another worker. Failures cost a follower in another worker its view, never the answer: they are logged.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

from flask import Flask

from app.store.runs import RUN_KEEP_SECONDS, AnswerRuns, RunState

log = logging.getLogger(__name__)
REDIS_SCHEMES = ("redis://", "rediss://")
KEY = "course-assistant:answer:{}"
# A follower's wait for new events in one read: short, so it notices a client that left.
READ_WAIT_SECONDS = 1.0
DB_POLL_SECONDS = 0.2


class Journal:
    """A shared log of answer runs, written by the worker making each answer. This one keeps nothing: with
    conversations not stored, an answer is followed only in the worker that makes it."""

    def start(self, run_id: str) -> None:
        """Record a run that starts now."""

    def append(self, run_id: str, seq: int, event: dict[str, Any]) -> None:
        """Keep event `seq` of a run."""

    def end(self, run_id: str) -> None:
        """Mark a run ended (after its last event)."""

    def beat(self, run_ids: list[str]) -> None:
        """Renew the heartbeat of runs in progress in this process."""

    def request_stop(self, run_id: str) -> None:
        """Ask whichever worker makes the answer to stop it."""

    def stop_requested(self, run_ids: list[str]) -> set[str]:
        """Which of these runs were asked to stop."""
        return set()

    def read(self, run_id: str, start: int, wait: float) -> list[dict[str, Any]]:
        """Events from `start` on, waiting up to `wait` seconds for one when there are none yet."""
        return []

    def state(self, run_id: str) -> RunState | None:
        """The run's heartbeat age and end; None for a run this journal does not know."""
        return None


class DatabaseJournal(Journal):
    """The runs in the database (app/store/runs.py): followers poll for new events."""

    def __init__(self, runs: AnswerRuns):
        self.runs = runs

    def start(self, run_id: str) -> None:
        """Insert the run."""
        self.runs.start(run_id)

    def append(self, run_id: str, seq: int, event: dict[str, Any]) -> None:
        """Insert the event."""
        self.runs.append(run_id, seq, event)

    def end(self, run_id: str) -> None:
        """Stamp its end."""
        self.runs.end(run_id)

    def beat(self, run_ids: list[str]) -> None:
        """Stamp the heartbeats."""
        self.runs.beat(run_ids)

    def request_stop(self, run_id: str) -> None:
        """Set its stop flag."""
        self.runs.request_stop(run_id)

    def stop_requested(self, run_ids: list[str]) -> set[str]:
        """The flagged ones."""
        return self.runs.stop_requested(run_ids)

    def read(self, run_id: str, start: int, wait: float) -> list[dict[str, Any]]:
        """Poll once, and once more after a short pause when nothing was there."""
        events = self.runs.events(run_id, start)
        if not events and wait > 0:
            time.sleep(min(wait, DB_POLL_SECONDS))
            events = self.runs.events(run_id, start)
        return events

    def state(self, run_id: str) -> RunState | None:
        """Read the run's row."""
        return self.runs.state(run_id)


class RedisJournal(Journal):
    """Runs in Redis: a stream of events per run (entry id = event number + 1) and a hash of its state."""

    def __init__(self, url: str):
        import redis

        self.errors: tuple[type[Exception], ...] = (redis.RedisError,)
        # The socket's timeout outlasts a blocking read, so a read that waits is never cut as a failure.
        self.client = redis.Redis.from_url(
            url, socket_timeout=READ_WAIT_SECONDS + 4, socket_connect_timeout=2
        )

    def _events_key(self, run_id: str) -> str:
        return KEY.format(run_id) + ":events"

    def _state_key(self, run_id: str) -> str:
        return KEY.format(run_id) + ":state"

    def _soft(self, what: str, call: Any, default: Any = None) -> Any:
        """Run `call`; on a Redis failure log it and return `default`."""
        try:
            return call()
        except self.errors as exc:
            log.warning("redis %s for an answer run failed: %s", what, exc)
            return default

    def start(self, run_id: str) -> None:
        """The run's state hash, with a fresh heartbeat."""
        key = self._state_key(run_id)
        pipe = self.client.pipeline()
        pipe.hset(key, mapping={"beat": time.time(), "ended": 0, "stop": 0})
        pipe.expire(key, RUN_KEEP_SECONDS)
        self._soft("start", pipe.execute)

    def append(self, run_id: str, seq: int, event: dict[str, Any]) -> None:
        """XADD with the event's number as its id, so a reader resumes at any number."""
        key = self._events_key(run_id)
        pipe = self.client.pipeline()
        pipe.xadd(key, {"e": json.dumps(event)}, id=f"{seq + 1}-0")
        pipe.expire(key, RUN_KEEP_SECONDS)
        self._soft("append", pipe.execute)

    def end(self, run_id: str) -> None:
        """Mark it ended."""
        self._soft("end", lambda: self.client.hset(self._state_key(run_id), "ended", 1))

    def beat(self, run_ids: list[str]) -> None:
        """Renew every heartbeat in one round trip."""
        pipe = self.client.pipeline()
        for run_id in run_ids:
            pipe.hset(self._state_key(run_id), "beat", time.time())
        self._soft("beat", pipe.execute)

    def request_stop(self, run_id: str) -> None:
        """Set its stop flag."""
        self._soft("stop", lambda: self.client.hset(self._state_key(run_id), "stop", 1))

    def stop_requested(self, run_ids: list[str]) -> set[str]:
        """The flagged ones, in one round trip."""
        pipe = self.client.pipeline()
        for run_id in run_ids:
            pipe.hget(self._state_key(run_id), "stop")
        flags = self._soft("stop check", pipe.execute, [])
        return {run_id for run_id, flag in zip(run_ids, flags, strict=False) if flag in (b"1", "1")}

    def read(self, run_id: str, start: int, wait: float) -> list[dict[str, Any]]:
        """XREAD from the event before `start`, blocking up to `wait` seconds."""
        block = int(wait * 1000) or None
        key = self._events_key(run_id)
        found = self._soft("read", lambda: self.client.xread({key: f"{start}-0"}, block=block), [])
        return [json.loads(fields[b"e"]) for _key, entries in found or [] for _id, fields in entries]

    def state(self, run_id: str) -> RunState | None:
        """The state hash, or None when there is none (or Redis cannot answer)."""
        values = self._soft("state", lambda: self.client.hmget(self._state_key(run_id), "beat", "ended"))
        if not values or values[0] is None:
            return None
        return RunState(time.time() - float(values[0]), values[1] in (b"1", "1"))


_lock = threading.Lock()


def journal(app: Flask) -> Journal:
    """The app's journal, made once: Redis, the database, or none (see the module's docstring)."""
    with _lock:
        found = app.extensions.get("answer_journal")
        if found is None:
            services = app.extensions["services"]
            uri = services.settings.ratelimit_storage_uri
            if uri.startswith(REDIS_SCHEMES):
                found = RedisJournal(uri)
            elif services.settings.store_conversations:
                found = DatabaseJournal(services.store.runs)
            else:
                found = Journal()
            app.extensions["answer_journal"] = found
        return found
