"""The comparison measurement: where each gold phrase of a two-lesson question is found, and why unquoted."""

from __future__ import annotations

import pytest

from bench.eval_halves import half_rows
from bench.eval_questions import Gold, Question
from tests.extractive.understand.test_comparison_half_subjects import NETWORKS
from tests.extractive.understand.test_comparisons import answerer_over

COURSE = "Neural Network Notes"


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """An extractive answerer over a two-lesson course of its own."""
    return answerer_over(tmp_path_factory, "halves", NETWORKS)


def test_each_phrase_is_found_in_the_half_that_quotes_it(networks):
    gold = [
        Gold(COURSE, 1, "Dropout switches off a random half of the neurons"),
        Gold(COURSE, 2, "Dropout is kept switched on at test time"),
    ]
    asked = (
        "what does dropout do while training in the regularization lecture, and how is dropout reused in "
        "the uncertainty lecture?"
    )

    rows = half_rows(networks, Question(id="dropout", kind="two_lesson", question=asked, gold=gold))

    assert [row["cause"] for row in rows] == ["quoted", "quoted"]
    assert [row["passage"] for row in rows] == [1, 1]
    assert "reused" in rows[1]["half"] and "reused" not in rows[0]["half"]


def test_a_phrase_no_half_finds_and_a_question_not_split_say_so(networks):
    absent = [Gold(COURSE, 2, "a phrase no lesson says")]
    compared = "what does dropout do in the regularization lecture vs in the uncertainty lecture?"
    whole = Question(id="whole", kind="two_lesson", question="what does dropout do?", gold=absent)

    rows = half_rows(networks, Question(id="absent", kind="two_lesson", question=compared, gold=absent))

    assert [row["cause"] for row in rows] == ["passage not found"]
    assert [row["cause"] for row in half_rows(networks, whole)] == ["not split"]
