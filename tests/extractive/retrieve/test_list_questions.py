"""List questions: "which <things> have <a property>" offers the other lessons that say the property."""

from __future__ import annotations

import pytest

from app.search.listed import listed_noun, other_lessons, property_sentences
from app.search.models import Passage
from app.search.searcher import SearchRequest
from tests.helpers import Library, titled_course_text


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("which bridges have a weak spot?", "bridges"),
        ("Which rivers in the valley course flood in spring, and when?", "rivers"),
        ("rope bridges - which knots hold best?", "knots"),  # a topic, then the list question
        ("stone bridges: which arches crack first?", "arches"),
        ("the old bridge, which stones were replaced?", None),  # "which" after a comma is often relative
        ("which bridge has a weak spot?", None),  # one thing asked for
        ("which class covers arches?", None),  # a singular word ending in "s"
        ("which does more harm, rain or frost?", None),  # a verb agreeing with "which"
        ("what bridges have a weak spot?", None),  # "what" + a word ending in "s" is often a verb
        ("where do bridges have a weak spot?", None),
    ],
)
def test_a_list_question_is_which_and_a_plural_noun(question, noun):
    assert listed_noun(question) == noun


def passage(lesson: int, chunk: int, text: str = "t") -> Passage:
    """A passage of a made-up course."""
    return Passage(
        course_title="C", lesson_number=lesson, lesson_title="L", chunk_index=chunk, score=0.5, text=text
    )


def test_the_property_is_said_by_the_first_passage_saying_most_of_the_other_words():
    passages = [
        passage(1, 0, "Bridges are old. They cross rivers."),
        passage(1, 1, "This bridge has a weak spot. It is made of stone. The weak spot is the keystone."),
    ]

    said = property_sentences("which bridges have a weak spot?", "bridges", passages)

    assert said is not None
    assert said[0] == passages[1]
    # "bridge" is the thing listed, not the property: the stone sentence says it and is left out.
    assert said[1] == ["This bridge has a weak spot.", "The weak spot is the keystone."]
    assert property_sentences("which bridges have a weak spot?", "bridges", passages[:1]) is None


def test_each_other_lesson_offers_its_best_passage_unless_kept():
    source = passage(1, 0)
    found = [passage(1, 1), passage(2, 4), passage(2, 5), passage(3, 0), passage(4, 2)]
    kept = [source, passage(3, 0)]

    assert other_lessons(source, found, kept) == [passage(2, 4), passage(4, 2)]


STONE = (
    "This stone bridge has a weak spot, the keystone at the top of the arch. We already saw a bridge with a "
    "weak spot when we walked the old rope bridge: there it was the third plank from the left bank.",
    "Every stone bridge has a weak spot somewhere, and the engineers look for the weak spot of a bridge "
    "before they let heavy carts cross it, tapping each stone of the bridge with a hammer.",
    "A bridge of stone shows its weak spot as a crack: water gets into the weak spot of the bridge in "
    "winter, freezes, and pushes the stones of the bridge apart a little more every year.",
)
ROPE = (
    "The rope bridge was built by farmers from the village one spring, to reach the fields on the far side "
    "of the gorge without walking down to the ford and back up again.",
    "The ropes are made of hemp, twisted by hand, and they are replaced every few years, after the farmers "
    "have checked them at the end of each summer for rot and for fraying.",
    "On that crossing the third plank from the left bank was where the whole thing would give way under a "
    "heavy cart, so the farmers walked their carts over empty and carried the load by hand.",
    "Children from the village liked to swing the bridge from side to side, which the farmers forbade, and "
    "the view from the middle of the gorge was said to be the best in the valley.",
)
ASKED = "which bridges have a weak spot?"


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    """One course with a lesson on stone bridges and one on a rope bridge, one passage per paragraph."""
    library = Library(tmp_path_factory.mktemp("listed"), chunk_size=300, chunk_overlap=0)
    lessons = (("Stone Bridges", "\n\n".join(STONE)), ("The Rope Bridge", "\n\n".join(ROPE)))
    (library.docs / "bridges.txt").write_text(titled_course_text("Bridges of the Valley", *lessons))
    return library.synced()


def test_a_list_question_keeps_the_passage_of_another_lesson_that_says_the_property_otherwise(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    whole = index.searcher.search(SearchRequest(ASKED, snapshot, snapshot.entries, None, None, 3))
    # Searched alone, the lesson that says "weak spot" takes every place.
    assert {found.lesson_number for found in whole} == {1}

    found = index.search(ASKED, k=3)

    assert [one.text for one in found[:2]] == [one.text for one in whole[:2]]
    assert found[2].lesson_number == 2
    assert found[2].text.startswith("On that crossing the third plank")


def test_a_question_asking_for_one_thing_keeps_its_ranking(library):
    index = library.index
    assert {found.lesson_number for found in index.search("which bridge has a weak spot?", k=3)} == {1}
