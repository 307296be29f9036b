"""The chat's streamed answer: answer events become SSE messages carrying server-rendered HTML."""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import current_app, render_template

from app.assistant.models import AnswerEvent, DoneEvent, Exchange, StatusEvent, TextEvent
from app.errors import AppError
from app.web.errors import describe
from app.web.markdown import render_markdown
from app.web.observability import record_answer
from app.web.sse import close_events, sse_message
from app.web.stream_tokens import commit_token

# Re-render the answer so far at most this often: smooth to read, without a render per token.
RENDER_EVERY_SECONDS = 0.1


def chat_messages(
    events: Iterator[AnswerEvent], question: str, turn: int, number: int, form: dict
) -> Iterator[str]:
    """SSE messages for one answer: `status`, `text` (sanitized HTML so far), then one `done`.

    `done` replaces the pending exchange with the finished one (or the error and "Try again") and asks the
    page to commit it. When the client goes away the server closes this generator (GeneratorExit at a
    yield); the `finally` then closes the answerer's stream, which stops the model call.
    """
    text, shown, rendered_at = "", "", float("-inf")
    try:
        for event in events:
            if isinstance(event, StatusEvent):
                if text != shown:  # a tool round may take long: show the text held back by the cadence
                    shown = text
                    yield sse_message("text", str(render_markdown(text)))
                yield sse_message("status", render_template("_stream_status.html", status=event.text))
            elif isinstance(event, TextEvent):
                text += event.text
                now = time.monotonic()
                if now - rendered_at >= RENDER_EVERY_SECONDS:
                    shown, rendered_at = text, now
                    yield sse_message("text", str(render_markdown(text)))
            elif isinstance(event, DoneEvent):
                answer = event.answer
                record_answer(answer)
                exchange = Exchange(question=question, answer=answer.markdown, sources=answer.sources)
                html = render_template(
                    "_stream_done.html",
                    exchange=exchange,
                    number=number,
                    commit_token=commit_token(exchange, turn),
                    **form,
                )
                yield sse_message("done", html)
                return
        raise RuntimeError("the answerer ended without an answer")
    except Exception as exc:  # the stream has sent its headers: the error travels as the last message
        yield sse_message("done", failed_html(exc, question, number, form))
    finally:
        close_events(events)


def failed_html(error: Exception, question: str, number: int, form: dict) -> str:
    """The pending exchange ended by the friendly error and "Try again", as the error handler shows it."""
    status, title, message, detail = describe(error)
    if status >= 500:
        if isinstance(error, AppError):
            current_app.logger.warning("%s while streaming an answer: %s", status, detail)
        else:
            current_app.logger.error("Unhandled error while streaming an answer", exc_info=error)
    return render_template(
        "_stream_failed.html",
        question=question,
        number=number,
        title=title,
        message=message,
        retry_question=question,
        **form,
    )
