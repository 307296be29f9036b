"""Answers made in the background: each runs to its end (or Stop, or an error) in a thread of the worker
that took the question, whoever watches, and keeps its events for any page that follows it (follow.py).

A run's events, numbered from 0: `start` (whose answer it is), then `status` and `text` (text gathered at
most every RENDER_EVERY_SECONDS, so that every follower renders the same updates), then one last event:
`done`, `failed`, `stopped` or `interrupted`. They live in this process (for followers here) and in the
journal (for followers in other workers, journal.py). A heartbeat in the journal says the run is alive;
"interrupted" is what a follower sees when it stops: the process making the answer died.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, current_app, g

from app.assistant.base import AnswerEvent, DoneEvent, StatusEvent, TextEvent
from app.web.chat.asking import finish
from app.web.chat.journal import Journal, journal
from app.web.errors import public_error
from app.web.observability import log_answer_run, record_answer
from app.web.sse import close_events
from app.web.stream_slots import StreamSlot

log = logging.getLogger(__name__)
# Text is published at most this often: smooth to read, without a message per token.
RENDER_EVERY_SECONDS = 0.1
# The heartbeat's period, and the silence after which a run's worker is taken for dead.
BEAT_SECONDS = 2.0
DEAD_AFTER_SECONDS = 12.0
# An ended run stays in memory this long, for a follower that comes late.
LINGER_SECONDS = 300.0
LAST_EVENTS = ("done", "failed", "stopped", "interrupted")
clock = time.monotonic  # the text cadence's clock (a test paces it)


class AnswerRun:
    """One answer being made: its events so far, its text so far, and how it ended."""

    def __init__(self, run_id: str, start: dict[str, Any], app: Flask, journal: Journal):
        self.run_id, self.app, self.journal = run_id, app, journal
        self.owner: str = start["owner"]
        self.exchange_id: int | None = start["exchange_id"]
        self.events: list[dict[str, Any]] = []
        self.text = ""
        self.ended: str | None = None
        self.ended_at = float("inf")
        self._end_lock = threading.Lock()
        self._changed = threading.Condition()
        self.publish({"kind": "start", **start})

    def end(self, how: str) -> bool:
        """Mark the run ended `how`; True only for the first ending (the others lost the race)."""
        with self._end_lock:
            if self.ended is not None:
                return False
            self.ended, self.ended_at = how, time.monotonic()
            return True

    def publish(self, event: dict[str, Any]) -> None:
        """Keep the next event, here and in the journal; nothing follows a last event."""
        with self._changed:
            if self.events and self.events[-1]["kind"] in LAST_EVENTS:
                return
            seq = len(self.events)
            self.events.append(event)
            self.journal.append(self.run_id, seq, event)
            self._changed.notify_all()

    def read(self, start: int, wait: float) -> list[dict[str, Any]]:
        """Events from `start` on, waiting up to `wait` seconds when there are none yet."""
        with self._changed:
            if len(self.events) <= start:
                self._changed.wait(wait)
            return self.events[start:]

    def stop(self) -> bool:
        """Stop the answer, keeping what it said so far; False when it had ended already."""
        if not self.end("stopped"):
            return False
        finish(self.exchange_id, "stopped", text=self.text)
        self.publish({"kind": "stopped", "text": self.text})
        return True

    def interrupt(self) -> None:
        """End the answer as interrupted: the process is going away before it is done."""
        if self.end("interrupted"):
            finish(self.exchange_id, "interrupted", text=self.text)
            self.publish({"kind": "interrupted", "text": self.text})

    def work(self, events: Iterator[AnswerEvent], slot: StreamSlot, request_id: str) -> None:
        """Make the answer (in its own thread), then free the client's slot and close the model call."""
        with self.app.app_context():
            # The answer's mode and tokens go to a log line of its own, under the question's request id.
            g.request_record = record = {"request_id": request_id, "started": time.perf_counter()}
            try:
                self._drive(events)
            except Exception as exc:  # the answerer failed: the followers show the friendly error
                if self.end("failed"):
                    finish(self.exchange_id, "failed", text=self.text)
                    _status, title, message, _detail = public_error(exc, "while making an answer")
                    self.publish({"kind": "failed", "title": title, "message": message})
            finally:
                slot.release()
                close_events(events)
                self.journal.end(self.run_id)
                log_answer_run(record, self.ended)

    def _drive(self, events: Iterator[AnswerEvent]) -> None:
        """Publish the answer's events until its end or Stop (which keeps the partial answer itself)."""
        held, published_at = "", float("-inf")
        for event in events:
            if self.ended is not None:
                return  # stopped: closing `events` ends the model call
            if isinstance(event, StatusEvent):
                if held:
                    self.publish({"kind": "text", "text": held})
                    held = ""
                self.publish({"kind": "status", "text": event.text})
            elif isinstance(event, TextEvent):
                self.text += event.text
                held += event.text
                if clock() - published_at >= RENDER_EVERY_SECONDS:
                    self.publish({"kind": "text", "text": held})
                    held, published_at = "", clock()
            elif isinstance(event, DoneEvent):
                if held:
                    self.publish({"kind": "text", "text": held})
                if self.end("answered"):
                    record_answer(event.answer)
                    finish(self.exchange_id, "answered", event.answer)
                    self.publish({"kind": "done", "answer": event.answer.model_dump(mode="json")})
                return
        if self.ended is None:
            raise RuntimeError("the answerer ended without an answer")


class Runs:
    """The runs of this process, by id; a heartbeat thread keeps their journals told they are alive."""

    def __init__(self) -> None:
        self._runs: dict[str, AnswerRun] = {}
        self._lock = threading.Lock()
        self._keeper: threading.Thread | None = None

    def add(self, run: AnswerRun) -> None:
        """Keep a run that started, and make sure the heartbeat runs."""
        with self._lock:
            self._runs[run.run_id] = run
            if self._keeper is None or not self._keeper.is_alive():
                self._keeper = threading.Thread(target=self._keep, name="answer-heartbeat", daemon=True)
                self._keeper.start()

    def get(self, run_id: str) -> AnswerRun | None:
        """The run with this id in this process, if any."""
        with self._lock:
            return self._runs.get(run_id)

    def running(self) -> list[AnswerRun]:
        """The runs not ended yet."""
        with self._lock:
            return [run for run in self._runs.values() if run.ended is None]

    def _keep(self) -> None:
        """Every BEAT_SECONDS: renew heartbeats, take Stops asked elsewhere, forget runs long ended."""
        while True:
            time.sleep(BEAT_SECONDS)
            try:
                self._beat()
            except Exception:  # a heartbeat that failed is tried again; the thread must not die
                log.exception("answer heartbeat failed")

    def _beat(self) -> None:
        """One heartbeat."""
        by_journal: dict[int, list[AnswerRun]] = {}
        for run in self.running():
            by_journal.setdefault(id(run.journal), []).append(run)
        for runs in by_journal.values():
            ids = [run.run_id for run in runs]
            runs[0].journal.beat(ids)
            stopped = runs[0].journal.stop_requested(ids)
            for run in runs:
                if run.run_id in stopped:
                    with run.app.app_context():
                        run.stop()
        cutoff = time.monotonic() - LINGER_SECONDS
        with self._lock:
            for run_id in [key for key, run in self._runs.items() if run.ended_at < cutoff]:
                del self._runs[run_id]


RUNS = Runs()


def start_run(
    run_id: str, start: dict[str, Any], events: Iterator[AnswerEvent], slot: StreamSlot
) -> AnswerRun:
    """Start making an answer in a thread of its own; `start` says whose it is (owner, question, ids)."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    shared = journal(app)
    shared.start(run_id)
    run = AnswerRun(run_id, start, app, shared)
    RUNS.add(run)
    request_id = g.get("request_record", {}).get("request_id", "")
    threading.Thread(target=run.work, args=(events, slot, request_id), name="answer", daemon=True).start()
    return run


def settle(timeout: float) -> None:
    """Let the runs in progress finish within `timeout` seconds, then end the rest as interrupted (a worker
    going away: gunicorn's worker_exit)."""
    deadline = time.monotonic() + timeout
    while RUNS.running() and time.monotonic() < deadline:
        time.sleep(0.1)
    for run in RUNS.running():
        with run.app.app_context():
            run.interrupt()
