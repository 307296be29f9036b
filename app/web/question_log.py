"""The question log, fed by every face that answers: the chat's stream, the chat without JS, the JSON API."""

from __future__ import annotations

from collections.abc import Iterator

from app.assistant import retrieval
from app.assistant.base import Answer, AnswerEvent, DoneEvent
from app.services import services
from app.store.records import QuestionEntry


def logged(
    events: Iterator[AnswerEvent], question: str, exchange_id: int | None = None
) -> Iterator[AnswerEvent]:
    """Pass the answer events through, logging the question when its answer is done."""
    seen = retrieval.Retrieval()
    try:
        while True:
            # Watched only while the answerer works on its next event, never across a yield: a generator
            # left open must not leave its watch behind on a reused thread.
            with retrieval.watching(seen):
                event = next(events, None)
            if event is None:
                return
            if isinstance(event, DoneEvent):
                record(question, event.answer, seen, exchange_id)
            yield event
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()  # stops the model call when our consumer stops early


def record(question: str, answer: Answer, seen: retrieval.Retrieval, exchange_id: int | None) -> None:
    """Log one answered question; a database that is down loses the entry (soft), never the answer."""
    lessons = [
        (source.course_title, source.lesson_number)
        for source in answer.sources
        if source.lesson_number is not None
    ]
    # The course the question was about: the answer's, else the one the searches point at as a whole; the
    # closest lesson is that course's (one strong passage elsewhere does not make it another course's gap).
    course = answer.sources[0].course_title if answer.sources else seen.about
    closest = seen.closest_in(course) or seen.closest
    entry = QuestionEntry(
        question=question,
        course=course,
        lessons=lessons,
        # An answer that cites nothing did not answer from the course materials.
        declined=not answer.sources,
        confidence=seen.confidence,
        mode=answer.mode,
        closest=closest,
        exchange_id=exchange_id,
    )
    services().store.questions.record(entry)
