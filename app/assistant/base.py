"""What every answerer shares: the Answerer protocol, the answer events, answers, sources and exchanges."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from app.courses.timecodes import video_link_at

if TYPE_CHECKING:
    pass


class Source(BaseModel):
    """A cited lesson: its label, links and a short snippet of the passage used."""

    label: str
    course_title: str
    lesson_number: int | None = None
    lesson_title: str | None = None
    course_link: str | None = None
    lesson_link: str | None = None
    snippet: str = ""
    # The second in the lesson's video where the cited text is said; None for a lesson without timings.
    start_seconds: float | None = None

    @property
    def link(self) -> str | None:
        """The lesson link (opening its video at `start_seconds` when timed), else the course link."""
        if self.lesson_link and self.start_seconds is not None:
            return video_link_at(self.lesson_link, self.start_seconds)
        return self.lesson_link or self.course_link


class Answer(BaseModel):
    """The assistant's reply: markdown, the sources it used, and how it got there.

    Claim-level citations live in the markdown as markers `[^n]`, n being the 1-based position of the cited
    source in `sources`; renderers turn them into numbered links, plain-text faces may leave them.
    """

    markdown: str
    sources: list[Source] = Field(default_factory=list)
    mode: Literal["claude", "openai", "extractive"] = "claude"
    tool_rounds: int = 0
    usage: dict[str, int] | None = None
    # How sure an extractive answer is that the library covers the question (0-1); None when not measured.
    confidence: float | None = None
    # Claude citations whose text is not in the passage they name: shown as no marker, logged and counted.
    unverified_citations: list[str] = Field(default_factory=list)
    # Why the model's answer was replaced by an extractive one (fallback.py); None when it answered.
    model_error: str | None = None


class Exchange(BaseModel):
    """One question and its answer, as kept in the conversation history."""

    question: str
    answer: str
    sources: list[Source] = Field(default_factory=list)


# -- answer events: what every answerer yields while it works (streaming, the web page, the API) -------------


@dataclass(frozen=True)
class StatusEvent:
    """What the assistant is doing now, for a person to read ("Searching Lesson 3 of …")."""

    text: str


@dataclass(frozen=True)
class TextEvent:
    """The next piece of the answer's markdown, without citation markers (they come with the final Answer)."""

    text: str


@dataclass(frozen=True)
class DoneEvent:
    """The finished answer: its full markdown (with citation markers) and its sources."""

    answer: Answer


AnswerEvent = StatusEvent | TextEvent | DoneEvent


class Answerer(Protocol):
    """Answers one checked question given the recent exchanges, as events ending in a DoneEvent."""

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """Answer as events: status lines, text pieces, then the finished Answer."""
        ...
