"""A word that names the course where the question names it is the question's own anywhere else in it."""

from __future__ import annotations

import pytest

from app.assistant.extractive.intent import understand

COURSE = "Sourdough Baking"
LESSONS = (
    ("Rye Loaves", "Rye bread tastes earthy and stays dense, because rye flour holds little gluten."),
    ("Why It Tastes Sour", "Sourdough tastes tangy because the bacteria in a starter make lactic acid."),
)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """The index of one made-up two-lesson course whose title says "sourdough"."""
    from tests.helpers import Library, titled_course_text

    library = Library(tmp_path_factory.mktemp("sourdough"))
    (library.docs / "sourdough.txt").write_text(titled_course_text(COURSE, *LESSONS))
    return library.synced().index


def test_the_course_name_asked_about_again_stays_in_the_topic(index):
    plan = understand("in the sourdough course, why does sourdough taste tangy?", index, None)

    assert plan.course is not None and plan.course.title == COURSE
    # The phrase that named the course is gone; the same word asked about is not.
    assert plan.topic.lower().count("sourdough") == 1
    assert "why does sourdough taste tangy" in plan.topic


def test_the_words_that_only_name_the_course_leave_the_topic(index):
    plan = understand("what does lesson 2 of the sourdough course say about acid?", index, None)

    assert plan.course is not None and plan.course.title == COURSE and plan.lesson == 2
    assert "sourdough" not in plan.topic.lower() and "acid" in plan.topic


def test_a_course_named_that_does_not_exist_leaves_the_same_word_asked_about(index):
    plan = understand("in the pastry course, how do I laminate pastry dough?", index, None)

    # Every course is searched, for what the question asks: "pastry dough", which no course says.
    assert plan.course is None
    assert "laminate pastry dough" in plan.topic
