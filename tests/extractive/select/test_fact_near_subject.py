"""A fact asked about what a follow-up's pronoun stands for ("who thought of it?") is the sentence of
that kind said just after the topic is named, though it shares no word with the question."""

from __future__ import annotations

import pytest

from app.assistant.base import Exchange, Source
from app.assistant.extractive.answer_types import PERSON
from app.assistant.extractive.fact_near import fact_near_topic
from app.assistant.extractive.quotes import lead
from app.search.models import Passage

COURSE = "Mind Lectures"
NAMED_TOPIC = (
    "Today we turn to a second kind of learning, known as bell conditioning. In a general sense it is "
    "learning that one event predicts another event. Um, it was dreamt up by Marlowe. She worked with dogs "
    "in a basement lab and measured how much they drooled."
)
OTHER_NAME = (
    "Bell conditioning shows up in phobias too, and in the way we flinch at a dentist's drill. The findings "
    "of bell conditioning were repeated in crabs and fish. A student of mine, Dana Quist, once told me she "
    "could not stand the smell of the lab."
)
FAR_NAME = (
    "Bell conditioning was the topic of the whole morning, with many examples from the kitchen. We talked "
    "about food and smells for a long time. Then the class had a break for lunch. The room was very cold. "
    "Later the class met Dana Quist from the library."
)
MORE = (
    "Bell conditioning fades when the bell keeps ringing without food; we call that extinction. After a rest "
    "the drooling comes back for a while, which is spontaneous recovery. A tone close to the bell works "
    "too, and a tone far from it does not: the dogs generalise, then learn to tell the two apart."
)
ELSEWHERE = (
    "Memory for a bell conditioning session lasts for weeks, in dogs as in people. Short-term memory holds "
    "about seven items; rehearsal moves them into long-term memory, where they are stored by meaning."
)
PROMPT = "explain bell conditioning"
FOLLOW_UP = "who first thought of it?"


def passage(text: str, score: float, chunk: int) -> Passage:
    """A search hit of made-up lecture text."""
    return Passage(
        course_title=COURSE,
        lesson_number=3,
        lesson_title="Learning",
        chunk_index=chunk,
        score=score,
        text=text,
    )


def test_the_name_said_next_to_where_the_topic_is_named_answers(scorer):
    found = scorer.quotes(FOLLOW_UP, [passage(OTHER_NAME, 0.7, 9), passage(NAMED_TOPIC, 0.5, 4)])

    fact = fact_near_topic(scorer, PERSON, f"{FOLLOW_UP} bell conditioning", "bell conditioning", found)

    assert fact is not None and fact.sentence == "Um, it was dreamt up by Marlowe."
    # What the rule changes: ranked by its own words and meaning, the question leads elsewhere.
    assert "Marlowe" not in " ".join(quote.sentence for quote in lead(found, False, floor=0.0))


def test_a_name_said_far_from_the_topic_is_no_answer(scorer):
    found = scorer.quotes(FOLLOW_UP, [passage(FAR_NAME, 0.7, 2)])

    question = f"{FOLLOW_UP} bell conditioning"
    assert fact_near_topic(scorer, PERSON, question, "bell conditioning", found) is None


def test_the_topic_may_be_named_at_the_close_of_the_chunk_before(scorer):
    # Chunks overlap: the naming sentence opens the fact's chunk too, and is listed once, under the first.
    closing = "We talked about smells. Then comes a second kind of learning, known as bell conditioning."
    opening = (
        "Then comes a second kind of learning, known as bell conditioning. Um, it was dreamt up by Marlowe."
    )
    found = scorer.quotes(FOLLOW_UP, [passage(closing, 0.6, 4), passage(opening, 0.5, 5)])
    assert [quote.sentence for quote in found if quote.passage.chunk_index == 5] == [
        "Um, it was dreamt up by Marlowe."
    ]

    fact = fact_near_topic(scorer, PERSON, f"{FOLLOW_UP} bell conditioning", "bell conditioning", found)

    assert fact is not None and fact.sentence == "Um, it was dreamt up by Marlowe."


def test_the_fact_said_where_the_topic_is_introduced_beats_one_said_where_it_comes_up_again(scorer):
    again = "It's bell conditioning. A student of mine, Dana Quist, once hated the smell of the lab."
    introduced = "Today we turn to a learning known as bell conditioning. Um, it was dreamt up by Marlowe."
    found = scorer.quotes(FOLLOW_UP, [passage(again, 0.7, 9), passage(introduced, 0.5, 4)])

    fact = fact_near_topic(scorer, PERSON, f"{FOLLOW_UP} bell conditioning", "bell conditioning", found)

    assert fact is not None and fact.sentence == "Um, it was dreamt up by Marlowe."


@pytest.fixture(scope="module")
def lectures(tmp_path_factory):
    """An extractive answerer over a one-lesson lecture course."""
    from tests.helpers import Library

    library = Library(tmp_path_factory.mktemp("mind"))
    lines = [f"Course Title: {COURSE}", "Course Instructor: Test Person", "Lesson 1: Learning"]
    lines += ["Lesson Link: https://example.com/1", OTHER_NAME, "", FAR_NAME, "", NAMED_TOPIC, "", MORE]
    lines += ["Lesson 2: Memory", "Lesson Link: https://example.com/2", ELSEWHERE]
    (library.docs / "mind.txt").write_text("\n".join(lines) + "\n")
    return library.synced().answerer()


def test_a_follow_up_asking_who_quotes_the_person_named_by_the_topic(lectures):
    first = lectures.answer(PROMPT, [])
    previous = Exchange(question=PROMPT, answer=first.markdown, sources=first.sources)

    follow = lectures.answer(FOLLOW_UP, [previous])

    assert "dreamt up by Marlowe" in follow.markdown
    assert follow.sources and follow.sources[0].course_title == COURSE


def test_a_fact_follow_up_reads_more_of_the_lesson_it_answers_from(lectures):
    from app.assistant.extractive.retrieve import search_query, wider

    cited = [Source(label="Learning", course_title=COURSE, lesson_number=1)]
    plan = lectures.plan(FOLLOW_UP, [Exchange(question=PROMPT, answer=NAMED_TOPIC, sources=cited)])
    found = lectures.index.search(search_query(plan), course=COURSE, lesson=1, k=1)

    read = wider(lectures.index, plan, search_query(plan), found)

    assert plan.near == (1,) and len(read) > len(found)
    # Read across the course, the memory lesson's passage would come in too.
    assert {passage.lesson_number for passage in read} == {1}
    assert 2 in {passage.lesson_number for passage in lectures.index.search(search_query(plan), k=10)}


def test_a_fact_question_that_points_back_to_nothing_keeps_the_usual_lead(lectures):
    plan = lectures.plan("who first thought of bell conditioning?", [])

    assert not plan.context  # no pronoun, no previous question: nothing for a fact to be said next to
    assert lectures._fact_about_context(plan, []) == []
