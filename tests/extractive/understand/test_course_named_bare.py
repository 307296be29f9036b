"""A course named with no "the" before it ("sourdough course: …", "- coffee course"), as students type."""

from __future__ import annotations

import pytest

from app.assistant.extractive.intent import understand

SOURDOUGH = "Sourdough Baking"
COFFEE = "Home Coffee Roasting"
COURSES = {
    SOURDOUGH: (("Starters", "A starter ferments flour and water; feed it every day to keep it lively."),),
    COFFEE: (("First Crack", "Beans crack audibly near two hundred degrees; that marks a light roast."),),
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """The index of two made-up one-lesson courses."""
    from tests.helpers import Library, titled_course_text

    library = Library(tmp_path_factory.mktemp("bare"))
    for number, (title, lessons) in enumerate(COURSES.items()):
        (library.docs / f"course{number}.txt").write_text(titled_course_text(title, *lessons))
    return library.synced().index


def test_a_bare_course_name_names_the_course_and_leaves_the_topic(index):
    plan = understand("sourdough course: how often to feed a starter", index, None)

    assert plan.course is not None and plan.course.title == SOURDOUGH
    assert "course" not in plan.topic and "feed a starter" in plan.topic


def test_each_half_of_a_comparison_names_its_course_without_the(index):
    plan = understand("temperature - sourdough course vs coffee course", index, None)

    assert plan.halves is not None
    assert [half.course and half.course.title for half in plan.halves] == [SOURDOUGH, COFFEE]
    assert all(half.topic.startswith("temperature") and "course" not in half.topic for half in plan.halves)


@pytest.mark.parametrize("question", ["my intro course homework is due", "a crash course in roasting"])
def test_words_before_course_that_name_no_course_are_the_questions_own(index, question):
    plan = understand(question, index, None)

    assert plan.course is None and plan.course_error is None
    assert plan.topic == question


def test_a_course_acronym_typed_in_lower_case_names_the_course(index):
    plan = understand("how loud is first crack in hcr", index, None)

    assert plan.course is not None and plan.course.title == COFFEE
    assert "hcr" not in plan.topic and "first crack" in plan.topic


def test_a_question_about_the_acronym_itself_names_no_course(index):
    plan = understand("what is hcr", index, None)

    assert plan.course is None and plan.topic == "what is hcr"
