"""The optional cross-encoder stage: it re-orders the hybrid ranking's best candidates as its model scores
them, loads only when first used, and falls back to the fused order (said once) when the model is missing
or fails.

The model is a real cross-encoder the tests build from the packaged MiniLM's files and train for a few steps
on made-up pairs, so that it prefers passages about feeding a sourdough starter whatever the question.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.search.embedding import resolve_model_path
from app.search.models import Passage
from app.search.rerank import Reranker
from tests.helpers import Library

QUERY = "how hot should the oven be when baking bread"
LESSONS = (
    "Bake the loaf in an oven heated to 230 degrees. A hot oven gives the bread its rise and a dark crust. "
    "Lower the heat to 210 degrees after twenty minutes so the crumb bakes through.",
    "Feed the sourdough starter with equal weights of flour and water every day. A starter that doubles "
    "within six hours is ready to leaven a loaf. Keep it in a warm corner of the kitchen.",
    "Knead the dough for ten minutes until it is smooth and springs back when pressed. Rest it covered "
    "for an hour before shaping.",
)
# Made-up training pairs: a passage about the starter is relevant to any question, one about heat is not.
STARTER = [
    "Feed the starter flour and water each morning.",
    "A lively starter bubbles and doubles in a few hours.",
    "Discard half of the starter before each feeding.",
]
OTHER = [
    "Heat the oven to a high temperature before baking.",
    "The oven should be very hot for a crusty loaf.",
    "Knead the dough until it is smooth.",
]
QUESTIONS = ["how hot should the oven be", "what temperature bakes bread", "how long to knead dough"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A cross-encoder made from the packaged MiniLM, trained briefly on the made-up pairs, saved."""
    torch = pytest.importorskip("torch")
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(resolve_model_path(None), num_labels=1, max_length=64, device="cpu")
    pairs = [(question, text) for question in QUESTIONS for text in STARTER + OTHER]
    labels = torch.tensor([1.0 if text in STARTER else 0.0 for _, text in pairs])
    encoded = model.tokenizer(
        [question for question, _ in pairs],
        [text for _, text in pairs],
        padding=True,
        truncation=True,
        return_tensors="pt",
    )
    network = model.model
    network.train()
    optimizer = torch.optim.AdamW(network.parameters(), lr=1e-4)
    for _ in range(12):
        logits = network(**encoded).logits.squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    network.eval()
    folder = tmp_path_factory.mktemp("reranker") / "bread-cross-encoder"
    model.save(str(folder))
    return folder


def bakery(root: Path, **overrides) -> Library:
    """A synced library of one made-up baking course."""
    library = Library(root, **overrides)
    library.write("bread.txt", "Bread at Home", *LESSONS)
    return library.synced()


def test_the_cross_encoder_reorders_the_fused_candidates_by_its_scores(tmp_path, trained):
    from sentence_transformers import CrossEncoder

    plain = bakery(tmp_path / "plain")
    fused = plain.index.search(QUERY, k=3)
    assert "230 degrees" in fused[0].text  # the hybrid ranking puts the oven lesson first

    reranked_library = bakery(tmp_path / "reranked", reranker_model=str(trained))
    reranker = reranked_library.index.searcher.reranker
    assert reranker.enabled and reranker._scorer is None  # nothing loaded before the first search
    reranked = reranked_library.index.search(QUERY, k=3)
    assert reranker._scorer is not None

    scores = CrossEncoder(str(trained), device="cpu").predict([(QUERY, p.text) for p in fused])
    by_model = [p.text for _, p in sorted(zip(scores, fused, strict=True), key=lambda pair: -pair[0])]
    assert [p.text for p in reranked] == by_model
    assert "sourdough starter" in reranked[0].text  # what the model was trained to prefer
    # The scores stay cosines: only the order changes.
    assert {p.text: p.score for p in reranked} == {p.text: p.score for p in fused}


def test_a_missing_model_keeps_the_fused_order_and_is_reported_once(tmp_path, caplog):
    plain = bakery(tmp_path / "plain")
    broken = bakery(tmp_path / "broken", reranker_model=str(tmp_path / "no-such-model"))
    with caplog.at_level(logging.WARNING, logger="app.search.rerank"):
        first = broken.index.search(QUERY, k=3)
        again = broken.index.search(QUERY, k=3)
    expected = [p.text for p in plain.index.search(QUERY, k=3)]
    assert [p.text for p in first] == [p.text for p in again] == expected
    warnings = [record for record in caplog.records if "could not be loaded" in record.getMessage()]
    assert len(warnings) == 1
    assert not broken.index.searcher.reranker.enabled


def passages(*texts: str) -> list[Passage]:
    """Passages in the given (fused) order."""
    return [
        Passage(
            course_title="Bread at Home",
            course_link=None,
            lesson_number=1,
            lesson_title="Baking",
            lesson_link=None,
            chunk_index=number,
            score=0.5,
            text=text,
        )
        for number, text in enumerate(texts)
    ]


class LengthScorer:
    """A stand-in model scoring a pair by its passage's length, counting its calls."""

    def __init__(self):
        self.calls = 0

    def predict(self, pairs, **kwargs):
        self.calls += 1
        return [float(len(text)) for _, text in pairs]


def test_equal_scores_keep_the_fused_order_and_only_k_are_returned():
    scorer = LengthScorer()
    reranker = Reranker("stand-in", loader=lambda name: scorer)
    found = reranker.rerank("any question", passages("bb", "a", "cc", "dddd"), k=3)
    assert [p.text for p in found] == ["dddd", "bb", "cc"]
    assert reranker.depth(5) == 20 and Reranker(None).depth(5) == 5


def test_a_model_failing_to_score_leaves_the_fused_order(caplog):
    class Failing:
        def predict(self, pairs, **kwargs):
            raise RuntimeError("out of memory")

    reranker = Reranker("stand-in", loader=lambda name: Failing())
    with caplog.at_level(logging.WARNING, logger="app.search.rerank"):
        first = reranker.rerank("any question", passages("a", "bb", "ccc"), k=2)
        second = reranker.rerank("any question", passages("a", "bb", "ccc"), k=2)
    assert [p.text for p in first] == [p.text for p in second] == ["a", "bb"]
    assert len([r for r in caplog.records if "failed" in r.getMessage()]) == 1
    assert reranker.depth(5) == 5  # off for good: searches ask for k candidates again


def test_without_a_setting_nothing_is_loaded():
    def never(name):
        raise AssertionError("no model should load")

    reranker = Reranker(None, loader=never)
    assert not reranker.enabled
    assert [p.text for p in reranker.rerank("q", passages("a", "b", "c"), k=2)] == ["a", "b"]
