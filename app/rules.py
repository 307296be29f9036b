"""The rules every face applies alike (web, API, CLI, model tools): questions, searches, history, snippets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from app.control_chars import drop_control_chars
from app.errors import BadRequest

# Most passages one search may return, whoever asks (the API's and the CLI's `k`, MAX_RESULTS).
MAX_PASSAGES = 50

# Snippet lengths, in characters, by where the snippet is shown.
SOURCE_SNIPPET_CHARS = 200  # a source under an answer
STORED_SNIPPET_CHARS = 160  # a source kept in the history cookie: every character counts against its budget
TERMINAL_SNIPPET_CHARS = 240  # a search hit in the terminal, which has room for more of the passage

T = TypeVar("T")


def question_problem(question: str, limit: int) -> str | None:
    """What is wrong with a (stripped) question, or None when it can go to the assistant."""
    if not question:
        return "Type a question first."
    if len(question) > limit:
        return f"Questions can be up to {limit:,} characters; this one has {len(question):,}."
    if not question.isascii() and any("\ud800" <= char <= "\udfff" for char in question):
        # A lone surrogate (half of an emoji, e.g. from JSON "\ud83d") cannot be encoded as UTF-8.
        return "The question contains an invalid character (a lone surrogate, half of an emoji); remove it."
    return None


def typed(text: str) -> str:
    """Text as typed: without control characters (NUL, escapes), one kind of line break, stripped."""
    return drop_control_chars(text.replace("\r\n", "\n")).strip()


def checked_question(question: str, limit: int) -> str:
    """The stripped question without control characters, or BadRequest saying what is wrong with it."""
    question = typed(question)
    problem = question_problem(question, limit)
    if problem:
        raise BadRequest(problem)
    return question


def recent(exchanges: Sequence[T], max_history: int) -> list[T]:
    """The last `max_history` exchanges of a conversation (none when MAX_HISTORY is 0)."""
    return list(exchanges[-max_history:]) if max_history > 0 else []


def snippet(text: str, limit: int = SOURCE_SNIPPET_CHARS) -> str:
    """The start of a passage, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + "…"
