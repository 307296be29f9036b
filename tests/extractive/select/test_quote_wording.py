"""A question worded otherwise than the lecture: an acronym for the student's words, another word of their
family, and a lecturer who says the same thing twice."""

from __future__ import annotations

import pytest

from app.assistant.extractive import quotes
from app.assistant.extractive.keywords import keyword_share, said_share
from app.assistant.extractive.quotes import lead
from app.assistant.extractive.scoring import Quote
from app.assistant.extractive.sentences import repeats, root
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words
from app.search.models import Passage


def passage(text: str, score: float, lesson: int = 1, chunk: int = 0) -> Passage:
    """A search hit of made-up course text."""
    return Passage(
        course_title="Signals and Images",
        lesson_number=lesson,
        lesson_title="Filters",
        chunk_index=chunk,
        score=score,
        text=text,
    )


def share(topic: str, sentence: str) -> float:
    """The keyword share of a sentence of a made-up passage against the topic."""
    words = set(content_words(topic, NO_TOPIC_WORDS))
    return keyword_share(words, topic, passage(sentence, 0.5), sentence)


RGU = {"rgu", "recurrent", "gated", "unit"}


def test_another_word_of_the_family_is_said_in_reading_and_in_ranking():
    topic = "which critic said the theory is not falsifiable"
    sentence = "A critic introduced the term falsifiability for this."
    words = set(content_words(topic, NO_TOPIC_WORDS))
    assert root("falsifiable") == root("falsifiability")
    assert said_share(words, topic, sentence) == pytest.approx(2 / 4)  # "critic", "falsifiable"
    assert share(topic, sentence) == pytest.approx(2 / 4)


LOWERED = "So we actually lowered the lender's payoff at the end."


@pytest.mark.parametrize(
    ("sentence", "before", "again"),
    [
        ("We lowered the payoff of the lender.", LOWERED, True),
        ("That made the lender better off.", LOWERED, False),
        ("Right, the lender.", LOWERED, False),  # says too little to repeat
    ],
)
def test_a_sentence_repeats_the_one_before_when_it_has_no_word_of_its_own(sentence, before, again):
    assert repeats(sentence, before) is again


def test_a_lead_goes_past_a_sentence_that_repeats_the_one_before_it(monkeypatch):
    where = passage("x", 0.6)
    found = [
        Quote(where, 0, "By asking for a deposit we lowered the tenant's payoff in a default.", 0.7, 0.7),
        Quote(where, 1, "We lowered the tenant's payoff in a default.", 0.5, 0.5),
        Quote(where, 2, "As a consequence the outcome was better for the tenant.", 0.5, 0.5),
        Quote(where, 3, "Having fewer options can leave you better off.", 0.3, 0.3),
    ]
    assert [quote.position for quote in lead(found, False)] == [0, 1, 2, 3]
    # Counting the repetition as saying something, the lead stops before the point it leads to.
    monkeypatch.setattr(quotes, "repeats", lambda sentence, before: False)
    assert [quote.position for quote in lead(found, False)] == [0, 1, 2]


@pytest.mark.parametrize(
    ("topic", "sentence", "expected"),
    [
        # Captions write in two words what a student writes as one, hyphenated or not.
        ("pixelgrid results", "The pixel grid results were remarkable.", 2 / 2),
        ("a self-tuning filter", "A self tuning filter adapts.", 4 / 4),  # "self", "tun", "filter", "selftun"
        # Two words of it apart say only themselves.
        ("pixelgrid results", "The pixel was bright; the grid gave results.", 1 / 2),
    ],
)
def test_a_word_the_sentence_writes_in_two_is_said(topic, sentence, expected):
    words = set(content_words(topic, NO_TOPIC_WORDS))
    assert said_share(words, topic, sentence) == pytest.approx(expected)
    assert share(topic, sentence) == pytest.approx(expected)
