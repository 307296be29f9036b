"""Server-Sent Events: framing messages, the response that carries them, and answers as SSE.

The chat and the JSON API stream an answer alike: one loop here walks the answer events and a face
(`AnswerFace`) says what each event becomes for its clients.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from flask import Response, stream_with_context

from app.assistant.base import Answer, AnswerEvent, DoneEvent, StatusEvent, TextEvent
from app.web.stream_slots import StreamSlot, TooManyStreams, claim_stream_slot


class AnswerFace(Protocol):
    """What one face (chat page, JSON API) sends for each event of a streamed answer."""

    def status(self, text: str) -> Iterator[str]:
        """Messages for a status line (e.g. "Searching the course materials…")."""
        ...

    def text(self, piece: str) -> Iterator[str]:
        """Messages for the next piece of the answer's text."""
        ...

    def done(self, answer: Answer) -> str:
        """The last message, for the finished answer."""
        ...

    def failed(self, error: Exception) -> str:
        """The last message when answering failed: the headers are sent, so the error travels as data."""
        ...


def answer_messages(
    events: Iterator[AnswerEvent], face: AnswerFace, slot: StreamSlot | None = None
) -> Iterator[str]:
    """SSE messages for one answer: status and text as they come, then exactly one last message.

    The answer holds one of its client's stream slots (`slot`, or one claimed when the stream starts); a
    client that holds MAX_STREAMS_PER_CLIENT already gets the refusal as the last message, and the model
    is not called. When the client goes away the server closes this generator (GeneratorExit at a yield);
    the `finally` then frees the slot and closes the answerer's stream, which stops the model call.
    """
    if slot is None:
        try:
            slot = claim_stream_slot()
        except TooManyStreams as refused:
            close_events(events)
            yield face.failed(refused)
            return
    try:
        for event in events:
            if isinstance(event, StatusEvent):
                yield from face.status(event.text)
            elif isinstance(event, TextEvent):
                yield from face.text(event.text)
            elif isinstance(event, DoneEvent):
                yield face.done(event.answer)
                return
        raise RuntimeError("the answerer ended without an answer")
    except Exception as exc:  # the stream has sent its headers: the error travels as the last message
        yield face.failed(exc)
    finally:
        slot.release()
        close_events(events)


def sse_message(event: str, data: str) -> str:
    """One SSE message: a named event whose data may span lines (each line gets its own `data:`)."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def sse_response(messages: Iterator[str], slot: StreamSlot | None = None) -> Response:
    """A streamed text/event-stream response; the request context stays usable while it streams.

    A `slot` claimed before streaming is freed when the response closes, even one never iterated.
    """
    response = Response(
        stream_with_context(messages),
        mimetype="text/event-stream",
        headers={
            "Cache-Control": "no-cache",
            # A buffering reverse proxy (nginx) would hold the pieces back until the answer is done.
            "X-Accel-Buffering": "no",
        },
    )
    if slot is not None:
        response.call_on_close(slot.release)
    return response


def close_events(events: Any) -> None:
    """Close an event iterator that can be closed (a generator): that stops the work behind it."""
    close = getattr(events, "close", None)
    if close is not None:
        close()
