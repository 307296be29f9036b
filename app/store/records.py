"""What the store hands out and takes in: plain frozen records, never live ORM rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

Status = Literal["pending", "answered", "interrupted", "failed", "stopped"]
Vote = Literal["up", "down"]
GapReason = Literal["declined", "low_confidence", "down_voted"]


@dataclass(frozen=True)
class ConversationSummary:
    """A line of a browser's conversation list."""

    id: str
    title: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class ExchangeRecord:
    """A stored question and its answer, with the browser's vote on it."""

    id: int
    question: str
    answer: str
    sources: list[dict[str, Any]]
    status: Status
    mode: str | None
    confidence: float | None
    created_at: datetime
    vote: Vote | None = None
    version_of: int | None = None  # the first version, for a later one (a Retry or Edit)


@dataclass(frozen=True)
class Transcript:
    """A whole conversation, oldest exchange first, every version of each."""

    conversation: ConversationSummary
    exchanges: list[ExchangeRecord]

    @property
    def versions(self) -> list[list[ExchangeRecord]]:
        """Each exchange's versions, oldest first, the exchanges in the order they were first asked."""
        groups: dict[int, list[ExchangeRecord]] = {}
        for exchange in self.exchanges:
            groups.setdefault(exchange.version_of or exchange.id, []).append(exchange)
        return list(groups.values())

    @property
    def current(self) -> list[ExchangeRecord]:
        """The conversation as it reads now: each exchange's latest version."""
        return [versions[-1] for versions in self.versions]


@dataclass(frozen=True)
class Outcome:
    """How an answer ended: what completes a pending exchange."""

    status: Status
    answer: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None
    first_text_ms: int | None = None
    total_ms: int | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class Asked:
    """A question stored as asked: its conversation and its pending exchange."""

    conversation_id: str
    exchange_id: int


@dataclass(frozen=True)
class QuestionEntry:
    """What the question log records about one answered (or declined) question."""

    question: str
    course: str | None = None
    lessons: list[tuple[str, int]] = field(default_factory=list)
    declined: bool = False
    confidence: float | None = None
    mode: str | None = None
    closest: tuple[str, int] | None = None
    exchange_id: int | None = None


@dataclass(frozen=True)
class DayCount:
    """Questions asked on one day about one course (None: no course)."""

    day: date
    course: str | None
    count: int


@dataclass(frozen=True)
class LessonCount:
    """How many answers cited a lesson, with a few of their questions."""

    course: str
    lesson: int
    count: int
    examples: list[str]


@dataclass(frozen=True)
class GapCandidate:
    """A question the materials may fail: declined, answered with low confidence, or voted down."""

    question: str
    reasons: list[GapReason]
    confidence: float | None
    closest: tuple[str, int] | None
    comment: str | None
    created_at: datetime


@dataclass(frozen=True)
class SavedCase:
    """A saved evaluation case."""

    id: int
    question: str
    gold_course: str
    gold_lesson: int | None
    evidence: str
    created_at: datetime
