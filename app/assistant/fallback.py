"""A model's answer, or, when the model fails, its message and the extractive answer in its place."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from app.assistant.base import Answerer, AnswerEvent, DoneEvent, Exchange, TextEvent
from app.assistant.extractive.render import OUTLINE_NOTE, SEARCH_NOTE
from app.errors import ModelUnavailable

log = logging.getLogger(__name__)


def without_mode_note(markdown: str) -> str:
    """An extractive answer without its "no language model is configured" line: here one is, and failed."""
    for note in (SEARCH_NOTE, OUTLINE_NOTE):
        if markdown.startswith(note):
            return markdown[len(note) :].lstrip()
    return markdown


def fallback_note(model_name: str, error: ModelUnavailable) -> str:
    """What heads an extractive answer given in place of the model's: the failure, as model mode says it."""
    return (
        f"> **{model_name} could not answer.** {error.message} Here is what the course materials say instead."
    )


class FallbackAnswerer:
    """Answers with `model`; when it fails (ModelUnavailable), says why and answers with `fallback` instead.

    Text the model streamed before failing stays in the stream (it cannot be taken back) but not in the
    finished Answer, which is the note and the fallback's answer, carrying the failure as `model_error`.
    """

    def __init__(self, model: Answerer, fallback: Callable[[], Answerer], model_name: str):
        self.model, self.fallback, self.model_name = model, fallback, model_name

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """The model's events; after a failure, the note and the fallback's events."""
        streamed = False
        events = self.model.stream(question, history)
        try:
            for event in events:
                streamed = streamed or isinstance(event, TextEvent)
                yield event
            return
        except ModelUnavailable as exc:
            log.warning("the model failed, answering extractively: %s", exc.detail)
            error = exc
        finally:
            close = getattr(events, "close", None)
            if close is not None:  # a client that went away stops the model at once
                close()
        note = fallback_note(self.model_name, error)
        yield TextEvent(f"\n\n{note}\n\n" if streamed else f"{note}\n\n")
        for event in self.fallback().stream(question, history):
            if isinstance(event, DoneEvent):
                markdown = f"{note}\n\n{without_mode_note(event.answer.markdown)}"
                update = {"markdown": markdown, "model_error": error.message}
                event = DoneEvent(event.answer.model_copy(update=update))
            yield event
