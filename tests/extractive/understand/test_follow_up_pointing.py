"""A follow-up pointing back with "the" ("the gates" after an answer on LSTMs) is quoted for its own words."""

from __future__ import annotations

from app.assistant.base import Exchange
from app.assistant.extractive.intent import understand
from app.assistant.extractive.pointing import points_back
from tests.extractive.understand.test_follow_ups import STARTERS, cited, kitchen  # noqa: F401 (the fixture)


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


def test_the_and_a_one_letter_symbol_is_no_part_pointed_at():
    answer = "Scores are summed as 1 / (n + rank), with n commonly set to 40."
    assert not points_back("whats the usual n", answer)
    assert points_back("whats the usual rank", answer)  # a word of its own still points back


def test_a_follow_up_asking_the_usual_value_of_a_symbol_is_about_the_answer(kitchen):  # noqa: F811
    answer = "Feed the starter at a ratio of 1 : r, with r commonly set to 5, twice a day."
    previous = Exchange(question="how do you feed a sourdough starter?", answer=answer, sources=cited(1))

    plan = understand("whats the usual r", kitchen.index, previous)

    # "the usual r" says the answer's symbol: its sentences are read with what the answer was about, as
    # "what is r usually set to?" would be; on its own words alone they would quote any "usually".
    assert plan.about_answer and "sourdough" in plan.context.lower()
    assert plan.quoted_for != "whats the usual r"
