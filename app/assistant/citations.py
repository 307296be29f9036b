"""Claim-level citations: search results as citable blocks; cited text blocks into markdown with `[^n]`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.assistant.base import Source
from app.assistant.tools import lesson_label, passage_source
from app.courses.chunking import split_sentences
from app.rules import snippet
from app.search.models import Passage

# A marker our code wrote; one escaped with a backslash (`\[^1]`) is text the model or a course typed.
MARKER = re.compile(r"(?<!\\)\[\^(\d{1,4})\]")


# Code (fenced blocks, to their end if unclosed, and code spans) shows a `[^1]` as written: no escaping there.
_CODE = re.compile(r"(```[\s\S]*?(?:```|$(?![\s\S]))|~~~[\s\S]*?(?:~~~|$(?![\s\S]))|`[^`\n]*`)")


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to each stretch outside code (fenced blocks and code spans)."""
    pieces = _CODE.split(text)
    return "".join(piece if odd % 2 else change(piece) for odd, piece in enumerate(pieces))


def escape_markers(text: str) -> str:
    """Text with every marker-like `[^n]` outside code escaped, so only citations we add become markers."""
    return outside_code(text, lambda piece: MARKER.sub(r"\\[^\1]", piece))


def strip_markers(text: str) -> str:
    """The text without citation markers (for the model's history and plain-text copies)."""
    return MARKER.sub("", text)


def marker(number: int) -> str:
    """The citation marker for the `number`-th source (1-based)."""
    return f"[^{number}]"


def search_result_block(passage: Passage) -> dict[str, Any]:
    """A passage as a citable `search_result` block: one text block per sentence, so a citation is a claim."""
    label = lesson_label(passage.course_title, passage.lesson_number, passage.lesson_title)
    sentences = split_sentences(passage.text) or [passage.text.strip() or label]
    return {
        "type": "search_result",
        # The lesson link identifies the lesson; the label stands in when a course has no links.
        "source": passage.lesson_link or passage.course_link or label,
        "title": label,
        "content": [{"type": "text", "text": sentence} for sentence in sentences],
        "citations": {"enabled": True},
    }


def source_key(source: Source) -> tuple[str, int | None]:
    """What makes two sources the same: their course and lesson."""
    return (source.course_title, source.lesson_number)


def _squeezed(text: str) -> str:
    """Text compared loosely: lower case, every run of whitespace one space."""
    return " ".join(text.lower().split())


def quoted_in(cited_text: str, passage: Passage) -> bool:
    """Whether a citation's text is in the passage it names (whitespace and case aside)."""
    cited = _squeezed(cited_text)
    return bool(cited) and cited in _squeezed(passage.text)


def _block_source(passage: Passage) -> tuple[str, ...]:
    """The strings a search_result block of this passage could be echoed back as."""
    label = lesson_label(passage.course_title, passage.lesson_number, passage.lesson_title)
    return tuple(text for text in (passage.lesson_link, passage.course_link, label) if text)


class CitedAnswer:
    """Builds one answer's markdown and numbered sources from the model's text blocks and their citations.

    A citation counts only when its text is in the passage it names: the model may quote wrongly, and a
    marker would then send the reader to a passage that does not say it. Those land in `unverified`.
    """

    def __init__(self, results: list[Passage], used: list[Source]):
        # `results` is the passage of each search_result block sent, in request order (search_result_index).
        self.results = results
        self.used = used
        self.cited: dict[tuple[str, int | None], Source] = {}
        self.unverified: list[str] = []

    def number(self, citation: Any) -> int | None:
        """The 1-based number of a citation's source, adding it to the cited ones; None when unknown."""
        if getattr(citation, "type", None) != "search_result_location":
            return None
        index = citation.search_result_index
        if 0 <= index < len(self.results):
            passage = self.results[index]
        else:
            # An index we did not send: fall back on the source string the model echoed.
            matches = [p for p in self.results if citation.source in _block_source(p)]
            if not matches:
                return None
            passage = matches[0]
        cited_text = citation.cited_text or ""
        if not quoted_in(cited_text, passage):
            self.unverified.append(cited_text)
            return None
        source = passage_source(passage, cited_text)
        key = source_key(source)
        if key not in self.cited:
            self.cited[key] = source.model_copy(update={"snippet": snippet(cited_text) or source.snippet})
        return list(self.cited).index(key) + 1

    def text(self, block: Any) -> str:
        """A text block's text with the markers of its citations after the cited span."""
        text = escape_markers(block.text)  # a `[^1]` the model typed is not a citation
        numbers: list[int] = []
        for citation in getattr(block, "citations", None) or []:
            number = self.number(citation)
            if number is not None and number not in numbers:
                numbers.append(number)
        if not numbers:
            return text
        # The marker goes right after the claim, before the whitespace that separates it from the next one.
        body = text.rstrip()
        return body + "".join(marker(n) for n in numbers) + text[len(body) :]

    def markdown(self, content: list[Any]) -> str:
        """The text blocks of one reply joined: cited spans run on, other blocks start a paragraph."""
        parts: list[str] = []
        running = False
        for block in content:
            if block.type != "text":
                running = False
                continue
            piece = self.text(block)
            if running:
                parts[-1] += piece
            else:
                parts.append(piece)
            running = True
        return "\n\n".join(part.strip() for part in parts if part.strip())

    @property
    def sources(self) -> list[Source]:
        """Cited sources first, in the order of their numbers, then the other sources the tools returned."""
        rest = [source for source in self.used if source_key(source) not in self.cited]
        return [*self.cited.values(), *rest]
