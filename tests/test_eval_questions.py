"""The labelled question set behind `make eval`: evidence verbatim in its gold lesson, and floors kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.assistant.service import Assistant
from app.courses.chunking import chunk_course
from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from app.library.sync import Indexer
from app.search.index import CourseIndex
from bench.evaluate import CONTENT_KINDS, Question, evaluate, flat, load_questions
from bench.index_search import bench_settings

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


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """The hybrid ranking and the extractive answers, scored over the whole set on docs/."""
    settings = bench_settings(tmp_path_factory.mktemp("eval"), "eval")
    index = CourseIndex(settings)
    Indexer(settings, index).sync()
    return evaluate(index, Assistant(settings, index), QUESTIONS, answers=True)


def test_search_keeps_its_floor_on_the_set(scored):
    # The floor (strict hit@5 >= 0.85, MRR@5 >= 0.65); `make eval` prints the figures themselves.
    ranks = list(scored.strict.values())
    hit_at_5 = sum(1 for rank in ranks if rank is not None and rank <= 5) / len(ranks)
    mrr_at_5 = sum(1 / rank for rank in ranks if rank is not None and rank <= 5) / len(ranks)
    assert hit_at_5 >= 0.85 and mrr_at_5 >= 0.65, (hit_at_5, mrr_at_5)
    two_lesson = [scored.strict[q.id] for q in QUESTIONS if q.kind == "two_lesson"]
    assert sum(1 for rank in two_lesson if rank is not None and rank <= 10) >= len(two_lesson) / 2


def test_extractive_answers_keep_their_floor_on_the_set(scored):
    def verdicts(kind: str) -> list[str]:
        """The extractive verdicts of one kind of question."""
        return [scored.verdicts[q.id] for q in QUESTIONS if q.kind == kind]

    assert set(verdicts("outline")) == {"ok"}
    no_coverage = verdicts("no_coverage")
    assert no_coverage.count("ok") >= len(no_coverage) - 1
    # Comparisons are split and both halves quoted: most two-lesson answers quote both phrases.
    assert verdicts("two_lesson").count("ok") >= 4
