"""The Anthropic tool loop: question + history + tools -> a cited markdown answer, as events."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anthropic

from app.assistant.base import Answer, AnswerEvent, DoneEvent, Exchange, StatusEvent, TextEvent
from app.assistant.citations import CitedAnswer, search_result_block
from app.assistant.claude.messages import CACHE, assistant_turn, cached_tools, tool_result
from app.assistant.claude.prompts import SYSTEM_PROMPT
from app.assistant.claude.streaming import streamed_turn
from app.assistant.history import history_turns
from app.assistant.model_messages import EMPTY_ANSWER, REFUSED_ANSWER, TRUNCATED_NOTE
from app.assistant.tools import SourceCollector, ToolBox
from app.config import Settings
from app.search.models import Passage

log = logging.getLogger(__name__)

MAX_TOKENS = 2048


class ClaudeAnswerer:
    """Answers with Claude and the course tools; one SDK client per instance, shared across threads."""

    def __init__(self, settings: Settings, toolbox: ToolBox):
        self.settings = settings
        self.toolbox = toolbox
        self.model = settings.anthropic_model
        self.client = anthropic.Anthropic(
            api_key=settings.anthropic_api_key,
            base_url=settings.anthropic_base_url or None,
            timeout=settings.anthropic_timeout,
            max_retries=settings.anthropic_max_retries,
        )
        self.system = [{"type": "text", "text": SYSTEM_PROMPT, "cache_control": CACHE}]
        self.tools = cached_tools(toolbox.schemas)

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """Run the tool loop as events: a status per tool call, the reply's text as it streams, the Answer.

        Up to max_tool_rounds rounds of tools, then a final answer without tools. Closing the iterator
        early closes the HTTP stream, which stops the model.
        """
        messages = [*history_turns(history), {"role": "user", "content": question}]
        collector = SourceCollector()
        results: list[Passage] = []  # one per search_result block sent, in order: what citations point at
        unverified: list[str] = []  # cited texts not found in the passage they name
        usage: Counter[str] = Counter()
        texts: list[str] = []
        rounds = 0
        tool_choice: dict[str, str] | None = None
        while True:
            params = self._params(messages, tool_choice)
            message = yield from streamed_turn(self.client, params, usage, separate=any(texts))
            cited = CitedAnswer(results, collector.sources)
            texts.append(cited.markdown(message.content))
            unverified.extend(cited.unverified)
            if message.stop_reason != "tool_use" or rounds >= self.settings.max_tool_rounds:
                break
            messages.append(assistant_turn(message.content))
            tool_results = []
            for block in message.content:
                if block.type == "tool_use":
                    yield StatusEvent(self.toolbox.describe(block.name, block.input))
                    tool_results.append(self._run_tool(block, collector, results))
            messages.append({"role": "user", "content": tool_results})
            rounds += 1
            # After the last allowed round the model must answer: the tools stay defined (the API refuses
            # tool blocks in a conversation without tools) but it may not call them.
            tool_choice = {"type": "none"} if rounds >= self.settings.max_tool_rounds else None
        markdown = self._finish("\n\n".join(text for text in texts if text), message.stop_reason)
        if message.stop_reason == "max_tokens":
            yield TextEvent(TRUNCATED_NOTE)
        yield DoneEvent(
            Answer(
                markdown=markdown,
                sources=cited.sources,
                mode="claude",
                tool_rounds=rounds,
                usage=dict(usage),
                unverified_citations=unverified,
            )
        )

    def _params(self, messages: list[dict[str, Any]], tool_choice: dict[str, str] | None) -> dict[str, Any]:
        """The parameters of one Messages API call."""
        # Plain dicts, as the API documents them; the SDK's TypedDicts would add nothing but casts.
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": self.system,
            "tools": self.tools,
            "messages": messages,
        }
        if tool_choice:
            params["tool_choice"] = tool_choice
        return params

    def _run_tool(self, block: Any, collector: SourceCollector, results: list[Passage]) -> dict[str, Any]:
        """Run one tool_use block into its tool_result; passages go back as citable search results."""
        result = self.toolbox.run(block.name, block.input)
        collector.add(result.sources)
        log.info("tool %s(%s) -> %s", block.name, block.input, "error" if result.is_error else "ok")
        content: str | list[dict[str, Any]] = result.text
        if result.passages and not result.is_error:
            content = [search_result_block(passage) for passage in result.passages]
            results.extend(result.passages)
        return tool_result(block.id, content, result.is_error)

    @staticmethod
    def _finish(text: str, stop_reason: str | None) -> str:
        """The reply's markdown, or a sensible message when there is none."""
        text = text.strip()
        if stop_reason == "refusal" and not text:
            return REFUSED_ANSWER
        if not text:
            return EMPTY_ANSWER
        return text + TRUNCATED_NOTE if stop_reason == "max_tokens" else text
