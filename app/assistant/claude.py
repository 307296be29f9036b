"""The Anthropic tool loop: question + history + tools -> a cited markdown answer."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anthropic

from app.assistant.models import Answer, AnswerEvent, DoneEvent, Exchange
from app.assistant.prompts import SYSTEM_PROMPT
from app.assistant.tools import SourceCollector, ToolBox
from app.config import Settings
from app.errors import ModelUnavailable

log = logging.getLogger(__name__)

MAX_TOKENS = 2048
CACHE = {"type": "ephemeral"}
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
EMPTY_ANSWER = "I could not put together an answer to that. Please try rephrasing your question."
REFUSED_ANSWER = "I can't help with that request."
TRUNCATED_NOTE = "\n\n_(The answer was cut short.)_"


def history_turns(history: list[Exchange]) -> list[dict[str, Any]]:
    """Earlier exchanges as alternating user/assistant turns (an empty side would be refused, so skip it)."""
    turns: list[dict[str, Any]] = []
    for exchange in history:
        if exchange.question.strip() and exchange.answer.strip():
            turns.append({"role": "user", "content": exchange.question})
            turns.append({"role": "assistant", "content": exchange.answer})
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
        message = "The assistant took too long to answer. Please try again in a moment."
    elif isinstance(exc, anthropic.APIConnectionError):
        message = "The assistant could not be reached. Please try again later."
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
        """Answer as events; for now the whole answer arrives at once."""
        yield DoneEvent(self.answer(question, history))

    def answer(self, question: str, history: list[Exchange]) -> Answer:
        """Run the tool loop: up to max_tool_rounds rounds of tools, then a final answer without tools."""
        messages = [*history_turns(history), {"role": "user", "content": question}]
        collector = SourceCollector()
        usage: Counter[str] = Counter()
        rounds = 0
        response = self._create(messages, usage)
        while response.stop_reason == "tool_use" and rounds < self.settings.max_tool_rounds:
            messages.append(assistant_turn(response.content))
            messages.append({"role": "user", "content": self._run_tools(response.content, collector)})
            rounds += 1
            # After the last allowed round the model must answer: the tools stay defined (the API refuses
            # tool blocks in a conversation without tools) but it may not call them.
            final = rounds >= self.settings.max_tool_rounds
            response = self._create(messages, usage, tool_choice={"type": "none"} if final else None)
        return Answer(
            markdown=self._markdown(response),
            sources=collector.sources,
            mode="claude",
            tool_rounds=rounds,
            usage=dict(usage),
        )

    def _create(self, messages: list[dict[str, Any]], usage: Counter[str], tool_choice: dict | None = None):
        """One Messages API call; SDK errors (after its retries) become ModelUnavailable."""
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
        try:
            response = self.client.messages.create(**params)
        except anthropic.APIError as exc:
            # The error handler (web) or the CLI reports it once; this is for debugging the loop.
            log.info("Anthropic call failed: %s", exc)
            raise unavailable(exc) from exc
        for name in USAGE_FIELDS:
            usage[name] += getattr(response.usage, name, None) or 0
        return response

    def _run_tools(self, content: list[Any], collector: SourceCollector) -> list[dict[str, Any]]:
        """Run every tool_use block of a turn; one tool_result per call, in order."""
        results = []
        for block in content:
            if block.type != "tool_use":
                continue
            result = self.toolbox.run(block.name, block.input)
            collector.add(result.sources)
            log.info("tool %s(%s) -> %s", block.name, block.input, "error" if result.is_error else "ok")
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": block.id,
                    "content": result.text,
                    "is_error": result.is_error,
                }
            )
        return results

    @staticmethod
    def _markdown(response) -> str:
        """The text blocks of the final reply, or a sensible message when there are none."""
        text = "\n\n".join(block.text.strip() for block in response.content if block.type == "text").strip()
        if response.stop_reason == "refusal" and not text:
            return REFUSED_ANSWER
        if not text:
            return EMPTY_ANSWER
        return text + TRUNCATED_NOTE if response.stop_reason == "max_tokens" else text
