"""The Assistant: one entry point that answers with Claude when a key is set, with an OpenAI-compatible model
when MODEL_PROVIDER=openai, else extractively."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache, cached_property
from threading import Lock
from typing import TYPE_CHECKING

from app.assistant.base import Answer, Answerer, AnswerEvent, DoneEvent, Exchange
from app.assistant.extractive import ExtractiveAnswerer
from app.assistant.fallback import FallbackAnswerer
from app.assistant.hints import WhereToRead
from app.assistant.prompts import course_settings
from app.assistant.scope import OPEN, Scope
from app.assistant.tools import ToolBox
from app.config import Settings
from app.rules import checked_question, recent
from app.search.embedding import Embedder, get_embedder

if TYPE_CHECKING:
    from app.search.index import CourseIndex

MAX_SCOPES = 256  # answerers kept for course spaces' scopes before the cache starts over


class Assistant:
    """Answer questions about the indexed courses; `mode` says how ('claude', 'openai' or 'extractive')."""

    def __init__(self, settings: Settings, index: CourseIndex):
        self.settings = settings
        self.index = index
        self.toolbox = ToolBox(index, max_results=settings.max_results)
        self.mode = settings.mode
        self._answerer = self._build(self.toolbox, "", lambda: self.extractive)
        # One answerer per course space's scope, built on its first question (spaces are few).
        self._scoped: dict[Scope, Answerer] = {}
        self._lock = Lock()

    def _build(self, toolbox: ToolBox, guidance: str, extractive: Callable[[], Answerer]) -> Answerer:
        """The answerer of this mode over `toolbox`, its system prompt extended by `guidance`."""
        # Each SDK is imported only in its mode: it takes a second, which the other modes never need.
        if self.mode == "claude":
            from app.assistant.claude import ClaudeAnswerer

            return ClaudeAnswerer(self.settings, toolbox, guidance)
        if self.mode == "openai":
            from app.assistant.openai import OpenAIAnswerer

            model = OpenAIAnswerer(self.settings, toolbox, guidance)
            return FallbackAnswerer(model, extractive, self.settings.model_name or "The model")
        return extractive()

    def _answerer_for(self, scope: Scope) -> Answerer:
        """The answerer whose tools read only the scope's courses and whose prompt carries its settings."""
        if scope == OPEN:
            return self._answerer
        with self._lock:
            answerer = self._scoped.get(scope)
            if answerer is None:
                if len(self._scoped) >= MAX_SCOPES:
                    self._scoped.clear()
                toolbox = ToolBox(self.index.within(scope.courses), max_results=self.settings.max_results)
                # Built once, on the model's first failure (OpenAI mode) or now (extractive mode).
                quoting = cache(lambda: self._quoting(toolbox, scope))
                answerer = self._build(toolbox, course_settings(scope), quoting)
                self._scoped[scope] = answerer
            return answerer

    def _quoting(self, toolbox: ToolBox, scope: Scope) -> Answerer:
        """The extractive answerer over `toolbox`; in hint mode its answers end with where to read."""
        extractive = ExtractiveAnswerer(toolbox, self._embedder())
        return WhereToRead(extractive) if scope.hints else extractive

    def _embedder(self) -> Embedder:
        """The embedding model the extractive answerer scores sentences with."""
        return get_embedder(self.settings.embedding_model, self.settings.embedding_cache_dir)

    @cached_property
    def extractive(self) -> ExtractiveAnswerer:
        """The extractive answerer (in OpenAI mode, built when the model first fails)."""
        return ExtractiveAnswerer(self.toolbox, self._embedder())

    @property
    def model(self) -> str | None:
        """The model id (Claude's, or the OpenAI-compatible endpoint's), or None in extractive mode."""
        if self.mode == "openai":
            return self.settings.openai_model
        return self.settings.anthropic_model if self.mode == "claude" else None

    def stream(
        self, question: str, history: list[Exchange] | None = None, scope: Scope = OPEN
    ) -> Iterator[AnswerEvent]:
        """Answer as events (status, text pieces, then the finished Answer); a bad question raises at once.

        `scope`: the asker's course space (its courses and settings); the open deployment reads every course.
        Errors while answering (model or index unavailable) are raised by the iterator; closing it early
        (a client that went away) stops the work.
        """
        question = checked_question(question, self.settings.max_question_chars)
        answerer = self._answerer_for(scope)
        return answerer.stream(question, recent(history or [], self.settings.max_history))

    def answer(self, question: str, history: list[Exchange] | None = None, scope: Scope = OPEN) -> Answer:
        """Answer a question given the recent exchanges (trimmed to MAX_HISTORY)."""
        return final_answer(self.stream(question, history, scope))


def final_answer(events: Iterator[AnswerEvent]) -> Answer:
    """Run an event stream to its end and return the finished Answer."""
    for event in events:
        if isinstance(event, DoneEvent):
            return event.answer
    raise RuntimeError("the answerer ended without an answer")
