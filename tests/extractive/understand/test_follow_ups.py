"""Follow-ups are about the previous answer: they look first in the lessons it quoted, choose the one that
holds their own words, and a question whose words that answer said carries its topic; a lesson named by a
word of its title ("the proofing lecture") is searched on its own."""

from __future__ import annotations

import pytest

from app.assistant.base import Exchange, Source
from app.assistant.extractive.intent import understand

BREAD = "Home Bread Baking"
GARDEN = "Kitchen Gardening"
STARTERS = (
    "A sourdough starter is flour and water that wild yeast ferments over a few days. The starter is what "
    "makes the dough rise without packet yeast. Feed the starter every day with fresh flour and water, and "
    "keep a spoonful back for the next bake."
)
PROOFING = (
    "Proofing is the last rise of the shaped dough before it goes into the oven. In a cold kitchen the dough "
    "rises too slowly, because wild yeast works slowly below twenty degrees; proof it in a warm oven with "
    "only the light on. An over-proofed loaf collapses when it is scored."
)
BAKING = (
    "Bake the loaf in a preheated cast iron pot with the lid on for twenty minutes, so the steam keeps the "
    "crust soft while the loaf expands. Then take the lid off and bake until the crust is deep brown."
)
HERBS = (
    "Basil wants a sunny windowsill and soil that dries out between waterings. Pinch off the flower buds so "
    "the plant keeps making leaves. Mint spreads by runners and is best grown in its own pot."
)


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory):
    """An extractive answerer over a three-lesson baking course and a one-lesson gardening course."""
    from tests.helpers import Library, titled_course_text

    library = Library(tmp_path_factory.mktemp("kitchen"))
    lessons = (("Sourdough Starters", STARTERS), ("Proofing", PROOFING), ("Baking", BAKING))
    baking = titled_course_text(BREAD, *lessons)
    (library.docs / "bread.txt").write_text(baking)
    (library.docs / "garden.txt").write_text(titled_course_text(GARDEN, ("Herbs on the Windowsill", HERBS)))
    return library.synced().answerer()


def cited(*lessons: int) -> list[Source]:
    """The sources of an answer that quoted these lessons of the baking course, in this order."""
    return [Source(label=f"{BREAD} - Lesson {n}", course_title=BREAD, lesson_number=n) for n in lessons]


def test_a_follow_up_chooses_the_quoted_lesson_that_holds_its_own_words(kitchen):
    # The previous answer quoted the starters lesson first (it says "dough" and "rise" too) and the
    # proofing lesson second; "too slowly" is only said in the proofing lesson.
    previous = Exchange(question="what does a sourdough starter do?", answer=STARTERS, sources=cited(1, 2))
    follow = kitchen.answer("why does the dough rise too slowly there?", [previous])

    assert follow.sources and follow.sources[0].lesson_number == 2
    assert "below twenty degrees" in follow.markdown


def test_a_lesson_named_by_a_word_of_its_title_is_searched_for_the_other_words(kitchen):
    plan = understand("what does the proofing lecture say about a cold kitchen?", kitchen.index)

    assert plan.course is not None and plan.course.title == BREAD and plan.lesson == 2
    assert "lecture" not in plan.topic and "cold kitchen" in plan.topic


def test_a_course_title_word_next_to_lesson_names_no_lesson(kitchen):
    # "bread" is in the course's title, not one lesson's: no lesson is chosen from it.
    plan = understand("which bread lesson explains the crust?", kitchen.index)

    assert plan.lesson is None


def test_a_follow_up_asking_for_an_example_carries_the_previous_topic(kitchen):
    previous = Exchange(question="what is proofing?", answer=PROOFING, sources=cited(2, 1))
    plan = understand("can you give an example?", kitchen.index, previous)
    follow = kitchen.answer("can you give an example?", [previous])

    assert "proofing" in plan.context.lower()
    assert follow.sources and follow.sources[0].lesson_number == 2


def test_a_follow_up_that_only_asks_why_searches_what_it_carries_on_from(kitchen):
    from app.assistant.extractive.retrieve import search_query

    previous = Exchange(question="what is proofing?", answer=PROOFING, sources=cited(2))
    plan = understand("why?", kitchen.index, previous)

    assert not plan.overview and "proofing" in search_query(plan).lower()


def test_a_follow_up_naming_another_course_asks_the_previous_question_there(kitchen):
    previous = Exchange(question="which windowsill suits the dough?", answer=PROOFING, sources=cited(2))
    plan = understand("and the kitchen gardening course?", kitchen.index, previous)
    follow = kitchen.answer("and the kitchen gardening course?", [previous])

    assert plan.course is not None and plan.course.title == GARDEN
    assert "windowsill" in plan.context.lower() and not plan.overview
    assert "sunny windowsill" in follow.markdown


def test_a_follow_up_naming_another_course_after_an_outline_question_asks_for_its_outline(kitchen):
    previous = Exchange(question="who teaches the home bread baking course?", answer="", sources=[])
    plan = understand("and the kitchen gardening course?", kitchen.index, previous)
    follow = kitchen.answer("and the kitchen gardening course?", [previous])

    assert plan.outline and plan.instructor and plan.course is not None and plan.course.title == GARDEN
    assert f"{GARDEN} is taught by Test Person." in follow.markdown


def test_a_follow_up_naming_a_lesson_of_another_course_is_that_lesson(kitchen):
    previous = Exchange(question="which windowsill suits the dough?", answer=PROOFING, sources=cited(2))
    plan = understand("and lesson 1 of the kitchen gardening course?", kitchen.index, previous)

    assert plan.lesson == 1 and not plan.context and plan.overview


def test_a_comparison_with_it_and_no_previous_question_is_no_comparison(kitchen):
    assert understand("how does it differ from baking the loaf?", kitchen.index).halves is None


ROUTES = (
    "A route maps a URL to a view function. The view function receives the request object and returns a "
    "response, a string or a rendered template. Route parameters such as an item id arrive as keyword "
    "arguments, and the request that reached the server carries the form data and the headers."
)
GOING_LIVE = (
    "For production, run a WSGI server such as gunicorn with four worker processes behind a reverse proxy. "
    "The development server that ships with the framework is single-threaded and not hardened."
)


def test_a_follow_up_with_nothing_close_in_the_quoted_lesson_is_answered_from_its_course(tmp_path):
    from tests.helpers import Library, titled_course_text

    library = Library(tmp_path)
    web = titled_course_text("Small Web Apps", ("Routes and Views", ROUTES), ("Going Live", GOING_LIVE))
    (library.docs / "web.txt").write_text(web)
    answerer = library.synced().answerer()
    source = Source(label="Small Web Apps - Lesson 1", course_title="Small Web Apps", lesson_number=1)
    previous = Exchange(question="how does a route reach its view?", answer=ROUTES, sources=[source])

    # The routes lesson says "server" only in passing: the follow-up is answered from the lesson that
    # says which server to run, not declined.
    follow = answerer.answer("which server should I use?", [previous])

    assert [source.lesson_number for source in follow.sources] == [2]
    assert "gunicorn" in follow.markdown


def test_a_follow_up_to_a_comparison_of_two_courses_searches_both(kitchen):
    sources = [*cited(2), Source(label=f"{GARDEN} - Lesson 1", course_title=GARDEN, lesson_number=1)]
    question = "how does proofing in the bread course differ from pinching in the gardening course?"
    plan = understand(
        "can you give an example?", kitchen.index, Exchange(question=question, answer="", sources=sources)
    )

    assert plan.course is None and "proofing" in plan.context.lower() and "pinching" in plan.context.lower()
