"""The unsaid-topic measurement: each question's decline signals, and the rows its cuts are fitted on."""

from __future__ import annotations

import pytest

from bench.eval_questions import Gold, Question
from bench.eval_unsaid import unsaid_only, unsaid_row
from tests.extractive.decide.test_nearest_meaning import BROWNING, GRILLING, SETUP


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory):
    """An extractive answerer over a cooking course that never says "smoker"."""
    from tests.helpers import Library

    return Library.answerer_over(
        tmp_path_factory.mktemp("kitchen"), "Kitchen Science", SETUP, GRILLING, BROWNING
    )


def test_a_question_about_a_word_no_course_says_reports_the_word_and_both_shares(kitchen):
    # The lab set-up lesson holds "install" and "lab" (first), the grilling lesson is nearest in meaning.
    question = Question(id="smoker", kind="no_coverage", question="how do i install a smoker for the labs")

    row = unsaid_row(kitchen, question)

    assert row is not None and row["topic"] == "smoker" and not row["covered"]
    assert row["nearest"] is not None and row["nearest"] < row["first"]
    assert row["declined"] and 0 < row["weight"] < 1 and row["kept"] == pytest.approx(1 - row["weight"])


def test_a_question_every_word_of_which_is_said_has_no_unsaid_topic(kitchen):
    gold = [Gold("Kitchen Science", 2, "covered in white ash")]
    asked = "when are the coals ready for grilling"
    question = Question(id="coals", kind="content", question=asked, gold=gold)

    row = unsaid_row(kitchen, question)

    assert row is not None and row["topic"] is None and row["covered"] and not row["declined"]
    assert row["nearest"] is None and row["kept"] == 1.0


def test_only_unsaid_topic_rows_are_fitted_on_and_an_unmeasured_nearest_reads_as_the_first():
    rows = [
        {"id": "a", "covered": True, "topic": None, "first": 0.9, "nearest": None},
        {"id": "b", "covered": False, "topic": "smoker", "first": 0.6, "nearest": 0.1},
        {"id": "c", "covered": True, "topic": "maillard", "first": 0.4, "nearest": None},
    ]

    kept = unsaid_only(rows)

    assert [row["id"] for row in kept] == ["b", "c"]
    assert [row["nearest"] for row in kept] == [0.1, 0.4]
