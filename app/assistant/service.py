"""The Assistant: one entry point that answers with Claude when a key is set, with an OpenAI-compatible model
when MODEL_PROVIDER=openai, else extractively."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

from app.assistant.base import Answer, Answerer, AnswerEvent, DoneEvent, Exchange
from app.assistant.extractive import ExtractiveAnswerer
from app.assistant.fallback import FallbackAnswerer
from app.assistant.tools import ToolBox
from app.config import Settings
from app.rules import checked_question, recent
from app.search.embedding import get_embedder

if TYPE_CHECKING:
    from app.search.index import CourseIndex


class Assistant:
    """Answer questions about the indexed courses; `mode` says how ('claude', 'openai' or 'extractive')."""

    def __init__(self, settings: Settings, index: CourseIndex):
        self.settings = settings
        self.toolbox = ToolBox(index, max_results=settings.max_results)
        self.mode = settings.mode
        self._answerer: Answerer
        # Each SDK is imported only in its mode: it takes a second, which the other modes never need.
        if self.mode == "claude":
            from app.assistant.claude import ClaudeAnswerer

            self._answerer = ClaudeAnswerer(settings, self.toolbox)
        elif self.mode == "openai":
            from app.assistant.openai import OpenAIAnswerer

            model = OpenAIAnswerer(settings, self.toolbox)
            name = settings.model_name or "The model"
            self._answerer = FallbackAnswerer(model, lambda: self.extractive, name)
        else:
            self._answerer = self.extractive

    @cached_property
    def extractive(self) -> ExtractiveAnswerer:
        """The extractive answerer (in OpenAI mode, built when the model first fails)."""
        embedder = get_embedder(self.settings.embedding_model, self.settings.embedding_cache_dir)
        return ExtractiveAnswerer(self.toolbox, embedder)

    @property
    def model(self) -> str | None:
        """The model id (Claude's, or the OpenAI-compatible endpoint's), or None in extractive mode."""
        if self.mode == "openai":
            return self.settings.openai_model
        return self.settings.anthropic_model if self.mode == "claude" else None

    def stream(self, question: str, history: list[Exchange] | None = None) -> Iterator[AnswerEvent]:
        """Answer as events (status, text pieces, then the finished Answer); a bad question raises at once.

        Errors while answering (model or index unavailable) are raised by the iterator; closing it early
        (a client that went away) stops the work.
        """
        question = checked_question(question, self.settings.max_question_chars)
        return self._answerer.stream(question, recent(history or [], self.settings.max_history))

    def answer(self, question: str, history: list[Exchange] | None = None) -> Answer:
        """Answer a question given the recent exchanges (trimmed to MAX_HISTORY)."""
        return final_answer(self.stream(question, history))


def final_answer(events: Iterator[AnswerEvent]) -> Answer:
    """Run an event stream to its end and return the finished Answer."""
    for event in events:
        if isinstance(event, DoneEvent):
            return event.answer
    raise RuntimeError("the answerer ended without an answer")
