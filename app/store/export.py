"""A conversation as Markdown: every exchange, its answer and its sources."""

from __future__ import annotations

from typing import Any

from app.store.records import ExchangeRecord, Transcript

UNFINISHED = {
    "pending": "_No answer yet._",
    "interrupted": "_The answer was interrupted._",
    "failed": "_The answer failed._",
    "stopped": "_The answer was stopped._",
}


def to_markdown(transcript: Transcript) -> str:
    """The transcript as a Markdown document."""
    conversation = transcript.conversation
    parts = [f"# {_line(conversation.title)}", f"_Started {conversation.created_at:%Y-%m-%d %H:%M} UTC_"]
    for number, exchange in enumerate(transcript.current, start=1):
        parts.append(_exchange(number, exchange))
    return "\n\n".join(parts) + "\n"


def _exchange(number: int, exchange: ExchangeRecord) -> str:
    """One exchange: the question quoted, the answer, then its sources."""
    question = "\n".join(f"> {line}" for line in exchange.question.splitlines() or [""])
    answer = exchange.answer.strip()
    if exchange.status != "answered":
        answer = f"{answer}\n\n{UNFINISHED[exchange.status]}".strip()
    lines = [f"## {number}. Question", question, "### Answer", answer]
    if exchange.sources:
        items = [f"{index}. {_source(source)}" for index, source in enumerate(exchange.sources, start=1)]
        lines += ["### Sources", "\n".join(items)]
    return "\n\n".join(lines)


def _source(source: dict[str, Any]) -> str:
    """A source (an assistant Source, dumped) as a list item: its label, linked, then its snippet."""
    label = _line(str(source.get("label") or source.get("course_title") or "Source"))
    link = source.get("lesson_link") or source.get("course_link")
    item = (
        f"[{label}](<{link}>)"
        if isinstance(link, str) and link.startswith(("http://", "https://"))
        else label
    )
    snippet = " ".join(str(source.get("snippet") or "").split())
    return f"{item}\n   > {snippet}" if snippet else item


def _line(text: str) -> str:
    """Text on one line, with Markdown's link brackets escaped."""
    return " ".join(text.split()).replace("[", "\\[").replace("]", "\\]")
