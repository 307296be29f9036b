"""Following an answer run from any page: what was said so far, then the answer live, to its end.

A run made in this process is read from memory; one made in another worker from the journal (journal.py).
Each message batch carries the number of the run event it renders as its SSE `id`, so a browser that lost
its connection resumes after it (Last-Event-ID); without one, the page's answer is emptied and rebuilt.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Protocol

from flask import current_app, url_for

from app.services import services
from app.store.soft import StoreUnavailable
from app.web.chat.exchanges import ExchangeView
from app.web.chat.journal import READ_WAIT_SECONDS, Journal, journal
from app.web.chat.run import BEAT_SECONDS, DEAD_AFTER_SECONDS, LAST_EVENTS, RUNS, AnswerRun
from app.web.chat.stream import ChatAnswer

# A comment this often while nothing happens, so a page that left is noticed and its thread freed.
KEEPALIVE_SECONDS = 10.0
# How soon the browser reconnects after a lost connection (its default is a few seconds).
RETRY_MS = 1000


class RunSource(Protocol):
    """Where a follower reads a run's events."""

    def read(self, start: int, wait: float) -> list[dict[str, Any]]:
        """Events from `start` on, waiting up to `wait` seconds for one."""
        ...

    def alive(self) -> bool:
        """False once the run can say nothing more: its worker died."""
        ...


class LocalRun:
    """A run made in this process."""

    def __init__(self, run: AnswerRun):
        self.run = run

    def read(self, start: int, wait: float) -> list[dict[str, Any]]:
        """From memory, woken by each new event."""
        return self.run.read(start, wait)

    def alive(self) -> bool:
        """Until it ends, and after, when its last event is kept (always, short of a bug)."""
        return self.run.ended is None or self.run.events[-1]["kind"] in LAST_EVENTS


class SharedRun:
    """A run made in another worker, read from the journal; alive while its heartbeat is."""

    def __init__(self, shared: Journal, run_id: str):
        self.journal, self.run_id = shared, run_id
        self._checked_at, self._alive = time.monotonic(), True

    def read(self, start: int, wait: float) -> list[dict[str, Any]]:
        """From the journal."""
        return self.journal.read(self.run_id, start, wait)

    def alive(self) -> bool:
        """Whether its heartbeat is recent, asked at most once a heartbeat."""
        if time.monotonic() - self._checked_at >= BEAT_SECONDS:
            self._checked_at = time.monotonic()
            state = self.journal.state(self.run_id)
            self._alive = state is not None and state.seconds_since_beat < DEAD_AFTER_SECONDS
        return self._alive


def find_run(run_id: str) -> tuple[RunSource, dict[str, Any]] | None:
    """The run's source and its `start` event (whose answer it is), or None for a run nobody knows."""
    run = RUNS.get(run_id)
    if run is not None:
        return LocalRun(run), run.events[0]
    shared = journal(current_app._get_current_object())  # type: ignore[attr-defined]
    events = shared.read(run_id, 0, 0)
    if events and events[0]["kind"] == "start":
        return SharedRun(shared, run_id), events[0]
    return None


def followable(run_id: str) -> bool:
    """True when a page can follow the run: made here, or in a worker whose heartbeat is recent."""
    if RUNS.get(run_id) is not None:
        return True
    state = journal(current_app._get_current_object()).state(run_id)  # type: ignore[attr-defined]
    return state is not None and (state.ended or state.seconds_since_beat < DEAD_AFTER_SECONDS)


def follow(source: RunSource, face: ChatAnswer, last_id: int | None) -> Iterator[str]:
    """SSE messages for a run: events after `last_id` (all, after a reset, without one), live to the end."""
    yield f"retry: {RETRY_MS}\n\n"
    if last_id is None:
        yield face.reset()
    seq, quiet_since = 0, time.monotonic()
    while True:
        events = source.read(seq, READ_WAIT_SECONDS)
        for event in events:
            messages = face.render(event)  # rendered even when not sent: the page's state is rebuilt
            last = event["kind"] in LAST_EVENTS
            # The id rides on the last message; an event that shows nothing needs none (it shows nothing when
            # rendered again after a resume either). The last event always goes: it replaces the exchange.
            if messages and (last_id is None or seq > last_id or last):
                yield "".join(messages)[:-1] + f"id: {seq}\n\n"
            if last:
                return
            seq += 1
        if events:
            quiet_since = time.monotonic()
        elif not source.alive():
            yield face.unfinished("interrupted")
            return
        elif time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
            yield ": waiting\n\n"
            quiet_since = time.monotonic()


def last_event_id(header: str | None) -> int | None:
    """The run event a reconnecting browser saw last (its Last-Event-ID), or None."""
    try:
        return int(header) if header is not None else None
    except ValueError:
        return None


def attach_running(views: list[ExchangeView], owner: str | None) -> bool:
    """Point each pending exchange at its answer run, or mark it interrupted when that run's worker died;
    True when the page follows one."""
    pending = [view for view in views if view.status == "pending" and view.id is not None]
    if not pending or owner is None:
        return False
    try:
        runs = services().store.pending.runs_for(owner, [view.id for view in pending if view.id])
    except StoreUnavailable:
        runs = {}
    for view in pending:
        run_id = runs.get(view.id) if view.id is not None else None
        if run_id is not None and followable(run_id):
            view.run_id = run_id
            view.stream_url = url_for("chat.stream", pending_id=run_id, c=view.conversation_id, n=view.number)
        else:
            view.status = "interrupted"
    return any(view.run_id for view in pending)
