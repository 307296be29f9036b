"""The chat's streamed answer: answer events become SSE messages carrying server-rendered HTML."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import render_template

from app.assistant.base import Answer, AnswerEvent, Exchange
from app.web.chat.asking import ended_how, finish
from app.web.chat.exchanges import ExchangeView
from app.web.chat.in_flight import IN_FLIGHT, InFlightAnswer
from app.web.chat.live import LiveAnswer
from app.web.chat.tokens import commit_token
from app.web.errors import public_error
from app.web.observability import record_answer
from app.web.sse import sse_message

# Update the answer so far at most this often: smooth to read, without a message per token.
RENDER_EVERY_SECONDS = 0.1


class ChatAnswer:
    """The chat's face of a streamed answer: `status`, the text as it comes (see chat/live.py), one `done`.

    `done` replaces the pending exchange with the finished one (or the error and "Try again") and asks the
    page to commit it to the cookie's memory. The stored exchange is completed as the answer ends.
    """

    def __init__(self, flight: InFlightAnswer, turn: int, form: dict[str, Any]):
        self.flight, self.turn, self.form = flight, turn, form
        self.question, self.number = flight.question, flight.number
        self._live = LiveAnswer()
        self._shown, self._updated_at, self._status_shown = 0, float("-inf"), True

    def status(self, text: str) -> Iterator[str]:
        """The status line; first the text held back by the cadence, since a tool round may take long."""
        yield from self._update()
        self._status_shown = True
        yield sse_message("status", render_template("chat/_stream_status.html", status=text))

    def text(self, piece: str) -> Iterator[str]:
        """The answer so far, at most every RENDER_EVERY_SECONDS; the status line goes when text arrives."""
        self._live.add(piece)
        self.flight.text = self._live.text  # what Stop keeps
        messages = []
        if self._status_shown and piece.strip():
            self._status_shown = False
            messages.append(sse_message("status", ""))
        if time.monotonic() - self._updated_at >= RENDER_EVERY_SECONDS:
            messages.extend(self._update())
        if messages:
            yield "".join(messages)  # one chunk: the status goes as the words come

    def _update(self) -> list[str]:
        """The messages that bring the page up to the text so far."""
        if len(self._live.text) == self._shown:
            return []
        self._shown, self._updated_at = len(self._live.text), time.monotonic()
        return self._live.update()

    def done(self, answer: Answer) -> str:
        """The finished exchange, with the token that commits it to the cookie's memory."""
        record_answer(answer)
        flight = self.flight
        if flight.end("answered"):
            finish(flight.exchange_id, "answered", answer)
        exchange = Exchange(question=self.question, answer=answer.markdown, sources=answer.sources)
        view = ExchangeView.answered(
            self.number, self.question, answer, flight.exchange_id, flight.conversation_id
        )
        token = commit_token(exchange, self.turn, flight.owner, flight.conversation_id)
        return sse_message("done", finished_html(view, self.form, token))

    def failed(self, error: Exception) -> str:
        """The exchange ended by the friendly error (or by Stop, whose page has moved on already)."""
        flight = self.flight
        if flight.end("failed"):
            finish(flight.exchange_id, "failed", text=self._live.text)
        return sse_message("done", failed_html(error, self.question, self.number, self.form))


def tracked(events: Iterator[AnswerEvent], live: InFlightAnswer) -> Iterator[AnswerEvent]:
    """The answer's events until Stop; a stream the browser left (reload, new chat) ends interrupted."""
    IN_FLIGHT.add(live)
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
        IN_FLIGHT.remove(live)
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
