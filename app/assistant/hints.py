"""Hint mode for answers that quote the course: they end by saying where to read, so the student works the
rest out from the lesson rather than from the quote."""

from __future__ import annotations

from collections.abc import Iterator

from app.assistant.base import Answerer, AnswerEvent, DoneEvent, Exchange, Source, TextEvent

MAX_PLACES = 3


def where_to_read(sources: list[Source]) -> str:
    """The closing note naming the lessons (and their moments) to read; '' when no lesson was cited."""
    places = [source.label for source in sources if source.lesson_number is not None][:MAX_PLACES]
    if not places:
        return ""
    return (
        "\n\n**Where to read:** "
        + "; ".join(places)
        + ". This course gives hints rather than solutions: work the rest out from there."
    )


class WhereToRead:
    """An answerer whose finished answers end with where to read (a course space in hint mode)."""

    def __init__(self, answerer: Answerer):
        self.answerer = answerer

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """The answerer's events, with the note streamed before the finished answer, which carries it too."""
        for event in self.answerer.stream(question, history):
            if isinstance(event, DoneEvent):
                note = where_to_read(event.answer.sources)
                if note:
                    yield TextEvent(note)
                    answer = event.answer.model_copy(update={"markdown": event.answer.markdown + note})
                    event = DoneEvent(answer)
            yield event
