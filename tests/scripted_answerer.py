"""A stand-in answerer for streaming tests: yields scripted events, can hold at a gate, records closing."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from app.assistant.base import AnswerEvent, Exchange, Source

# A lesson of the test library, as an answer would cite it.
FIXTURES_SOURCE = Source(
    label="Python Testing with Pytest – Lesson 2: Fixtures",
    course_title="Python Testing with Pytest",
    lesson_number=2,
    lesson_title="Fixtures",
    lesson_link="https://example.com/courses/pytest/lesson-2",
    snippet="Fixtures provide setup.",
)
# A test that forgets to open the gate fails instead of hanging the suite.
GATE_TIMEOUT = 30


class ScriptedAnswerer:
    """Yield `events` in order (an Exception among them is raised); wait before `hold_at` until released."""

    def __init__(self, events: list[AnswerEvent | Exception], hold_at: int | None = None):
        self.events = events
        self.hold_at = hold_at
        self.gate = threading.Event()
        self.held = threading.Event()
        self.closed = threading.Event()
        self.questions: list[str] = []
        self.histories: list[list[Exchange]] = []

    def release(self) -> None:
        """Let a held stream go on."""
        self.gate.set()

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """The scripted events, as an answerer's stream would yield them."""
        self.questions.append(question)
        self.histories.append(list(history))
        try:
            for position, event in enumerate(self.events):
                if position == self.hold_at:
                    self.held.set()
                    if not self.gate.wait(GATE_TIMEOUT):
                        raise TimeoutError("the test never released the scripted answerer")
                if isinstance(event, Exception):
                    raise event
                yield event
        except GeneratorExit:
            self.closed.set()
            raise


def use_answerer(app, answerer: ScriptedAnswerer) -> None:
    """Make the app's assistant answer with `answerer` (built as the app builds it, then swapped in)."""
    app.extensions["services"].assistant._answerer = answerer
