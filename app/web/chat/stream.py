"""The chat's streamed answer: answer events become SSE messages carrying server-rendered HTML."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import render_template

from app.assistant.base import Answer, AnswerEvent, Exchange
from app.web.chat.asking import ended_how, finish
from app.web.chat.exchanges import ExchangeView
from app.web.chat.live import LIVE, LiveAnswer
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
    page to commit it to the cookie's memory. The stored exchange is completed as the answer ends.
    """

    def __init__(self, live: LiveAnswer, turn: int, form: dict[str, Any]):
        self.live, self.turn, self.form = live, turn, form
        self.question, self.number = live.question, live.number
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
        self.live.text = self._text
        now = time.monotonic()
        if now - self._rendered_at >= RENDER_EVERY_SECONDS:
            self._shown, self._rendered_at = self._text, now
            yield sse_message("text", str(render_markdown(self._text)))

    def done(self, answer: Answer) -> str:
        """The finished exchange, with the token that commits it to the cookie's memory."""
        record_answer(answer)
        live = self.live
        if live.end("answered"):
            finish(live.exchange_id, "answered", answer)
        exchange = Exchange(question=self.question, answer=answer.markdown, sources=answer.sources)
        view = ExchangeView(
            self.number,
            self.question,
            answer.markdown,
            list(answer.sources),
            id=live.exchange_id,
            conversation_id=live.conversation_id,
        )
        token = commit_token(exchange, self.turn, live.owner, live.conversation_id)
        return sse_message("done", finished_html(view, self.form, token))

    def failed(self, error: Exception) -> str:
        """The exchange ended by the friendly error (or by Stop, whose page has moved on already)."""
        live = self.live
        if live.end("failed"):
            finish(live.exchange_id, "failed", text=self._text)
        return sse_message("done", failed_html(error, self.question, self.number, self.form))


def tracked(events: Iterator[AnswerEvent], live: LiveAnswer) -> Iterator[AnswerEvent]:
    """The answer's events until Stop; a stream the browser left (reload, new chat) ends interrupted."""
    LIVE.add(live)
    try:
        for event in events:
            if live.stopped:
                return  # Stop stored the partial answer; closing `events` ends the model call
            yield event
    except Exception:
        if live.end("failed"):  # the answerer failed; the face shows the error
            finish(live.exchange_id, "failed", text=live.text)
        raise
    finally:
        LIVE.remove(live)
        if live.end("interrupted"):
            how = ended_how(live.owner, live.conversation_id, live.exchange_id)
            finish(live.exchange_id, how, text=live.text)
        close = getattr(events, "close", None)
        if close is not None:
            close()


def finished_html(view: ExchangeView, form: dict[str, Any], token: str | None) -> str:
    """The finished exchange, the request that commits it (when `token`) and the enabled controls."""
    return render_template("chat/_stream_done.html", exchange=view, commit_token=token, **form)


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
