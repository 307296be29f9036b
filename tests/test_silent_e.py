"""A word whose stem lost its base word's silent e ("grading": "grad") matches the base word ("grade")."""

from __future__ import annotations

from app.assistant.extractive.confidence import signals
from app.language.tokens import content_words, silent_e
from tests.test_compounds import even, passage_of


def test_a_stem_without_its_silent_e_is_the_base_word_when_only_that_is_said():
    said = {"grade", "cache", "test"}.__contains__
    assert silent_e("grad", said) == "grade"
    assert silent_e("cach", said) == "cache"
    assert silent_e("test", said) is None  # said as it is
    assert silent_e("scal", said) is None  # neither form said


def test_a_passage_saying_the_base_word_says_the_ing_form():
    question = "what about grading?"
    words = content_words(question)
    assert words == ["grad"]
    said = signals(
        question, words, [passage_of("Your grade is the midterm plus the final.")], even, lambda _, w: even(w)
    )
    assert said.coverage == 1.0
