"""A hyphenated term is said by a passage only where its two words stand together, not apart."""

from __future__ import annotations

import pytest

from app.assistant.extractive.confidence import written_together
from app.assistant.extractive.render import NO_MATCH

SCORING = (
    "Every round of the card game ends with scoring. Add up the points on the cards in front of you and "
    "write the sum on the score pad. The sum decides who deals next, and the dealer shuffles the deck."
)
EMPTY_HAND = (
    "A player who runs out of cards has zero cards left and must draw three from the pile. With zero cards "
    "in hand you cannot play a trick, so keep one card back when you can."
)
TRADING = (
    "Trading between players{}: you may swap one card with a neighbour each round. Both players must agree, "
    "and a trade can make both of you better off when each gets a card the other does not need."
)
QUESTION = "is trading a zero-sum game"


def _answerer(tmp_path_factory, trading: str):
    """An extractive answerer over a card game course whose trading lesson reads `trading`."""
    from tests.helpers import Library

    return Library.answerer_over(
        tmp_path_factory.mktemp("cards"), "Card Game Design", SCORING, EMPTY_HAND, trading
    )


@pytest.fixture(scope="module")
def apart(tmp_path_factory):
    """A course that says "zero" and "sum", each in its own lesson, and never "zero sum"."""
    return _answerer(tmp_path_factory, TRADING.format(""))


@pytest.fixture(scope="module")
def together(tmp_path_factory):
    """The same course, whose trading lesson calls trading no zero sum game."""
    return _answerer(tmp_path_factory, TRADING.format(" is not a zero sum game"))


def test_a_term_whose_words_the_course_says_only_apart_is_declined(apart):
    # Without the rule the first passage holds "zero" (and "trading", "game"): a share of 0.25, answered.
    answer = apart.answer(QUESTION, [])

    assert NO_MATCH in answer.markdown and not answer.sources


def test_a_term_the_course_writes_as_two_words_side_by_side_is_answered(together):
    answer = together.answer(QUESTION, [])

    assert answer.sources and answer.sources[0].lesson_number == 3
    assert "zero sum game" in answer.markdown


def test_compounds_are_said_together_joined_by_a_space_or_a_hyphen_and_meet_their_ing_forms():
    assert written_together("is it a zero-sum game", "trading is not a zero sum game") == {"zerosum"}
    assert written_together("is it a zero-sum game", "no zero-sum trades here") == {"zerosum"}
    # The words apart, or in the other order, do not say the term.
    assert written_together("is it a zero-sum game", "zero cards, then the sum of points") == set()
    assert written_together("is it a zero-sum game", "the sum is zero") == set()
    # "fine-tune" is said by "fine-tuning": the base word's e is lost before "-ing".
    assert written_together("why not fine-tune the model", "we start by fine-tuning it") == {"finetune"}
