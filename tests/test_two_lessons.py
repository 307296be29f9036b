"""A question whose passages come from two lessons alike reads the next best passages, as a fact question
does: each lesson holds fewer of the search tool's five places."""

from __future__ import annotations

import pytest

from app.assistant.extractive.quotes import MAX_GAP
from app.assistant.extractive.retrieve import search_query, wider
from app.assistant.extractive.two_lessons import about_two_lessons, from_two_lessons
from app.search.models import Passage


def passage(lesson: int, score: float, course: str = "Pottery Basics") -> Passage:
    """A made-up search hit of one lesson."""
    return Passage(
        course_title=course,
        lesson_number=lesson,
        lesson_title=f"Lesson {lesson}",
        chunk_index=lesson * 10,
        score=score,
        text="Kilns fire the clay.",
    )


@pytest.mark.parametrize(
    ("hits", "two"),
    [
        ([(1, 0.70), (1, 0.60), (1, 0.55)], False),  # one lesson
        ([(1, 0.70), (2, 0.66), (1, 0.55)], True),  # another lesson about as close
        ([(1, 0.70), (1, 0.66), (2, 0.70 - MAX_GAP - 0.05)], False),  # another lesson far behind
        ([(1, 0.70), (2, 0.70 - MAX_GAP + 0.01)], True),  # within the gap a quote may span
    ],
)
def test_passages_from_two_lessons_alike(hits, two):
    assert from_two_lessons([passage(lesson, score) for lesson, score in hits]) is two


def test_the_same_lesson_number_in_another_course_is_another_lesson():
    hits = [passage(1, 0.7), passage(1, 0.68, course="Glazing")]
    assert from_two_lessons(hits)


def test_a_question_whose_passages_come_from_two_lessons_reads_more(services):
    # Asks for no fact; its passages come from two lessons of the vector course, within a few hundredths.
    answerer = services.assistant._answerer
    plan = answerer.plan("explain how the search ranks results", [])
    found = answerer.index.search(search_query(plan), k=5)
    assert from_two_lessons(found)
    read = wider(answerer.index, plan, search_query(plan), found)
    assert read[: len(found)] == found
    assert len(read) > len(found)
    assert len({passage.place for passage in read}) == len(read)


def test_one_lesson_far_ahead_reads_the_five(services):
    answerer = services.assistant._answerer
    plan = answerer.plan("explain how HNSW works", [])
    found = answerer.index.search(search_query(plan), k=5)
    assert wider(answerer.index, plan, search_query(plan), found) == found


def test_a_question_asking_what_one_term_is_is_about_one_thing(services):
    # Its passages come from two lessons alike, but a definition of one term reads the tool's five.
    answerer = services.assistant._answerer
    hits = [passage(1, 0.7), passage(2, 0.68)]
    assert not about_two_lessons(answerer.plan("what is a glaze kiln?", []), hits)
    assert about_two_lessons(answerer.plan("how did the potters take to the new glaze kilns?", []), hits)
