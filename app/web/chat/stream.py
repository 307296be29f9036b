"""The chat's face of an answer run: each run event becomes SSE messages carrying server-rendered HTML."""

from __future__ import annotations

from typing import Any

from flask import render_template

from app.assistant.base import Answer, Exchange
from app.web.chat.exchanges import ExchangeView
from app.web.chat.live import LiveAnswer, first_live_block
from app.web.chat.tokens import commit_token
from app.web.errors import public_error
from app.web.sse import sse_message


class ChatAnswer:
    """What one page is shown of a run (run.py): `status`, the text as it comes (see chat/live.py), and one
    `done` that replaces the pending exchange with the finished one (or the error, or what Stop kept).

    Rendering depends on the run's events alone, so a page that resumes after event n (Last-Event-ID) is
    brought to where it was by rendering events 0..n again without sending them.
    """

    def __init__(self, start: dict[str, Any], number: int, turn: int, form: dict[str, Any]):
        self.owner: str = start["owner"]
        self.question: str = start["question"]
        self.conversation_id: str | None = start["conversation_id"]
        self.exchange_id: int | None = start["exchange_id"]
        self.number, self.turn, self.form = number, turn, form
        self._live = LiveAnswer()
        self._status_shown = True  # the pending exchange starts with "Thinking…"

    def render(self, event: dict[str, Any]) -> list[str]:
        """The messages for one run event (none for `start`)."""
        kind = event["kind"]
        if kind == "status":
            self._status_shown = True
            return [sse_message("status", render_template("chat/_stream_status.html", status=event["text"]))]
        if kind == "text":
            return self._text(event["text"])
        if kind == "done":
            return [self._done(Answer.model_validate(event["answer"]))]
        if kind == "failed":
            html = failed_html(event["title"], event["message"], self.question, self.number, self.form)
            return [sse_message("done", html)]
        if kind in ("stopped", "interrupted"):
            return [self.unfinished(kind, event["text"])]
        return []

    def reset(self) -> str:
        """The message that empties the pending answer (a page that reconnects from scratch)."""
        html = render_template("chat/_pending_answer.html", first_block=first_live_block())
        return sse_message("reset", html)

    def unfinished(self, status: str, text: str | None = None) -> str:
        """The last message of an answer stopped, or interrupted (its worker died), with what it said."""
        view = ExchangeView(
            self.number,
            self.question,
            self._live.text if text is None else text,
            status=status,
            id=self.exchange_id,
            conversation_id=self.conversation_id,
        )
        return sse_message("done", finished_html(view, self.form, None))

    def _text(self, piece: str) -> list[str]:
        """The answer so far; the status line goes when text arrives."""
        self._live.add(piece)
        messages = []
        if self._status_shown and piece.strip():
            self._status_shown = False
            messages.append(sse_message("status", ""))
        return messages + self._live.update()

    def _done(self, answer: Answer) -> str:
        """The finished exchange, with the token that commits it to this browser's cookie memory."""
        exchange = Exchange(question=self.question, answer=answer.markdown, sources=answer.sources)
        view = ExchangeView.answered(
            self.number, self.question, answer, self.exchange_id, self.conversation_id
        )
        token = commit_token(exchange, self.turn, self.owner, self.conversation_id)
        return sse_message("done", finished_html(view, self.form, token))


def finished_html(view: ExchangeView, form: dict[str, Any], token: str | None) -> str:
    """The finished exchange, the request that commits it (when `token`) and the enabled controls."""
    return render_template("chat/_stream_done.html", exchange=view, commit_token=token, **form)


def error_html(error: Exception, question: str, number: int, form: dict[str, Any]) -> str:
    """The pending exchange ended by `error`, as the error handler describes it."""
    _status, title, message, _detail = public_error(error, "while starting an answer")
    return failed_html(title, message, question, number, form)


def failed_html(title: str, message: str, question: str, number: int, form: dict[str, Any]) -> str:
    """The pending exchange ended by the friendly error and "Try again"."""
    return render_template(
        "chat/_stream_failed.html",
        question=question,
        number=number,
        title=title,
        message=message,
        retry_question=question,
        **form,
    )
