"""The question log behind instructor insights: what was asked, from which lessons, and what failed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Select, delete, func, insert, or_, select

from app.bidi import strip_all
from app.store.database import Database
from app.store.models import COURSE_CHARS, CitedLesson, Feedback, LoggedQuestion, now
from app.store.records import DayCount, GapCandidate, GapReason, LessonCount, QuestionEntry
from app.store.soft import hard, soft

# Retrieval confidence below this marks an answer as a possible gap (the caller may choose another).
LOW_CONFIDENCE = 0.3
EXAMPLES = 3
CSV_HEADER = ["asked_at", "question", "course", "lessons", "declined", "confidence", "mode", "vote"]
# A cell starting with one of these is a formula to a spreadsheet; a leading quote keeps it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# The answer path's statements, built once.
LOG = insert(LoggedQuestion).returning(LoggedQuestion.id)
CITE = insert(CitedLesson)
Q = TypeVar("Q", bound=Select)  # any Select, whatever its columns


def _between(query: Q, since: datetime | None, until: datetime | None) -> Q:
    """Restrict a question-log query to [since, until)."""
    if since is not None:
        query = query.where(LoggedQuestion.created_at >= since)
    if until is not None:
        query = query.where(LoggedQuestion.created_at < until)
    return query


def _day(value: Any) -> date:
    """A day from the database: SQLite's date() gives text, PostgreSQL's a date."""
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _course(title: str | None) -> str | None:
    """A course title cut to its column (a longer one would fail the write on PostgreSQL)."""
    return title[:COURSE_CHARS] if title is not None else None


def _cell(value: Any) -> str:
    """A CSV cell that a spreadsheet shows as text (without bidi controls), never runs as a formula."""
    text = "" if value is None else strip_all(str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class QuestionLog:
    """Record each question, then count, group and export them for instructors."""

    def __init__(self, db: Database):
        self.db = db

    @soft("log")
    def record(self, entry: QuestionEntry) -> int:
        """Log one question with the lessons its answer cited; return the log row's id."""
        row = {
            "question": entry.question,
            "course": _course(entry.course),
            "declined": entry.declined,
            "confidence": entry.confidence,
            "mode": entry.mode,
            "closest_course": _course(entry.closest[0]) if entry.closest else None,
            "closest_lesson": entry.closest[1] if entry.closest else None,
            "exchange_id": entry.exchange_id,
            "created_at": now(),
        }
        with self.db.statements() as connection:
            log_id = connection.scalar(LOG, row)
            lessons = [
                {"question_id": log_id, "course": course, "lesson": lesson}
                for course, lesson in sorted({(_course(course), lesson) for course, lesson in entry.lessons})
            ]
            if lessons:
                connection.execute(CITE, lessons)
        return int(log_id)  # type: ignore[arg-type]  # RETURNING gives one id

    @hard
    def per_day(self, since: datetime | None = None, until: datetime | None = None) -> list[DayCount]:
        """Questions per UTC day and course, oldest day first."""
        day = func.date(LoggedQuestion.created_at)
        query = _between(
            select(day, LoggedQuestion.course, func.count()).group_by(day, LoggedQuestion.course),
            since,
            until,
        )
        with self.db.reading() as session:
            rows = [DayCount(_day(row[0]), row[1], int(row[2])) for row in session.execute(query)]
        return sorted(rows, key=lambda row: (row.day, row.course or ""))

    @hard
    def per_lesson(
        self, since: datetime | None = None, until: datetime | None = None, examples: int = EXAMPLES
    ) -> list[LessonCount]:
        """How many answers cited each lesson, most cited first, with its latest few questions."""
        counts = _between(
            select(CitedLesson.course, CitedLesson.lesson, func.count())
            .join(LoggedQuestion, LoggedQuestion.id == CitedLesson.question_id)
            .group_by(CitedLesson.course, CitedLesson.lesson),
            since,
            until,
        )
        with self.db.reading() as session:
            result = []
            for course, lesson, count in session.execute(counts):
                asked = _between(
                    select(LoggedQuestion.question)
                    .join(CitedLesson, LoggedQuestion.id == CitedLesson.question_id)
                    .where(CitedLesson.course == course, CitedLesson.lesson == lesson)
                    .order_by(LoggedQuestion.created_at.desc(), LoggedQuestion.id.desc())
                    .limit(examples),
                    since,
                    until,
                )
                result.append(LessonCount(course, lesson, int(count), list(session.scalars(asked))))
        return sorted(result, key=lambda row: (-row.count, row.course, row.lesson))

    @hard
    def gaps(
        self,
        since: datetime | None = None,
        until: datetime | None = None,
        low_confidence: float = LOW_CONFIDENCE,
    ) -> list[GapCandidate]:
        """Declined, low-confidence and down-voted questions, newest first: where the course falls short."""
        query = _between(
            select(LoggedQuestion, Feedback.vote, Feedback.comment)
            .outerjoin(Feedback, Feedback.exchange_id == LoggedQuestion.exchange_id)
            .where(
                or_(
                    LoggedQuestion.declined.is_(True),
                    LoggedQuestion.confidence < low_confidence,
                    Feedback.vote == "down",
                )
            )
            .order_by(LoggedQuestion.created_at.desc(), LoggedQuestion.id.desc()),
            since,
            until,
        )
        with self.db.reading() as session:
            return [
                self._gap(row, vote, comment, low_confidence) for row, vote, comment in session.execute(query)
            ]

    @staticmethod
    def _gap(row: LoggedQuestion, vote: str | None, comment: str | None, low: float) -> GapCandidate:
        """The gap record of a log row, with every reason it qualifies."""
        reasons: list[GapReason] = []
        if row.declined:
            reasons.append("declined")
        if row.confidence is not None and row.confidence < low:
            reasons.append("low_confidence")
        if vote == "down":
            reasons.append("down_voted")
        known = row.closest_course is not None and row.closest_lesson is not None
        closest = (row.closest_course, row.closest_lesson) if known else None
        return GapCandidate(
            question=row.question,
            reasons=reasons,
            confidence=row.confidence,
            closest=closest,  # type: ignore[arg-type]  # both parts known, checked above
            comment=comment if vote == "down" else None,
            created_at=row.created_at,
        )

    def csv_rows(self, since: datetime | None = None, until: datetime | None = None) -> Iterator[list[str]]:
        """The header, then one row per logged question, oldest first, safe to open in a spreadsheet."""
        yield CSV_HEADER
        yield from self._rows(since, until)

    @hard
    def _rows(self, since: datetime | None, until: datetime | None) -> list[list[str]]:
        """Every logged question in the period as CSV cells."""
        query = _between(
            select(LoggedQuestion, Feedback.vote)
            .outerjoin(Feedback, Feedback.exchange_id == LoggedQuestion.exchange_id)
            .order_by(LoggedQuestion.created_at, LoggedQuestion.id),
            since,
            until,
        )
        with self.db.reading() as session:
            rows = []
            for row, vote in session.execute(query):
                lessons = "; ".join(f"{cited.course} {cited.lesson}" for cited in row.lessons)
                confidence = "" if row.confidence is None else f"{row.confidence:.3f}"
                cells = [row.created_at.isoformat(timespec="seconds"), row.question, row.course, lessons]
                cells += ["yes" if row.declined else "no", confidence, row.mode, vote]
                rows.append([_cell(cell) for cell in cells])
            return rows

    @hard
    def purge(self, older_than_days: int | None = None) -> int:
        """Delete the log rows older than `older_than_days` (None: all); return how many went."""
        query = delete(LoggedQuestion)
        if older_than_days is not None:
            query = query.where(LoggedQuestion.created_at < now() - timedelta(days=older_than_days))
        with self.db.writing() as session:
            return int(session.execute(query).rowcount)  # type: ignore[attr-defined]
