"""The Anthropic tool loop: question + history + tools -> a cited markdown answer."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Generator, Iterator
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message

from app.assistant.citations import CitedAnswer, search_result_block, strip_markers
from app.assistant.models import Answer, AnswerEvent, DoneEvent, Exchange, Source, StatusEvent, TextEvent
from app.assistant.prompts import SYSTEM_PROMPT
from app.assistant.tools import SourceCollector, ToolBox, passage_source
from app.config import Settings
from app.errors import ModelUnavailable
from app.metrics import observe_model_call

log = logging.getLogger(__name__)

MAX_TOKENS = 2048
CACHE = {"type": "ephemeral"}
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
EMPTY_ANSWER = "I could not put together an answer to that. Please try rephrasing your question."
REFUSED_ANSWER = "I can't help with that request."
TIMEOUT_MESSAGE = "The assistant took too long to answer. Please try again in a moment."
UNREACHABLE_MESSAGE = "The assistant could not be reached. Please try again later."
TRUNCATED_NOTE = "\n\n_(The answer was cut short.)_"


def history_turns(history: list[Exchange]) -> list[dict[str, Any]]:
    """Earlier exchanges as alternating user/assistant turns (an empty side would be refused, so skip it)."""
    turns: list[dict[str, Any]] = []
    for exchange in history:
        if exchange.question.strip() and exchange.answer.strip():
            turns.append({"role": "user", "content": exchange.question})
            # Markers number the sources of that answer, not the model's: it would copy them wrongly.
            turns.append({"role": "assistant", "content": strip_markers(exchange.answer)})
    return turns


def cached_tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool definitions, the last one marked as a cache breakpoint (caching every tool)."""
    tools = [dict(schema) for schema in schemas]
    tools[-1]["cache_control"] = CACHE
    return tools


def assistant_turn(content: list[Any]) -> dict[str, Any]:
    """Echo the model's turn back as params: its text and tool_use blocks."""
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text" and block.text:
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
    return {"role": "assistant", "content": blocks}


def unavailable(exc: anthropic.APIError) -> ModelUnavailable:
    """Turn an SDK error (after its retries) into a message a user can act on."""
    status = getattr(exc, "status_code", None)
    detail = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc.message}"
    if isinstance(exc, anthropic.APITimeoutError):
        message = TIMEOUT_MESSAGE
    elif isinstance(exc, anthropic.APIConnectionError):
        message = UNREACHABLE_MESSAGE
    elif isinstance(exc, anthropic.RateLimitError):
        message = "The assistant is busy right now (rate limited). Please try again in a moment."
    elif isinstance(exc, anthropic.OverloadedError) or getattr(exc, "type", None) == "overloaded_error":
        message = "The assistant is overloaded right now. Please try again in a moment."
    elif isinstance(exc, anthropic.InternalServerError):
        message = "The assistant's service had an internal error. Please try again in a moment."
    elif isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
        message = (
            "The assistant is not configured correctly (its API key was refused). "
            "Please tell the site administrator."
        )
    elif isinstance(exc, anthropic.NotFoundError):
        message = "The assistant's configured model is not available. Please tell the site administrator."
    elif isinstance(exc, anthropic.BadRequestError):
        message = "The assistant could not process this question. Please rephrase it or start a new chat."
    else:
        message = "The assistant returned an unexpected error. Please try again later."
    return ModelUnavailable(message, detail=detail)


def broken_stream(exc: httpx2.TransportError) -> ModelUnavailable:
    """Turn a stream that broke mid-answer into the same messages as a failed call."""
    message = TIMEOUT_MESSAGE if isinstance(exc, httpx2.TimeoutException) else UNREACHABLE_MESSAGE
    return ModelUnavailable(message, detail=f"{type(exc).__name__}: {exc}")


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
        results: list[Source] = []  # one per search_result block sent, in order: what citations point at
        usage: Counter[str] = Counter()
        texts: list[str] = []
        rounds = 0
        tool_choice: dict[str, str] | None = None
        while True:
            message = yield from self._turn(messages, usage, tool_choice, separate=any(texts))
            cited = CitedAnswer(results, collector.sources)
            texts.append(cited.markdown(message.content))
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
                markdown=markdown, sources=cited.sources, mode="claude", tool_rounds=rounds, usage=dict(usage)
            )
        )

    def _turn(
        self,
        messages: list[dict[str, Any]],
        usage: Counter[str],
        tool_choice: dict[str, str] | None,
        separate: bool,
    ) -> Generator[AnswerEvent, None, Message]:
        """One streamed Messages API call: yields its text deltas, returns the final message."""
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
        started = time.perf_counter()
        try:
            with self.client.messages.stream(**params) as stream:
                for event in stream:
                    if event.type == "text" and event.text:
                        if separate:
                            # The text of an earlier turn is a paragraph of its own.
                            yield TextEvent("\n\n")
                            separate = False
                        yield TextEvent(event.text)
                message = stream.get_final_message()
        except anthropic.APIError as exc:
            # The error handler (web) or the CLI reports it once; this is for debugging the loop.
            log.info("Anthropic call failed: %s", exc)
            raise unavailable(exc) from exc
        except httpx2.TransportError as exc:
            # A stream that breaks after its headers arrived is not wrapped by the SDK.
            log.info("Anthropic stream broke: %r", exc)
            raise broken_stream(exc) from exc
        finally:
            observe_model_call(time.perf_counter() - started)
        for name in USAGE_FIELDS:
            usage[name] += getattr(message.usage, name, None) or 0
        return message

    def _run_tool(self, block: Any, collector: SourceCollector, results: list[Source]) -> dict[str, Any]:
        """Run one tool_use block into its tool_result; passages go back as citable search results."""
        result = self.toolbox.run(block.name, block.input)
        collector.add(result.sources)
        log.info("tool %s(%s) -> %s", block.name, block.input, "error" if result.is_error else "ok")
        content: str | list[dict[str, Any]] = result.text
        if result.passages and not result.is_error:
            content = [search_result_block(passage) for passage in result.passages]
            results.extend(passage_source(passage) for passage in result.passages)
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": content,
            "is_error": result.is_error,
        }

    @staticmethod
    def _finish(text: str, stop_reason: str | None) -> str:
        """The reply's markdown, or a sensible message when there is none."""
        text = text.strip()
        if stop_reason == "refusal" and not text:
            return REFUSED_ANSWER
        if not text:
            return EMPTY_ANSWER
        return text + TRUNCATED_NOTE if stop_reason == "max_tokens" else text
