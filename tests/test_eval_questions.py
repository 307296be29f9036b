"""The labelled question set behind `make eval`: every evidence phrase is verbatim in its gold lesson."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.courses.chunking import chunk_course
from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from bench.evaluate import CONTENT_KINDS, Question, flat, load_questions

DOCS = Path(__file__).resolve().parent.parent / "docs"
QUESTIONS = load_questions()


@pytest.fixture(scope="module")
def library() -> dict[str, Course]:
    """The sample courses in docs/, parsed, by title."""
    courses = [parse_file(path) for path in sorted(DOCS.iterdir()) if path.suffix in SUPPORTED_EXTENSIONS]
    return {course.title: course for course in courses}


def test_the_set_has_every_kind_and_enough_questions():
    kinds = {question.kind for question in QUESTIONS}
    assert kinds == {*CONTENT_KINDS, "outline", "no_coverage"}
    assert len(QUESTIONS) >= 60
    assert len({question.id for question in QUESTIONS}) == len(QUESTIONS)
    assert sum(question.kind == "no_coverage" for question in QUESTIONS) >= 6


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.kind in CONTENT_KINDS], ids=lambda q: q.id)
def test_evidence_is_verbatim_in_one_chunk_of_the_gold_lesson(question: Question, library):
    expected = 2 if question.kind == "two_lesson" else 1
    assert len(question.gold) == expected
    for gold in question.gold:
        course = library[gold.course]
        lesson = next(lesson for lesson in course.lessons if lesson.number == gold.lesson)
        assert flat(gold.evidence) in flat(lesson.text)
        # Within one chunk, so a strict hit is possible whatever passage the search returns.
        texts = [chunk.text for chunk in chunk_course(course) if chunk.lesson_number == gold.lesson]
        assert any(flat(gold.evidence) in flat(text) for text in texts)


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.kind == "outline"], ids=lambda q: q.id)
def test_outline_questions_name_a_course_and_what_to_expect(question: Question, library):
    assert question.course in library
    assert question.expect or question.expect_pattern
