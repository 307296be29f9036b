"""One streamed chat completions call: its text as events (markers held back), its tool calls gathered
from their deltas, its usage counted, its failures said plainly."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

from app.assistant.base import AnswerEvent, TextEvent
from app.assistant.model_messages import (
    CUT_SHORT_MESSAGE,
    TIMEOUT_MESSAGE,
    UNREACHABLE_MESSAGE,
    status_message,
)
from app.assistant.openai.markers import MarkerFilter
from app.errors import ModelUnavailable
from app.metrics import observe_model_call

log = logging.getLogger(__name__)


@dataclass
class ToolCall:
    """One function call the model asked for; `arguments` is its JSON text, as streamed."""

    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class Turn:
    """What one call returned: the text, the tool calls, and why it stopped."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None


class ToolsRefused(ModelUnavailable):
    """The endpoint refused the request because of its tools: the model (or server) has no tool calling."""


def unavailable(exc: openai.APIError) -> ModelUnavailable:
    """Turn an SDK error (after its retries) into the message Claude mode gives for the same failure."""
    status = getattr(exc, "status_code", None)
    detail = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc.message}"
    if isinstance(exc, openai.APITimeoutError):
        return ModelUnavailable(TIMEOUT_MESSAGE, detail=detail)
    if isinstance(exc, openai.APIConnectionError):
        return ModelUnavailable(UNREACHABLE_MESSAGE, detail=detail)
    if status in (400, 422) and "tool" in exc.message.lower():
        return ToolsRefused(status_message(status), detail=detail)
    return ModelUnavailable(status_message(status), detail=detail)


def streamed_turn(
    client: openai.OpenAI, params: dict[str, Any], usage: Counter[str], separate: bool
) -> Generator[AnswerEvent, None, Turn]:
    """Make one streamed call: yield its text (without markers), add its token counts to `usage`, return it.

    `separate` starts the text with a paragraph break, for a turn whose text follows an earlier turn's.
    """
    started = time.perf_counter()
    turn = Turn()
    pieces: list[str] = []
    calls: dict[int, ToolCall] = {}
    shown = MarkerFilter()
    try:
        with client.chat.completions.create(**params, stream=True) as stream:
            for chunk in stream:
                _count(chunk, usage)
                for choice in chunk.choices[:1]:
                    text = choice.delta.content
                    if text:
                        pieces.append(text)
                        visible = shown.feed(text)
                        if visible and separate:
                            yield TextEvent("\n\n")  # the text of an earlier turn is a paragraph of its own
                            separate = False
                        if visible:
                            yield TextEvent(visible)
                    _gather(choice.delta.tool_calls or [], calls)
                    turn.finish_reason = choice.finish_reason or turn.finish_reason
    except openai.APIError as exc:
        log.info("OpenAI-compatible call failed: %s", exc)
        raise unavailable(exc) from exc
    except httpx2.TransportError as exc:
        log.info("OpenAI-compatible stream broke: %r", exc)
        message = TIMEOUT_MESSAGE if isinstance(exc, httpx2.TimeoutException) else UNREACHABLE_MESSAGE
        raise ModelUnavailable(message, detail=f"{type(exc).__name__}: {exc}") from exc
    finally:
        observe_model_call(time.perf_counter() - started)
    if turn.finish_reason is None:
        # The connection closed mid-answer: what arrived is a fragment, never a complete answer.
        log.info("OpenAI-compatible stream ended without a finish_reason")
        raise ModelUnavailable(CUT_SHORT_MESSAGE, detail="the stream ended without a finish_reason")
    rest = shown.flush()
    if rest.strip():
        yield TextEvent(f"\n\n{rest}" if separate else rest)
    turn.text = "".join(pieces)
    turn.tool_calls = [calls[index] for index in sorted(calls)]
    return turn


def _gather(deltas: list[Any], calls: dict[int, ToolCall]) -> None:
    """Add streamed tool-call deltas to the calls they continue (by index; a server may omit it)."""
    for delta in deltas:
        index = delta.index if isinstance(delta.index, int) else len(calls)
        call = calls.setdefault(index, ToolCall())
        call.id = call.id or (delta.id or "")
        function = delta.function
        if function is not None:
            call.name = call.name or (function.name or "")
            call.arguments += function.arguments or ""


def _count(chunk: Any, usage: Counter[str]) -> None:
    """Add a chunk's token counts (servers send them in the last chunk, if at all)."""
    if chunk.usage is not None:
        usage["input_tokens"] += chunk.usage.prompt_tokens or 0
        usage["output_tokens"] += chunk.usage.completion_tokens or 0
