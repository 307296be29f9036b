"""Misspelled question words are searched as the library spells them; real words are left alone."""

from __future__ import annotations

from collections import Counter

import pytest

from app.search.spelling import Speller

LIBRARY = Counter(
    {
        "hypothesis": 3,
        "failing": 5,
        "example": 9,
        "middle": 2,
        "effect": 4,
        "retrieve": 6,
        "break": 2,
        "reach": 1,
    }
)


@pytest.mark.parametrize(
    ("typo", "word"),
    [
        ("hypotesis", "hypothesis"),  # a letter left out
        ("failng", "failing"),
        ("exmaple", "example"),  # two letters swapped
        ("midle", "middle"),
        ("efffect", "effect"),  # a letter too many
        ("exampel", "example"),
    ],
)
def test_a_word_one_edit_from_a_library_word_is_corrected(typo, word):
    assert Speller(LIBRARY).correct(typo) == word


@pytest.mark.parametrize(
    "word",
    [
        "example",  # known
        "examples",  # its stem is known
        "retriever",  # an inflection of a library word
        "bread",  # a real word the library lacks: the dictionary says so
        "fail",  # too short to correct
        "xailing",  # another first letter
        "shouldn't",
    ],
)
def test_known_words_and_real_words_are_left_alone(word):
    assert Speller(LIBRARY).correct(word, dictionary=frozenset({"bread", "react"})) is None


def test_the_most_frequent_candidate_wins_and_the_rest_of_the_text_stays():
    speller = Speller(Counter({"vector": 9, "vectors": 1, "sector": 1}))
    assert speller.corrected("How big is a VECOTR, really?") == "How big is a vector, really?"


def test_the_index_corrects_towards_its_library_and_the_model_vocabulary(services):
    index = services.index
    assert index.corrected("what does a fixtrue do") == "what does a fixture do"
    # "bread" is no library word, but the model's vocabulary knows it: no "correction" into a library word.
    assert "bread" in index.embedder.vocabulary()
    assert index.corrected("a recipe for bread") == "a recipe for bread"


def test_a_misspelled_question_is_answered_and_says_what_was_searched(services):
    answer = services.assistant.answer("what does a fixtrue do", [])
    assert '_Searched for "what does a fixture do"._' in answer.markdown
    assert answer.sources[0].lesson_title == "Fixtures"


def test_a_name_is_no_inflection_of_a_library_word():
    # "Skiner" reads as skin + er to a word, but a name one edit from "skinner" is that name misspelled.
    speller = Speller(Counter({"skin": 4, "skinner": 2}))

    assert speller.correct("Skiner") is None
    assert speller.correct("Skiner", name=True) == "skinner"
    assert speller.corrected("Skiner and Pavlov", names=True) == "skinner and Pavlov"
