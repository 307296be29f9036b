"""Evaluation cases saved from the retrieval playground, run by `make eval` beside the labelled set."""

from __future__ import annotations

from sqlalchemy import delete, select

from app.errors import BadRequest
from app.store.database import Database
from app.store.models import COURSE_CHARS, EvalCase
from app.store.records import SavedCase
from app.store.soft import hard


class EvalCases:
    """Save, list and remove evaluation cases."""

    def __init__(self, db: Database):
        self.db = db

    @hard
    def save(self, question: str, gold_course: str, gold_lesson: int | None, evidence: str = "") -> int:
        """Store a case; return its id."""
        if not question.strip() or not gold_course.strip():
            raise BadRequest("A test case needs a question and its gold course.")
        with self.db.writing() as session:
            case = EvalCase(
                question=question.strip(),
                gold_course=gold_course.strip()[:COURSE_CHARS],
                gold_lesson=gold_lesson,
                evidence=evidence.strip(),
            )
            session.add(case)
            session.flush()
            return case.id

    @hard
    def all(self) -> list[SavedCase]:
        """Every saved case, oldest first."""
        with self.db.reading() as session:
            return [
                SavedCase(
                    row.id, row.question, row.gold_course, row.gold_lesson, row.evidence, row.created_at
                )
                for row in session.scalars(select(EvalCase).order_by(EvalCase.id))
            ]

    @hard
    def remove(self, case_id: int) -> bool:
        """Delete a case; False when there was none."""
        with self.db.writing() as session:
            return bool(session.execute(delete(EvalCase).where(EvalCase.id == case_id)).rowcount)  # type: ignore[attr-defined]
