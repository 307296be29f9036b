"""Server-Sent Events: framing messages and the response that carries them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Response, stream_with_context


def sse_message(event: str, data: str) -> str:
    """One SSE message: a named event whose data may span lines (each line gets its own `data:`)."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def sse_response(messages: Iterator[str]) -> Response:
    """A streamed text/event-stream response; the request context stays usable while it streams."""
    return Response(
        stream_with_context(messages),
        mimetype="text/event-stream",
        headers={
            "Cache-Control": "no-cache",
            # A buffering reverse proxy (nginx) would hold the pieces back until the answer is done.
            "X-Accel-Buffering": "no",
        },
    )


def close_events(events: Any) -> None:
    """Close an event iterator that can be closed (a generator): that stops the work behind it."""
    close = getattr(events, "close", None)
    if close is not None:
        close()
