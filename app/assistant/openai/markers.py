"""The model's own citation markers (`[2]`, `[1, 3]`, `[^2]`) made the app's, or dropped.

The passages a model receives are numbered. A marker becomes a citation only when its number is a passage
given in this answer and the sentence it follows shares content words with that passage; the passage's
sentence sharing the most is the cited text (its snippet, and the video second it is said at). The rest is
checked, numbered and listed as Claude's citations are (citations.CitedAnswer). Other markers are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.assistant.base import Source
from app.assistant.citations import CitedAnswer, marker, outside_code
from app.courses.chunking import split_sentences
from app.language.tokens import content_words
from app.search.models import Passage

# Markers in a row (`[2]`, `[^2]`, `[1, 3]`), with the spaces before them; not escaped, not a link's text.
MARKER_RUN = re.compile(r"(?<!\\)(?:[ \t]*\[\^?\d{1,3}(?:[ \t]*,[ \t]*\^?\d{1,3})*\](?!\())+")
NUMBER = re.compile(r"\d+")
# The end of a streamed piece that may be the start of a marker: held back until the next piece shows.
OPEN_END = re.compile(r"\s*(?:(?<!\\)\[[\d,^ \t]{0,24})?$")


class MarkerFilter:
    """Streamed text without the model's markers (a marker may arrive split over several pieces)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """The text that can be shown now; a possible marker's start stays held."""
        text = MARKER_RUN.sub("", self._held + piece)
        match = OPEN_END.search(text)
        cut = match.start() if match else len(text)
        self._held = text[cut:]
        return text[:cut]

    def flush(self) -> str:
        """What is still held, at the end of the text."""
        text, self._held = MARKER_RUN.sub("", self._held), ""
        return text


@dataclass(frozen=True)
class Location:
    """A model's marker in the shape of a search-result citation, for CitedAnswer to check and number."""

    search_result_index: int
    cited_text: str
    source: str = ""
    type: str = "search_result_location"


def claim_before(text: str, end: int) -> str:
    """The sentence a marker at `end` follows (within its line)."""
    line = text[:end].rstrip()
    line = line[line.rfind("\n") + 1 :]
    sentences = split_sentences(line)
    return sentences[-1] if sentences else line


def supporting_sentence(claim: str, passage: Passage) -> str | None:
    """The passage's sentence sharing the most content words with `claim`; None when none shares any."""
    wanted = set(content_words(claim))
    best, most = None, 0
    for sentence in split_sentences(passage.text) or [passage.text]:
        shared = len(wanted & set(content_words(sentence)))
        if shared > most:
            best, most = sentence, shared
    return best


class ModelCitations:
    """One answer's markers resolved against the numbered passages it was given (1-based, in order)."""

    def __init__(self, passages: list[Passage]):
        self.passages = passages
        self._cited = CitedAnswer(passages, [])
        self._unsupported: list[str] = []

    def markdown(self, text: str) -> str:
        """The model's text with its supported markers as the app's `[^n]` and every other marker gone."""
        return outside_code(text, self._resolve).strip()

    def _resolve(self, piece: str) -> str:
        """One stretch of prose with its marker runs resolved."""
        parts: list[str] = []
        last = 0
        for run in MARKER_RUN.finditer(piece):
            parts.append(piece[last : run.start()])
            claim = claim_before(piece, run.start())
            numbers: list[int] = []
            for given in NUMBER.findall(run.group()):
                number = self._number(int(given), claim)
                if number is not None and number not in numbers:
                    numbers.append(number)
            parts.append("".join(marker(number) for number in numbers))
            last = run.end()
        parts.append(piece[last:])
        return "".join(parts)

    def _number(self, given: int, claim: str) -> int | None:
        """The source number of the marker `[given]` after `claim`, or None when it does not hold."""
        if not 1 <= given <= len(self.passages):
            self._unsupported.append(f"[{given}] {claim}")
            return None
        sentence = supporting_sentence(claim, self.passages[given - 1])
        if sentence is None:
            self._unsupported.append(f"[{given}] {claim}")
            return None
        return self._cited.number(Location(given - 1, sentence))

    @property
    def sources(self) -> list[Source]:
        """The cited passages' sources, in the order of their numbers."""
        return self._cited.sources

    @property
    def unverified(self) -> list[str]:
        """The markers that did not become citations, each with the sentence it followed."""
        return [*self._unsupported, *self._cited.unverified]
