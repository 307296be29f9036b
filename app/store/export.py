"""A conversation as Markdown: every exchange, its answer and its sources, as inert text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.bidi import strip_all, strip_controls
from app.links import safe_url
from app.store.records import ExchangeRecord, Transcript

UNFINISHED = {
    "pending": "_No answer yet._",
    "interrupted": "_The answer was interrupted._",
    "failed": "_The answer failed._",
    "stopped": "_The answer was stopped._",
}
# What a Markdown viewer would read as a tag, an entity or a link in plain text.
_TAG_OR_ENTITY = re.compile(r"<|&(?=[#A-Za-z])")
_BRACKET = re.compile(r"[\[\]]")

# Turns an answer's Markdown into Markdown that is safe to open (the web's sanitizer, see app.web.export).
AnswerMarkdown = Callable[[str], str]


def to_markdown(transcript: Transcript, answer: AnswerMarkdown) -> str:
    """The transcript as a Markdown document, each answer made safe by `answer`."""
    conversation = transcript.conversation
    parts = [f"# {_line(conversation.title)}", f"_Started {conversation.created_at:%Y-%m-%d %H:%M} UTC_"]
    for number, exchange in enumerate(transcript.exchanges, start=1):
        parts.append(_exchange(number, exchange, answer))
    return "\n\n".join(parts) + "\n"


def _exchange(number: int, exchange: ExchangeRecord, answer_markdown: AnswerMarkdown) -> str:
    """One exchange: the question quoted, the answer, then its sources."""
    lines = exchange.question.splitlines() or [""]
    question = "\n".join(f"> {inert(strip_controls(line))}" for line in lines)
    answer = answer_markdown(exchange.answer).strip()
    if exchange.status != "answered":
        answer = f"{answer}\n\n{UNFINISHED[exchange.status]}".strip()
    parts = [f"## {number}. Question", question, "### Answer", answer]
    if exchange.sources:
        items = [f"{index}. {_source(source)}" for index, source in enumerate(exchange.sources, start=1)]
        parts += ["### Sources", "\n".join(items)]
    return "\n\n".join(parts)


def _source(source: dict[str, Any]) -> str:
    """A source (an assistant Source, dumped) as a list item: its label, linked, then its snippet."""
    label = _line(str(source.get("label") or source.get("course_title") or "Source"))
    link = safe_url(source.get("lesson_link") or source.get("course_link"))
    item = f"[{label}](<{link}>)" if link and not re.search(r"[\s<>]", link) else label
    snippet = inert(strip_controls(" ".join(str(source.get("snippet") or "").split())))
    return f"{item}\n   > {snippet}" if snippet else item


def no_tags(text: str) -> str:
    """Text in which a Markdown viewer opens no tag and reads no entity."""
    return _TAG_OR_ENTITY.sub(lambda match: "&lt;" if match[0] == "<" else "&amp;", text)


def inert(text: str) -> str:
    """Text a Markdown viewer shows as it is: no tag, entity or link opens in it."""
    return _BRACKET.sub(lambda match: "\\" + match[0], no_tags(text))


def _line(text: str) -> str:
    """A name on one line, inert, without bidi controls or marks."""
    return inert(" ".join(strip_all(text).split()))
