"""A word a student shortens ("backprop") finds the words of the course it begins ("backpropagation")."""

from __future__ import annotations

from app.search.shortened import completions
from tests.test_compounds import SHOP, keyword_index


def test_a_shortening_stands_for_the_few_longer_words_it_begins():
    terms = sorted(["backpropagation", "backpropagate", "back", "prop", "information", "informal", "infer"])
    assert completions("backprop", terms) == ["backpropagate", "backpropagation"]
    # Too short to mean one word, or beginning none.
    assert completions("info", terms) == []
    assert completions("gradi", terms) == []


def test_an_ambiguous_shortening_stands_for_nothing():
    terms = sorted(["transform", "transformer", "transformation", "transformative", "transformed"])
    assert completions("transf", terms) == []


def test_search_finds_the_word_a_shortening_begins():
    index = keyword_index(
        "Backpropagation sends the error back through every layer.",
        "The weather is mild today.",
    )
    ranked = index.ranked(
        "how does backprop work", SHOP, ["shop"], None, 10, frozenset({"how", "does", "work"})
    )
    assert [hit.key[0] for hit in ranked] == [1]
    # An English word is never read as a shortening.
    assert index.ranked("backprop", SHOP, ["shop"], None, 10, frozenset({"backprop"})) == []
