"""The labelled question set behind `make eval`: evidence verbatim in its gold lesson, and floors kept."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app import create_app
from app.courses.chunking import chunk_course
from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file
from app.services import services
from bench.eval_compare import changes
from bench.eval_questions import SAMPLE_REWORDED, contains, load_lectures
from bench.eval_report import tally
from bench.eval_scoring import Result, Run
from bench.evaluate import CONTENT_KINDS, Question, app_config, evaluate, flat, load_questions

DOCS = Path(__file__).resolve().parent.parent / "docs"
QUESTIONS = load_questions()
SAMPLE_REWORDED_SET = load_questions(SAMPLE_REWORDED)


@pytest.fixture(scope="module")
def library() -> dict[str, Course]:
    """The sample courses in docs/, parsed, by title."""
    courses = [parse_file(path) for path in sorted(DOCS.iterdir()) if path.suffix in SUPPORTED_EXTENSIONS]
    return {course.title: course for course in courses}


def test_the_set_has_every_kind_and_enough_questions():
    kinds = {question.kind for question in QUESTIONS}
    assert kinds == {*CONTENT_KINDS, "outline", "no_coverage", "follow_up"}
    assert len(QUESTIONS) >= 60
    assert len({question.id for question in QUESTIONS}) == len(QUESTIONS)
    assert sum(question.kind == "no_coverage" for question in QUESTIONS) >= 6


@pytest.mark.parametrize(
    "question",
    [q for q in QUESTIONS + SAMPLE_REWORDED_SET if q.kind in (*CONTENT_KINDS, "follow_up")],
    ids=lambda q: q.id,
)
def test_evidence_is_verbatim_in_one_chunk_of_the_gold_lesson(question: Question, library):
    expected = 2 if question.kind == "two_lesson" else 1
    assert len(question.gold) == expected
    assert question.history or question.kind != "follow_up"
    for gold in question.gold:
        course = library[gold.course]
        lesson = next(lesson for lesson in course.lessons if lesson.number == gold.lesson)
        if gold.evidence == lesson.title:
            continue  # a follow-up asking for a lesson by number: its title is the evidence
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
    app = create_app(app_config(tmp_path_factory.mktemp("eval"), DOCS, hybrid=True))
    with app.app_context():
        services().indexer.sync()
        return evaluate(services().index, services().assistant, QUESTIONS, answers=True)


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

    outline = verdicts("outline")
    assert outline.count("ok") >= len(outline) - 1
    no_coverage = verdicts("no_coverage")
    assert no_coverage.count("ok") >= len(no_coverage) - 1
    # Comparisons are split and both halves quoted: most two-lesson answers quote both phrases.
    assert verdicts("two_lesson").count("ok") >= 4


LECTURES = load_lectures()
REWORDED = load_lectures(Path(__file__).resolve().parent.parent / "eval" / "reworded")


@pytest.fixture(scope="module")
def lecture_library() -> dict[str, Course]:
    """The lecture set's courses, parsed, by title."""
    folder = Path(__file__).resolve().parent.parent / "eval" / "lectures" / "docs"
    return {course.title: course for course in map(parse_file, sorted(folder.glob("*.txt")))}


def test_the_lecture_set_loads_every_kind_with_its_counts():
    kinds = Counter(question.kind for question in LECTURES)
    assert kinds == {
        "content": 60,
        "outline": 9,
        "two_lesson": 9,
        "general": 5,
        "no_coverage": 7,
        "follow_up": 9,
    }
    assert len({question.id for question in LECTURES}) == len(LECTURES)
    assert all(question.history for question in LECTURES if question.kind == "follow_up")


def test_the_reworded_set_pairs_each_rewording_with_its_original():
    originals = {question.id: question for question in LECTURES}
    reworded = [question for question in REWORDED if question.id in originals]
    assert len({question.id for question in REWORDED}) == len(REWORDED)
    assert len(reworded) == 69  # the 60 content questions and 9 follow-up pairs
    for question in reworded:
        original = originals[question.id]
        assert question.question != original.question, question.id
        assert question.gold == original.gold, question.id


@pytest.mark.parametrize("questions", [LECTURES, REWORDED], ids=["lectures", "reworded"])
def test_lecture_evidence_lies_in_one_chunk_of_its_gold_lesson(lecture_library, questions):
    for question in (q for q in questions if q.gold):
        for gold in question.gold:
            course = lecture_library[gold.course]
            lesson = next(lesson for lesson in course.lessons if lesson.number == gold.lesson)
            texts = [chunk.text for chunk in chunk_course(course) if chunk.lesson_number == gold.lesson]
            # A follow-up may ask for a lesson by number: its title is then the evidence.
            if gold.evidence != lesson.title:
                assert any(contains(text, gold.evidence, ignore_case=True) for text in texts), question.id


def test_the_sample_reworded_set_pairs_each_rewording_with_its_original():
    originals = {question.id: question for question in QUESTIONS}
    reworded = [question for question in SAMPLE_REWORDED_SET if question.id in originals]
    assert len({question.id for question in SAMPLE_REWORDED_SET}) == len(SAMPLE_REWORDED_SET)
    assert len(reworded) == 66  # the 60 content questions and 6 follow-ups
    for question in reworded:
        original = originals[question.id]
        assert question.question != original.question, question.id
        same = (question.kind, question.gold, question.filter)
        assert same == (original.kind, original.gold, original.filter), question.id
        assert len(question.history) == len(original.history), question.id
    new = [question for question in SAMPLE_REWORDED_SET if question.id not in originals]
    assert len(new) == 6 and {question.kind for question in new} == {"no_coverage"}


def test_a_paired_comparison_counts_wins_losses_and_moves():
    same = Result("content", True, strict=1)
    before = Run({"a": Result("content", True, strict=3, verdict="ok"), "b": same})
    after = Run({"a": Result("content", True, strict=1, verdict="miss"), "b": same})
    assert changes(before, after) == ["    a (content): strict 3 -> 1, answer ok -> miss"]
    assert tally([1.0, -0.5, 0.0, 0.0]) == ["1", "1", "2"]
