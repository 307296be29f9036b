"""The chat's streamed answer: answer events become SSE messages carrying server-rendered HTML."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import render_template

from app.assistant.base import Answer, Exchange
from app.web.chat.tokens import commit_token
from app.web.errors import public_error
from app.web.markdown import render_markdown
from app.web.observability import record_answer
from app.web.sse import sse_message

# Re-render the answer so far at most this often: smooth to read, without a render per token.
RENDER_EVERY_SECONDS = 0.1


class ChatAnswer:
    """The chat's face of a streamed answer: `status`, `text` (sanitized HTML so far), then one `done`.

    `done` replaces the pending exchange with the finished one (or the error and "Try again") and asks the
    page to commit it.
    """

    def __init__(self, question: str, turn: int, number: int, form: dict[str, Any]):
        self.question, self.turn, self.number, self.form = question, turn, number, form
        self._text, self._shown, self._rendered_at = "", "", float("-inf")

    def status(self, text: str) -> Iterator[str]:
        """The status line; first the text held back by the cadence, since a tool round may take long."""
        if self._text != self._shown:
            self._shown = self._text
            yield sse_message("text", str(render_markdown(self._text)))
        yield sse_message("status", render_template("chat/_stream_status.html", status=text))

    def text(self, piece: str) -> Iterator[str]:
        """The answer so far as HTML, at most every RENDER_EVERY_SECONDS."""
        self._text += piece
        now = time.monotonic()
        if now - self._rendered_at >= RENDER_EVERY_SECONDS:
            self._shown, self._rendered_at = self._text, now
            yield sse_message("text", str(render_markdown(self._text)))

    def done(self, answer: Answer) -> str:
        """The finished exchange, with the token that commits it to the history cookie."""
        record_answer(answer)
        exchange = Exchange(question=self.question, answer=answer.markdown, sources=answer.sources)
        html = render_template(
            "chat/_stream_done.html",
            exchange=exchange,
            number=self.number,
            commit_token=commit_token(exchange, self.turn),
            **self.form,
        )
        return sse_message("done", html)

    def failed(self, error: Exception) -> str:
        """The exchange ended by the friendly error."""
        return sse_message("done", failed_html(error, self.question, self.number, self.form))


def failed_html(error: Exception, question: str, number: int, form: dict[str, Any]) -> str:
    """The pending exchange ended by the friendly error and "Try again", as the error handler shows it."""
    _status, title, message, _detail = public_error(error, "while streaming an answer")
    return render_template(
        "chat/_stream_failed.html",
        question=question,
        number=number,
        title=title,
        message=message,
        retry_question=question,
        **form,
    )
