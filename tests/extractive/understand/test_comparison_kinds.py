"""Comparison kinds asked in other words: "<subject>: <side> and <side>", and a half that only says where to
look ("... vs what the pottery course says"). Made-up courses, the real embedding model."""

from __future__ import annotations

import pytest

from app.assistant.extractive.comparison_split import split_comparison
from tests.helpers import Library


@pytest.mark.parametrize(
    "question",
    [
        "sourdough starter and levain",  # no subject before a colon: one thing
        "sourdough: flour, water and salt: the ratios",  # two colons: no one subject
        "sourdough: flour and water and salt",  # three sides
        "sourdough: what do flour and water do",  # a question of its own after the colon
        "sourdough: and",  # no sides
    ],
)
def test_other_questions_with_a_colon_are_not_split_so(question):
    assert split_comparison(question) is None


BAKING = [
    "Bread dough is mixed from flour, water, yeast and salt, then kneaded until it is smooth and elastic. "
    "Kneading develops the gluten network that traps the gas the yeast makes.",
    "Drying is the enemy of a loaf's crust: cover the dough with a damp towel while it proves, or the "
    "surface dries into a hard skin that cracks in the oven. Bakers mist the oven with water for the same "
    "reason.",
]
POTTERY = [
    "Clay is wedged before throwing to push out air bubbles that would burst in the kiln. Wedging also "
    "evens the moisture through the lump.",
    "Drying must be slow and even: a pot left in a draught dries faster at the rim than at the base and "
    "cracks there. Cover the rim with plastic so the whole pot reaches leather hard together.",
]


@pytest.fixture(scope="module")
def crafts(tmp_path_factory):
    """An extractive answerer over a baking course and a pottery course of their own."""
    library = Library(tmp_path_factory.mktemp("crafts"))
    library.write("baking.txt", "Home Baking", *BAKING)
    library.write("pottery.txt", "Pottery Basics", *POTTERY)
    return library.synced().answerer()


def test_a_half_naming_only_its_course_asks_the_other_halfs_question_there(crafts):
    answer = crafts.answer("what does the baking course say about drying vs what the pottery course says", [])
    assert {source.course_title for source in answer.sources} == {"Home Baking", "Pottery Basics"}
    assert "damp towel" in answer.markdown
    assert "Cover the rim with plastic" in answer.markdown or "dries faster at the rim" in answer.markdown


@pytest.mark.parametrize(
    ("question", "halves"),
    [
        (
            "proofing vs proofing in a cold fridge overnight",
            ("proofing", "proofing in a cold fridge overnight"),
        ),
        (
            "glazing vs glazing with a second dipped coat, which lasts?",
            ("glazing which lasts?", "glazing with a second dipped coat, which lasts?"),
        ),
    ],
)
def test_a_half_that_restates_the_other_with_a_qualifier_keeps_it_whole(question, halves):
    assert split_comparison(question) == halves


def test_the_plain_half_is_about_passages_without_the_others_qualifier():
    from app.assistant.extractive.comparison import about

    # "proofing" against "proofing in the fridge": the fridge passage is the other half's.
    assert about(set(), {"fridge"}, {"proof", "dough", "warm"})
    assert not about(set(), {"fridge"}, {"proof", "dough", "fridge"})
    # Every word the other adds must be said: "cold" alone is not "cold fridge".
    assert about(set(), {"cold", "fridge"}, {"proof", "cold", "room"})
    # A half with a subject of its own is about what says it; two halves alike, about nothing in particular.
    assert about({"rye"}, {"wheat"}, {"rye", "flour"})
    assert not about({"rye"}, {"wheat"}, {"wheat", "flour"})
    assert not about(set(), set(), {"proof"})


PROOFING = [
    "Shaping comes first: fold the dough into a tight ball. The final proofing takes about an hour in a warm "
    "kitchen, and the dough is ready when a floured finger leaves a dent that springs back slowly.",
    "Proofing is the yeast's slow work on the dough. Proofing in the fridge overnight slows the yeast, so "
    "the proofing dough can wait ten to sixteen hours. Proofing cold in the fridge deepens the flavour.",
]


@pytest.fixture(scope="module")
def bread(tmp_path_factory):
    """An extractive answerer over a two-lesson bread course of its own."""
    return Library.answerer_over(tmp_path_factory.mktemp("bread"), "Bread at Home", *PROOFING)


def test_the_plain_half_quotes_the_plain_thing(bread):
    answer = bread.answer("proofing vs proofing in the fridge", [])
    assert [source.lesson_number for source in answer.sources] == [1, 2]
    assert "floured finger" in answer.markdown.split("Lesson 2", 1)[0]
