"""What `bench.fit` fits on: per labelled library, each question's decline signal and its candidate sentences.

Read from the extractive answerer itself, over the library's index (kept between runs with --index-dir as
`bench.evaluate` keeps it): the confidence an answer declines on, and for each question with one gold passage
the sentences that may lead its answer (`replies.answers`), each with the signals its rank score weighs and
whether it says the evidence phrase.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.eval_halves import _says
from bench.eval_questions import Question, flat

# The signals a sentence's rank score weighs, in the order of a row of `Choice.features`.
FEATURES = ("similarity", "passage", "keywords", "typed", "announces")
# Kinds answered otherwise (an outline, two passages, earlier turns) or with nothing to quote.
UNQUOTED = frozenset({"two_lesson", "follow_up", "outline", "general", "no_coverage"})


@dataclass
class Choice:
    """One question's candidate sentences: their signals (one row each) and which say the evidence."""

    id: str
    features: np.ndarray
    evidence: np.ndarray  # bool per row


@dataclass
class Observations:
    """One library's decline rows (covered, confidence) and sentence choices."""

    library: str
    decline: list[dict[str, Any]] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)


@contextlib.contextmanager
def opened(name: str, index_dir: Path | None) -> Iterator[Any]:
    """The extractive answerer over one library's index (synced into `index_dir`, or a temporary folder)."""
    from app import create_app
    from app.services import services
    from bench.evaluate import LIBRARIES, app_config

    library = LIBRARIES[name]
    with contextlib.ExitStack() as stack:
        if index_dir is None:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"fit-{name}-")))
        else:
            root = index_dir / (library.index or name)
        with create_app(app_config(root, library.docs, hybrid=True)).app_context():
            services().indexer.sync(rebuild=index_dir is None)
            yield services().assistant._answerer


def choice(answerer: Any, question: Question) -> Choice | None:
    """The candidate sentences of a single-passage question as its answer reads them; None when the
    question is split in two, or declined before any sentence is read."""
    from app.assistant.extractive.answer_types import asked_type, holds_kind
    from app.assistant.extractive.replies import answers
    from app.assistant.extractive.retrieve import search_query, wider
    from app.assistant.extractive.sentences import announces

    plan = answerer.plan(question.question, [])
    if plan.halves is not None:
        return None
    result = answerer.retrieve(plan)
    if result.is_error:
        return None
    passages = wider(answerer.index, plan, search_query(plan), result.passages)
    quotes = answerer.scorer.quotes(plan.quoted_for, passages)
    candidates = [quote for quote, _, _ in answers(quotes)]
    if not candidates:
        return None
    phrase = flat(question.gold[0].evidence).lower()
    wanted = asked_type(plan.quoted_for)
    rows = [
        (
            quote.similarity,
            quote.passage.score,
            quote.shared,
            float(holds_kind(wanted, plan.quoted_for, quote.passage, quote.sentence)),
            float(announces(quote.sentence)),
        )
        for quote in candidates
    ]
    said = [_says(quote.sentence, phrase) for quote in candidates]
    return Choice(question.id, np.asarray(rows, dtype=float), np.asarray(said, dtype=bool))


def observe(name: str, index_dir: Path | None) -> Observations:
    """Answer every question of one library once and keep what the fit needs."""
    from bench.evaluate import LIBRARIES

    found = Observations(name)
    questions = [question for question in LIBRARIES[name].questions() if not question.history]
    with opened(name, index_dir) as answerer:
        for question in questions:
            covered = question.kind != "no_coverage"
            if question.searched or not covered:
                confidence = answerer.answer(question.question, []).confidence
                if confidence is not None:
                    found.decline.append({"id": question.id, "covered": covered, "confidence": confidence})
            if len(question.gold) == 1 and question.kind not in UNQUOTED:
                picked = choice(answerer, question)
                if picked is not None and picked.evidence.any() and not picked.evidence.all():
                    found.choices.append(picked)
    return found
