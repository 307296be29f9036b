"""`python -m bench.fit`: the decline cut and sentence weights it fits, and the file the answerer reads."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.assistant.extractive import answer_types, confidence, fitted, replies, scoring
from bench.eval_crossval import fitted_values
from bench.eval_signals import best_threshold, errors_at
from bench.fit import WEIGHT_NAMES, fit_weights, ranks
from bench.fit_data import Choice


def rows(covered: list[float], uncovered: list[float]) -> list[dict]:
    """Decline rows of made-up confidences."""
    return [{"covered": True, "confidence": value} for value in covered] + [
        {"covered": False, "confidence": value} for value in uncovered
    ]


def test_the_decline_cut_lies_midway_across_the_gap_between_the_two_kinds():
    found = rows([0.40, 0.50, 0.60, 0.35], [0.0, 0.10, 0.15])
    cut, errors = best_threshold(found, "confidence")
    assert errors_at(found, "confidence", cut) == (0, 0) and errors == 0
    # The cut lies midway between the highest no-coverage confidence and the lowest content one.
    assert cut == pytest.approx(0.25)


def test_a_cut_that_cannot_separate_makes_the_fewest_errors():
    found = rows([0.20, 0.50, 0.60], [0.10, 0.30])
    assert sum(errors_at(found, "confidence", best_threshold(found, "confidence")[0])) == 1


def choice(*candidates: tuple[float, float, float, float, float, bool]) -> Choice:
    """A question's made-up candidate sentences: five signals each, and whether it says the evidence."""
    return Choice(
        "made-up",
        np.array([candidate[:5] for candidate in candidates], dtype=float),
        np.array([candidate[5] for candidate in candidates]),
    )


def test_the_weights_follow_the_signal_that_picks_the_evidence():
    # The evidence sentence is always the one that says the question's words, never the closest in meaning.
    rng = np.random.default_rng(3)
    choices = []
    for _ in range(30):
        near, words = rng.uniform(0.4, 0.6, 2)
        choices.append(
            choice(
                (near + 0.1, 0.5, words - 0.3, 0, 0, False),
                (near, 0.5, words, 0, 0, True),
                (near - 0.2, 0.5, 0.1, 0, 0, False),
            )
        )
    values = fit_weights(choices)
    assert set(values) == set(WEIGHT_NAMES)
    assert values["SENTENCE_WEIGHT"] + values["PASSAGE_WEIGHT"] + values["KEYWORD_WEIGHT"] == pytest.approx(
        1.0, abs=0.01
    )
    assert values["KEYWORD_WEIGHT"] > values["SENTENCE_WEIGHT"]
    assert ranks(choices, values) == [1] * len(choices)
    # The hand-set weights of equal parts meaning put the closest sentence first in most of them.
    even = {**values, "SENTENCE_WEIGHT": 0.8, "PASSAGE_WEIGHT": 0.1, "KEYWORD_WEIGHT": 0.1}
    assert sum(rank == 1 for rank in ranks(choices, even)) < len(choices)


def test_the_answerer_reads_every_number_from_the_fitted_file():
    values = json.loads(fitted.FITTED_FILE.read_text(encoding="utf-8"))["values"]
    read = {
        "MIN_CONFIDENCE": confidence.MIN_CONFIDENCE,
        "SENTENCE_WEIGHT": scoring.SENTENCE_WEIGHT,
        "PASSAGE_WEIGHT": scoring.PASSAGE_WEIGHT,
        "KEYWORD_WEIGHT": scoring.KEYWORD_WEIGHT,
        "BONUS": answer_types.BONUS,
        "ANNOUNCE_PENALTY": replies.ANNOUNCE_PENALTY,
    }
    assert values == read


def test_values_fitted_elsewhere_are_set_everywhere_a_constant_was_imported_and_then_restored():
    from app.assistant.extractive import answerer

    before = answerer.MIN_CONFIDENCE
    with fitted_values({"MIN_CONFIDENCE": 0.987}):
        assert answerer.MIN_CONFIDENCE == confidence.MIN_CONFIDENCE == 0.987
    assert answerer.MIN_CONFIDENCE == confidence.MIN_CONFIDENCE == before
