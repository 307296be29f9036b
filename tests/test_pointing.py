"""A follow-up pointing back with "the" ("the gates" after an answer on LSTMs) is quoted for its own words."""

from __future__ import annotations

from app.assistant.base import Exchange
from app.assistant.extractive.intent import understand
from app.assistant.extractive.pointing import points_back
from tests.test_follow_ups import STARTERS, cited, kitchen  # noqa: F401 (the fixture)


def test_the_and_a_word_the_answer_said_points_back():
    answer = "An LSTM has three gates: forget, input and output."
    assert points_back("and what are the gates made of?", answer)
    assert points_back("what does the forget gate do?", answer)
    assert not points_back("what are gates made of?", answer)  # no article: not pointing
    assert not points_back("what is the weather like?", answer)  # a word the answer never said


def test_a_follow_up_about_the_thing_just_answered_is_quoted_for_its_own_words(kitchen):  # noqa: F811
    previous = Exchange(question="what is a sourdough starter?", answer=STARTERS, sources=cited(1))
    plan = understand("how often do you feed the starter?", kitchen.index, previous)

    # It carries the previous topic into the search, but its sentences answer its own words, as "how often
    # is it fed?" would: the previous topic's words would quote what a starter is again.
    assert "sourdough" in plan.context.lower()
    assert not plan.about_answer
    assert plan.quoted_for == "how often do you feed the starter?"
