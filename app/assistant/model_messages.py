"""What a person reads when a language model fails or says nothing: shared by every model's answerer."""

from __future__ import annotations

TIMEOUT_MESSAGE = "The assistant took too long to answer. Please try again in a moment."
UNREACHABLE_MESSAGE = "The assistant could not be reached. Please try again later."
CUT_SHORT_MESSAGE = "The answer was cut short (the connection to the assistant closed). Please try again."
RATE_LIMITED_MESSAGE = "The assistant is busy right now (rate limited). Please try again in a moment."
OVERLOADED_MESSAGE = "The assistant is overloaded right now. Please try again in a moment."
SERVER_ERROR_MESSAGE = "The assistant's service had an internal error. Please try again in a moment."
KEY_REFUSED_MESSAGE = (
    "The assistant is not configured correctly (its API key was refused). Please tell the site administrator."
)
NO_MODEL_MESSAGE = "The assistant's configured model is not available. Please tell the site administrator."
BAD_REQUEST_MESSAGE = "The assistant could not process this question. Please rephrase it or start a new chat."
UNEXPECTED_MESSAGE = "The assistant returned an unexpected error. Please try again later."

EMPTY_ANSWER = "I could not put together an answer to that. Please try rephrasing your question."
REFUSED_ANSWER = "I can't help with that request."
TRUNCATED_NOTE = "\n\n_(The answer was cut short.)_"


def status_message(status: int | None) -> str:
    """The message for an HTTP error status of a model API (after the SDK's retries)."""
    if status == 429:
        return RATE_LIMITED_MESSAGE
    if status == 529:
        return OVERLOADED_MESSAGE
    if status is not None and status >= 500:
        return SERVER_ERROR_MESSAGE
    if status in (401, 403):
        return KEY_REFUSED_MESSAGE
    if status == 404:
        return NO_MODEL_MESSAGE
    if status in (400, 422):  # 422: the validation error of many OpenAI-compatible servers
        return BAD_REQUEST_MESSAGE
    return UNEXPECTED_MESSAGE
