"""Each half of a comparison keeps what it is about: the words it shares with the other half, and what its
pronoun stands for."""

from __future__ import annotations

import pytest

from app.assistant.extractive.comparison_split import split_comparison
from tests.extractive.understand.test_comparisons import answerer_over


@pytest.mark.parametrize(
    ("question", "halves"),
    [
        # The length of the first phrase would cut "in the cooking course" in two: it is both halves'.
        (
            "quick pickling vs braising meat in the cooking course - which takes longer?",
            (
                "quick pickling in the cooking course - which takes longer?",
                "braising meat in the cooking course - which takes longer?",
            ),
        ),
        # Both phrases hold "in": each is a thing and where it is said, not one thing in two places.
        (
            "caching in the Redis lecture vs batching in the Kafka lecture",
            ("caching in the Redis lecture", "batching in the Kafka lecture"),
        ),
        # A name against a name: the names are compared, the rest is both halves'.
        (
            "latency in Redis vs Kafka in production",
            ("latency in Redis in production", "latency in Kafka in production"),
        ),
        # A second phrase opening on the preposition repeats it: the words before are both halves'.
        (
            "How are secrets handled in deployment and in tests?",
            ("How are secrets handled in deployment", "How are secrets handled in tests?"),
        ),
        (
            "proofing dough in summer vs in winter",
            ("proofing dough in summer", "proofing dough in winter"),
        ),
        # The second phrase restates the subject: each phrase is a subject and where it is said.
        (
            "braising in the stew lesson vs braising after searing, which is slower",
            ("braising in the stew lesson which is slower", "braising after searing, which is slower"),
        ),
        (
            "rising at room temperature vs rising in the fridge",
            ("rising at room temperature", "rising in the fridge"),
        ),
    ],
)
def test_a_split_gives_shared_words_to_the_halves_they_belong_to(question, halves):
    assert split_comparison(question) == halves


NETWORKS = "\n".join(
    [
        "Course Title: Neural Network Notes",
        "Course Instructor: Test Person",
        "Lesson 1: Regularization",
        "Lesson Link: https://example.com/networks/1",
        "A network that memorises its training set fails on new data. Dropout switches off a random half of "
        "the neurons on every training step, so no neuron can rely on another. The network learns "
        "redundant features and generalises better.",
        "Lesson 2: Uncertainty",
        "Lesson Link: https://example.com/networks/2",
        "Pretrained weights are reused for a new task by fine tuning the last layers. That saves days of "
        "compute on a small data set. Transfer works best when the two tasks see similar images. "
        "Calibration is a different matter altogether. A model can be confident and wrong. Temperature "
        "scaling fixes the confidence of a classifier after training. Ensembles of five models disagree "
        "where the data is thin. Their disagreement is a measure of what the model does not know. Dropout "
        "is kept switched on at test time as well: a hundred passes, each with other neurons off, give a "
        "spread of predictions whose width says how unsure the network is.",
    ]
)


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """An extractive answerer over a two-lesson course of its own."""
    return answerer_over(tmp_path_factory, "networks", NETWORKS)
