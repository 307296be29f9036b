"""A run of capitalised words is a name said only where its words stand side by side ("Golden Ratio" is not
said by "golden" in one sentence and "ratio" in another)."""

from __future__ import annotations

import pytest

from app.assistant.extractive.confidence import names, side_by_side, unmentioned

ORDINARY = frozenset({"both", "golden", "ratio", "crust", "compare", "cosine", "stanford", "prison"})

CRUST = (
    "A loaf earns its golden crust in the last ten minutes of baking. Brush the top with egg wash so the "
    "golden crust shines, and bake the loaves until they sound hollow when tapped underneath."
)
HYDRATION = (
    "Hydration is the ratio of water to flour in a dough. A wet dough with a high ratio of water makes an "
    "open crumb, while a stiff dough makes tight, even loaves that are easy to shape by hand."
)


def test_an_ordinary_opening_word_joins_the_capitalised_ordinary_word_after_it():
    assert names("Golden Ratio loaves in the baking course", ORDINARY) == [["Golden", "Ratio"]]
    # A request opening the question is no part of a name, and a lower-case word after it no name at all.
    assert names("Compare Cosine and dot product", ORDINARY) == [["Cosine"]]
    assert names("Stanford prison experiment?", ORDINARY) == []
    assert names("Both Golden and Crust", ORDINARY) == [["Golden"], ["Crust"]]


def test_a_run_of_names_is_said_only_where_its_words_stand_side_by_side():
    said = {"golden", "ratio", "loav"}

    def asked(together: bool) -> tuple[str, ...]:
        return unmentioned(
            "Golden Ratio loaves", ORDINARY, str, lambda terms: said & set(terms), (), lambda run: together
        )

    assert asked(together=False) == ("Golden Ratio",)
    assert asked(together=True) == ()
    # A proper name or an acronym in the run makes it names side by side, each said wherever it is.
    apart = lambda run: False  # noqa: E731
    assert (
        unmentioned("baking Golden Zorblax loaves", ORDINARY, str, lambda _: said | {"zorblax"}, (), apart)
        == ()
    )
    assert unmentioned("baking Golden Ratio loaves", ORDINARY, str, lambda _: said, (), apart) == (
        "Golden Ratio",
    )


def test_side_by_side_reads_the_words_in_any_form_their_stems_meet():
    assert side_by_side(["Golden", "Crusts"], ["bake until the golden crust shines"])
    assert side_by_side(["Deep", "Dream"], ["then", "we were deep dreaming"])
    assert side_by_side(["Golden", "Ratio"], ["the golden 1 6 ratio"])  # numbers between aside
    assert not side_by_side(["Golden", "Ratio"], ["a golden crust and the ratio of water"])


@pytest.fixture(scope="module")
def bakery(tmp_path_factory):
    """An extractive answerer over a baking course that says "golden" and "ratio", never side by side."""
    from tests.helpers import Library

    return Library.answerer_over(tmp_path_factory.mktemp("bakery"), "Bread Baking", CRUST, HYDRATION)


def test_a_name_of_common_words_said_only_apart_is_declined(bakery):
    answer = bakery.answer("Golden Ratio loaves in the baking course", [])

    assert "never mentions “Golden Ratio”" in answer.markdown and not answer.sources


def test_a_name_of_common_words_said_side_by_side_is_answered(bakery):
    answer = bakery.answer("Golden Crust loaves in the baking course", [])

    assert answer.sources and answer.sources[0].lesson_number == 1
