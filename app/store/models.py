"""The tables: conversations, exchanges, questions asked and their answer runs, feedback, the question log,
eval cases, MCP tokens, course spaces and their members."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from app.control_chars import drop_control_chars

EXCHANGE_STATUSES = ("pending", "answered", "interrupted", "failed", "stopped")
VOTES = ("up", "down")
TITLE_CHARS = 120
COMMENT_CHARS = 500
OWNER_CHARS = 64
COURSE_CHARS = 200
ID_CHARS = 43  # secrets.token_urlsafe(32)
# The integer ids' range on every database (PostgreSQL's integer; SQLite's is wider).
MAX_ROW_ID = 2**31 - 1
LABEL_CHARS = 120
DIGEST_CHARS = 64  # a SHA-256 in hex
ANSWER_MODES = ("full", "hints")
ROLES = ("staff", "student")
NAME_CHARS = 120
ISSUER_CHARS = 255
SUBJECT_CHARS = 255
EMAIL_CHARS = 254

# Named constraints, so migrations can alter them on SQLite and PostgreSQL alike.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def now() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


def new_id() -> str:
    """An unguessable id for a URL: 256 random bits."""
    return secrets.token_urlsafe(32)


class UTCDateTime(TypeDecorator[datetime]):
    """A UTC time stored without a zone (SQLite has none) and read back zone-aware."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        """Store naive UTC."""
        return value.astimezone(UTC).replace(tzinfo=None) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        """Read as aware UTC."""
        return value.replace(tzinfo=UTC) if value is not None else None


class CleanString(TypeDecorator[str]):
    """A string stored without control characters, on SQLite as on PostgreSQL (which refuses NUL)."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        """Drop control characters: whatever face let one through, no write fails or differs for it."""
        return drop_control_chars(value) if value is not None else None


class CleanText(CleanString):
    """Unbounded text stored without control characters."""

    impl = Text
    cache_ok = True


class RowId(TypeDecorator[int]):
    """An integer id: one outside the column's range names no row, so a lookup finds none on every database
    (instead of PostgreSQL's out-of-range error, or SQLite's overflow past 64 bits)."""

    impl = Integer
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Any) -> int | None:
        """An id past the range becomes 0, which no row has (ids start at 1)."""
        if value is None or -MAX_ROW_ID - 1 <= value <= MAX_ROW_ID:
            return value
        return 0


class Base(DeclarativeBase):
    """The declarative base, with constraint names both databases accept."""

    metadata = MetaData(naming_convention=NAMING)


class Conversation(Base):
    """A browser's conversation: its owner is an opaque browser id, never a person."""

    __tablename__ = "conversations"
    __table_args__ = (Index("ix_conversations_owner_updated", "owner", "updated_at"),)

    id: Mapped[str] = mapped_column(CleanString(ID_CHARS), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(CleanString(OWNER_CHARS))
    title: Mapped[str] = mapped_column(CleanString(TITLE_CHARS))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now, index=True)
    # Deleted by its owner, kept a while so Delete can be undone (None: not deleted).
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    exchanges: Mapped[list[Exchange]] = relationship(
        back_populates="conversation",
        order_by="Exchange.id",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class Exchange(Base):
    """One question and its answer; stored pending when asked, completed when the answer ends."""

    __tablename__ = "exchanges"
    __table_args__ = (CheckConstraint(f"status IN {EXCHANGE_STATUSES!r}", name="status"),)

    id: Mapped[int] = mapped_column(RowId, primary_key=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    question: Mapped[str] = mapped_column(CleanText)
    # A Retry or Edit: the first version of the exchange this one is a later version of (None: a first).
    version_of: Mapped[int | None] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"), index=True)
    answer: Mapped[str] = mapped_column(CleanText, default="")
    sources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    mode: Mapped[str | None] = mapped_column(CleanString(20))
    status: Mapped[str] = mapped_column(CleanString(12), default="pending")
    first_text_ms: Mapped[int | None] = mapped_column(Integer)
    total_ms: Mapped[int | None] = mapped_column(Integer)
    confidence: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    conversation: Mapped[Conversation] = relationship(back_populates="exchanges")


class PendingQuestion(Base):
    """A question waiting for its stream: bound to the asking browser, claimed exactly once."""

    __tablename__ = "pending_questions"

    id: Mapped[str] = mapped_column(CleanString(ID_CHARS), primary_key=True, default=new_id)
    owner: Mapped[str] = mapped_column(CleanString(OWNER_CHARS))
    question: Mapped[str] = mapped_column(CleanText)
    exchange_id: Mapped[int | None] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now, index=True)
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AnswerRun(Base):
    """An answer being made in some worker: its heartbeat, its end, and a Stop asked from another worker."""

    __tablename__ = "answer_runs"

    id: Mapped[str] = mapped_column(String(ID_CHARS), primary_key=True)  # the pending question's id
    beat_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    stop_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now, index=True)


class AnswerRunEvent(Base):
    """One event of an answer run, in order, for pages that follow it from another worker."""

    __tablename__ = "answer_run_events"

    run_id: Mapped[str] = mapped_column(ForeignKey("answer_runs.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class Feedback(Base):
    """One vote per exchange, changeable; a short comment may explain a down vote."""

    __tablename__ = "feedback"
    __table_args__ = (CheckConstraint(f"vote IN {VOTES!r}", name="vote"),)

    exchange_id: Mapped[int] = mapped_column(ForeignKey("exchanges.id", ondelete="CASCADE"), primary_key=True)
    vote: Mapped[str] = mapped_column(CleanString(4))
    comment: Mapped[str | None] = mapped_column(CleanString(COMMENT_CHARS))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class LoggedQuestion(Base):
    """A question as instructors see it: no browser id, no IP address, no user agent."""

    __tablename__ = "question_log"

    id: Mapped[int] = mapped_column(RowId, primary_key=True)
    question: Mapped[str] = mapped_column(CleanText)
    course: Mapped[str | None] = mapped_column(CleanString(COURSE_CHARS), index=True)
    declined: Mapped[bool] = mapped_column(Boolean, default=False)
    confidence: Mapped[float | None] = mapped_column(Float)
    mode: Mapped[str | None] = mapped_column(CleanString(20))
    # The passage that came closest, so a declined question still points at a lesson.
    closest_course: Mapped[str | None] = mapped_column(CleanString(COURSE_CHARS))
    closest_lesson: Mapped[int | None] = mapped_column(Integer)
    # Links the log to a stored exchange and its feedback; unset when conversations are not stored.
    exchange_id: Mapped[int | None] = mapped_column(
        ForeignKey("exchanges.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now, index=True)
    lessons: Mapped[list[CitedLesson]] = relationship(cascade="all, delete-orphan", passive_deletes=True)


class CitedLesson(Base):
    """A lesson an answer cited, one row per lesson, so per-lesson counts are a GROUP BY."""

    __tablename__ = "question_lessons"
    __table_args__ = (Index("ix_question_lessons_lesson", "course", "lesson"),)

    question_id: Mapped[int] = mapped_column(
        ForeignKey("question_log.id", ondelete="CASCADE"), primary_key=True
    )
    course: Mapped[str] = mapped_column(CleanString(COURSE_CHARS), primary_key=True)
    lesson: Mapped[int] = mapped_column(Integer, primary_key=True)


class EvalCase(Base):
    """A question saved from the retrieval playground, with its gold lesson and evidence."""

    __tablename__ = "eval_cases"

    id: Mapped[int] = mapped_column(RowId, primary_key=True)
    question: Mapped[str] = mapped_column(CleanText)
    gold_course: Mapped[str] = mapped_column(CleanString(COURSE_CHARS))
    gold_lesson: Mapped[int | None] = mapped_column(Integer)
    evidence: Mapped[str] = mapped_column(CleanText, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class McpToken(Base):
    """A bearer token for the MCP server over HTTP: only its SHA-256 is kept, shown once when made."""

    __tablename__ = "mcp_tokens"

    id: Mapped[int] = mapped_column(RowId, primary_key=True)
    label: Mapped[str] = mapped_column(CleanString(LABEL_CHARS))
    digest: Mapped[str] = mapped_column(CleanString(DIGEST_CHARS), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Space(Base):
    """A course space: its courses, its members and what its staff decided about answering."""

    __tablename__ = "spaces"
    __table_args__ = (CheckConstraint(f"answer_mode IN {ANSWER_MODES!r}", name="answer_mode"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_CHARS), unique=True)
    answer_mode: Mapped[str] = mapped_column(String(8), default="full")
    avoid_topics: Mapped[list[str]] = mapped_column(JSON, default=list)
    welcome: Mapped[str] = mapped_column(Text, default="")
    suggestions: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class SpaceCourse(Base):
    """A course (by its index id) belonging to a space; a course in no space is open to every visitor."""

    __tablename__ = "space_courses"

    space_id: Mapped[int] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    course_id: Mapped[str] = mapped_column(String(COURSE_CHARS), primary_key=True, index=True)


class User(Base):
    """A person as an identity provider or LMS names them: an issuer and its opaque subject id.

    A name or email is kept only when the platform sends it, and only staff pages show it.
    """

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("issuer", "subject", name="uq_users_issuer_subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(ISSUER_CHARS))
    subject: Mapped[str] = mapped_column(String(SUBJECT_CHARS))
    name: Mapped[str | None] = mapped_column(String(NAME_CHARS))
    email: Mapped[str | None] = mapped_column(String(EMAIL_CHARS))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class Membership(Base):
    """A user's role in a space: staff or student."""

    __tablename__ = "space_members"
    __table_args__ = (CheckConstraint(f"role IN {ROLES!r}", name="role"),)

    space_id: Mapped[int] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(String(8))
