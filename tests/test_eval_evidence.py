"""The evidence measurement: where a single question's evidence is lost on its way into the answer."""

from __future__ import annotations

import pytest

from bench.eval_evidence import evidence_row
from bench.eval_questions import Gold, Question
from tests.extractive.understand.test_comparison_half_subjects import NETWORKS
from tests.extractive.understand.test_comparisons import answerer_over

COURSE = "Neural Network Notes"


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """An extractive answerer over a two-lesson course of its own."""
    return answerer_over(tmp_path_factory, "evidence", NETWORKS)


def ask(question: str, lesson: int, evidence: str) -> Question:
    """A content question with one gold passage."""
    return Question(id="made-up", kind="content", question=question, gold=[Gold(COURSE, lesson, evidence)])


def test_quoted_evidence_and_a_decline_say_so(networks):
    quoted = ask("what does dropout do during training?", 1, "Dropout switches off a random half")
    declined = ask("what is a good recipe for sourdough bread?", 1, "Dropout switches off")

    assert evidence_row(networks, quoted)["cause"] == "quoted"
    assert evidence_row(networks, declined)["cause"] == "declined"


def test_evidence_no_passage_holds_and_a_sentence_read_but_not_quoted(networks):
    asked = "what does dropout do during training?"

    missing = evidence_row(networks, ask(asked, 1, "a phrase no lesson says"))
    passed_over = evidence_row(networks, ask(asked, 2, "Pretrained weights are reused for a new task"))

    assert (missing["cause"], missing["passage"]) == ("passage not read", None)
    assert passed_over["cause"] in ("sentence not chosen", "sentence unread")
    assert passed_over["passage"] is not None
