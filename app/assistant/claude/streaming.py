"""One streamed Messages API call: its text as events, its usage counted, its failures said plainly."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Generator
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message

from app.assistant.base import AnswerEvent, TextEvent
from app.assistant.model_messages import (
    BAD_REQUEST_MESSAGE,
    CUT_SHORT_MESSAGE,
    KEY_REFUSED_MESSAGE,
    NO_MODEL_MESSAGE,
    OVERLOADED_MESSAGE,
    RATE_LIMITED_MESSAGE,
    SERVER_ERROR_MESSAGE,
    TIMEOUT_MESSAGE,
    UNEXPECTED_MESSAGE,
    UNREACHABLE_MESSAGE,
)
from app.errors import ModelUnavailable
from app.metrics import observe_model_call

log = logging.getLogger(__name__)

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def unavailable(exc: anthropic.APIError) -> ModelUnavailable:
    """Turn an SDK error (after its retries) into a message a user can act on."""
    status = getattr(exc, "status_code", None)
    detail = f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc.message}"
    if isinstance(exc, anthropic.APITimeoutError):
        message = TIMEOUT_MESSAGE
    elif isinstance(exc, anthropic.APIConnectionError):
        message = UNREACHABLE_MESSAGE
    elif isinstance(exc, anthropic.RateLimitError):
        message = RATE_LIMITED_MESSAGE
    elif isinstance(exc, anthropic.OverloadedError) or getattr(exc, "type", None) == "overloaded_error":
        message = OVERLOADED_MESSAGE
    elif isinstance(exc, anthropic.InternalServerError):
        message = SERVER_ERROR_MESSAGE
    elif isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
        message = KEY_REFUSED_MESSAGE
    elif isinstance(exc, anthropic.NotFoundError):
        message = NO_MODEL_MESSAGE
    elif isinstance(exc, anthropic.BadRequestError):
        message = BAD_REQUEST_MESSAGE
    else:
        message = UNEXPECTED_MESSAGE
    return ModelUnavailable(message, detail=detail)


def broken_stream(exc: httpx2.TransportError) -> ModelUnavailable:
    """Turn a stream that broke mid-answer into the same messages as a failed call."""
    message = TIMEOUT_MESSAGE if isinstance(exc, httpx2.TimeoutException) else UNREACHABLE_MESSAGE
    return ModelUnavailable(message, detail=f"{type(exc).__name__}: {exc}")


def streamed_turn(
    client: anthropic.Anthropic, params: dict[str, Any], usage: Counter[str], separate: bool
) -> Generator[AnswerEvent, None, Message]:
    """Make one streamed call: yield its text deltas, add its token counts to `usage`, return the message.

    `separate` starts the text with a paragraph break, for a turn whose text follows an earlier turn's.
    """
    started = time.perf_counter()
    stopped = False
    try:
        with client.messages.stream(**params) as stream:
            for event in stream:
                stopped = stopped or event.type == "message_stop"
                if event.type == "text" and event.text:
                    if separate:
                        # The text of an earlier turn is a paragraph of its own.
                        yield TextEvent("\n\n")
                        separate = False
                    yield TextEvent(event.text)
            if not stopped:
                # The connection closed mid-answer: what arrived is a fragment, never a complete answer.
                log.info("Anthropic stream ended without message_stop")
                raise ModelUnavailable(CUT_SHORT_MESSAGE, detail="the stream ended without message_stop")
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
