"""Checked suggestions are kept per library version, and versions synced over long ago are let go."""

from __future__ import annotations

from datetime import UTC, datetime

from app.search.models import CourseRecord, LessonInfo
from app.web.chat import suggestions


def pottery_course(version: int) -> CourseRecord:
    """One made-up course whose content hash names its version."""
    return CourseRecord(
        title="Wheel-Thrown Pottery",
        lessons=[LessonInfo(number=1, title="Centering the clay")],
        id="wheel-thrown-pottery",
        source_file="pottery.txt",
        content_hash=f"hash-{version}",
        chunk_count=3,
        indexed_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_checked_suggestions_are_kept_per_version_and_bounded(app, monkeypatch):
    checks: list[str] = []

    def every_answer_cites(suggestion: suggestions.Suggestion) -> bool:
        checks.append(suggestion.question)
        return True

    monkeypatch.setattr(suggestions, "_checked", {})
    monkeypatch.setattr(suggestions, "_answer_check", lambda: every_answer_cites)
    with app.app_context():
        first = suggestions.checked_suggestions([pottery_course(0)])
        again = suggestions.checked_suggestions([pottery_course(0)])
        for version in range(1, 3 * suggestions.MAX_KEPT):
            suggestions.checked_suggestions([pottery_course(version)])

    assert first == again and "Centering the clay" in first[0].question
    assert len(checks) == 3 * suggestions.MAX_KEPT, "each version checked once, a repeat not at all"
    assert len(suggestions._checked) == suggestions.MAX_KEPT
