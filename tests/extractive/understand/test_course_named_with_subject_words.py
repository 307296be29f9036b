"""A course named by its instructor or code, with its subject's words beside the name ("beck python testing
fixtures"): those words name the course there, and the topic is what else the question says."""

from __future__ import annotations

from datetime import UTC, datetime

from app.assistant.extractive.naming import with_title_words
from app.search.models import CourseRecord, LessonInfo

BAKING = CourseRecord(
    title="BAKE 101: Bread Baking",
    instructor="Jane Miller",
    lessons=[LessonInfo(number=1, title="Proofing")],
    id="bake",
    source_file="bake.txt",
    content_hash="0",
    chunk_count=1,
    indexed_at=datetime.now(UTC),
)


def test_title_words_beside_the_instructor_name_the_course_there():
    question = "miller's bread baking proofing times"

    ref = with_title_words(question, BAKING, "miller")

    assert ref.course is BAKING and ref.named_by == "miller's bread baking"
    assert ref.at is not None and question[ref.at[1] :].strip() == "proofing times"


def test_title_words_said_apart_from_the_name_stay_the_questions_own():
    ref = with_title_words("miller: how long does bread proof before baking", BAKING, "miller")

    assert ref.named_by == "miller" and ref.at is None


def test_a_question_saying_nothing_else_keeps_the_title_words():
    ref = with_title_words("bake 101 bread baking", BAKING, "bake 101")

    assert ref.named_by == "bake 101" and ref.at is None


def test_the_topic_of_a_question_naming_its_course_by_instructor_leaves_its_title_words(services):
    plan = services.assistant._answerer.plan("hopper vector databases recall trade-off")

    assert plan.course is not None and plan.course.title == "Vector Databases from Scratch"
    assert "vector" not in plan.topic.lower() and "recall" in plan.topic
