"""Keyword search ranks by a question's words, not by the pieces of its contractions ("aren't")."""

from __future__ import annotations

from app.search.contractions import contraction_terms
from tests.test_search_forms import ranked


def test_a_contraction_finds_no_passage_by_its_pieces():
    chunks = ["flat loaves come from a weak dough", "we aren't sure; they aren't here yet", "loaves rise"]
    assert ranked(chunks, "why aren't my loaves flat") == [0, 2]


def test_the_pieces_are_tails_and_the_heads_of_negations():
    assert contraction_terms("why aren't Freud's ideas tested") == {"aren", "t", "s"}
    assert contraction_terms("what\u2019s a proof, and we'll see") == {"s", "ll"}
    # A name before "'s" is the question's word; a word without an apostrophe is never a piece.
    assert contraction_terms("Don said the bakers t-test") == set()
