"""A question about a word no course says is declined unless the passage nearest in meaning holds the rest."""

from __future__ import annotations

import pytest

from app.assistant.extractive.confidence import MIN_CONFIDENCE, Signals
from app.assistant.extractive.nearest import unsaid_topic
from app.assistant.extractive.render import NO_MATCH

SETUP = (
    "Before the first kitchen lab, install the timer app on your phone and bring an apron. To install the "
    "app, open your phone's store and search for the course timer. Every lab starts on time, so install "
    "it the evening before and check that the kitchen lab timer rings."
)
GRILLING = (
    "Grilling cooks food over direct heat from glowing charcoal. Let the coals burn until they are covered "
    "in white ash, then spread them to make a hot zone and a cool zone. Sear steaks over the hot zone and "
    "move them to the cool zone to finish slowly with the lid closed, so the smoke flavours the meat."
)
BROWNING = (
    "When meat browns in a hot pan, the my yard reaction between sugars and amino acids makes hundreds "
    "of flavour compounds. The my yard reaction needs a dry surface and a pan above about one hundred and "
    "forty degrees, which is why wet meat steams grey instead of browning."
)


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory):
    """An extractive answerer over a cooking course that never says "smoker" and writes "my yard"."""
    from tests.helpers import Library

    return Library.answerer_over(
        tmp_path_factory.mktemp("kitchen"), "Kitchen Science", SETUP, GRILLING, BROWNING
    )


def test_a_word_no_course_says_is_declined_though_the_first_passage_holds_the_generic_words(kitchen):
    # The lab set-up lesson says "install" and "lab" (keyword search finds it first); no lesson says
    # "smoker", and the passage nearest the question in meaning, on grilling, says neither.
    question = "how do i install a smoker for the labs"
    plan = kitchen.plan(question, [])
    passages = kitchen.index.search(plan.query)
    measured = kitchen.signals(plan, passages)
    answer = kitchen.answer(question, [])

    assert "install" in passages[0].text and measured.coverage >= MIN_CONFIDENCE
    nearest = kitchen.index.nearest(plan.query)
    assert nearest is not None and nearest.lesson_number == 2  # grilling, found by meaning alone
    assert measured.nearest is not None and measured.nearest < MIN_CONFIDENCE
    assert NO_MATCH in answer.markdown and not answer.sources


def test_a_word_the_captions_spell_otherwise_is_answered_by_the_passage_nearest_in_meaning(kitchen):
    # "Maillard" is written "my yard" in the lesson: the passage nearest in meaning holds the rest.
    answer = kitchen.answer("why does the maillard reaction need a dry surface", [])

    assert answer.sources and answer.sources[0].lesson_number == 3
    assert "dry surface" in answer.markdown


def test_the_topic_is_the_heaviest_word_and_counts_only_when_no_course_says_it():
    said = {"install", "lab", "grade"}
    weights = {"install": 1.0, "smoker": 3.0, "lab": 0.5, "grad": 2.0}

    def topic(text: str, words: list[str]) -> str | None:
        return unsaid_topic(text, words, lambda terms: said & set(terms), lambda terms: weights)

    assert topic("install a smoker for the labs", ["install", "smoker", "lab"]) == "smoker"
    assert topic("install the labs", ["install", "lab"]) is None
    # Unsaid but lighter than a said word: the first passage's share stands.
    assert topic("install a smoker", ["install", "smoker"]) == "smoker"
    weights["install"] = 4.0
    assert topic("install a smoker", ["install", "smoker"]) is None
    # "grading" lost the e of "grade", which is said.
    assert topic("grading", ["grad"]) is None


def test_a_joined_compound_is_not_a_topic_of_its_own():
    weights = {"zero": 1.0, "sum": 1.0, "zerosum": 5.0}

    said = {"zero", "sum"}

    topic = unsaid_topic("zero-sum games", ["zero", "sum", "zerosum"], lambda terms: said, lambda _: weights)

    assert topic is None


def test_confidence_is_the_lesser_share_when_the_nearest_passage_was_measured():
    assert Signals(cosine=0.5, coverage=0.6).confidence == 0.6
    assert Signals(cosine=0.5, coverage=0.6, nearest=0.1).confidence == 0.1
    assert Signals(cosine=0.5, coverage=0.2, nearest=0.9).confidence == 0.2
    assert Signals(cosine=0.5, coverage=0.6, unmentioned=("Shapley",), nearest=0.9).confidence == 0.0
