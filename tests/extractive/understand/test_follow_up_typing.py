"""A follow-up's words as people type them: a contraction without its apostrophe asks, and a one-letter
symbol is the one the previous answer used."""

from __future__ import annotations

import pytest

from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words
from tests.extractive.understand import test_follow_ups

kitchen = test_follow_ups.kitchen  # the baking course's answerer, indexed once per module

SCORING = (
    "Score the loaf just before it goes into the oven, with n cuts along its length, where n is usually "
    "three for a long loaf. A blade held at a shallow angle opens an ear along each cut."
)


@pytest.mark.parametrize(
    "asked", ["whats the proofing time", "hows proofing done", "wheres the starter kept"]
)
def test_a_question_word_written_without_its_apostrophe_is_no_topic(asked):
    assert content_words(asked, NO_TOPIC_WORDS) == content_words(
        asked.replace("s ", "'s ", 1), NO_TOPIC_WORDS
    )
