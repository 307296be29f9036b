"""The decline's inner signals, question by question: for questions whose heaviest word no course says.

python -m bench.eval_unsaid --index-dir /tmp/idx --library sample --library lectures
python -m bench.eval_unsaid --index-dir /tmp/idx --library sample --all      # every question, not only those

Per question: whether the word carrying most of it is one the courses never say (nearest.unsaid_topic), which
word, its share of the question's weight (rarity times meaning), the share of the question held by the
hybrid ranking's first passage and by the passage nearest in meaning, the answer's confidence, and whether
it was declined. Then, over the questions whose heaviest word is unsaid, each signal's cut fitted on one
library and its errors on the others (as `make eval`'s "Decline signals" table does for all questions).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.eval_questions import Question
from bench.eval_threshold import print_signals
from bench.evaluate import LIBRARIES, app_config
from bench.index_search import print_table

# The signals compared over the questions whose heaviest word is unsaid.
UNSAID_SIGNALS = ("first", "nearest", "kept", "confidence")


def unsaid_row(answerer: Any, question: Question) -> dict[str, Any] | None:
    """One question's decline signals (None for a question that is neither content nor no-coverage, or a
    comparison, whose halves are weighed apart)."""
    from app.assistant.base import Exchange
    from app.assistant.extractive.nearest import unsaid_topic
    from app.language.lexicon import NO_TOPIC_WORDS
    from app.language.tokens import content_words

    if not (question.searched or question.kind in ("no_coverage", "follow_up")):
        return None
    history: list[Exchange] = []
    for earlier in question.history:
        said = answerer.answer(earlier, history)
        history.append(Exchange(question=earlier, answer=said.markdown, sources=said.sources))
    answer = answerer.answer(question.question, history)
    plan = answerer.plan(question.question, history)
    if plan.halves is not None or plan.outline or plan.course_error:
        return None
    found = answerer.retrieve(plan)  # the passages the answer was drawn from (follow-ups look near first)
    if found.is_error or not found.passages:
        return None
    measured = answerer.signals(plan, found.passages)
    words = list(dict.fromkeys(content_words(plan.query, NO_TOPIC_WORDS)))
    index = answerer.index
    rare, moved = index.rarity(words), answerer.meaning(plan.query, words)
    weights = {word: rare.get(word, 0.0) * moved.get(word, 0.0) for word in words}
    course = plan.course.title if plan.course is not None and plan.halves is None else None
    topic = unsaid_topic(plan.query, words, lambda terms: index.held(terms, course), lambda _: weights)
    total = sum(weights.values()) or 1.0
    return {
        "id": question.id,
        "covered": question.kind != "no_coverage",
        "declined": not answer.sources,
        "confidence": answer.confidence if answer.confidence is not None else 0.0,
        "topic": topic,
        "weight": round(weights.get(topic, 0.0) / total, 3) if topic else 0.0,
        "first": round(measured.coverage, 3),
        "nearest": None if measured.nearest is None else round(measured.nearest, 3),
        # What the question keeps without its unsaid word: at most this share can be held by any passage.
        "kept": round(1 - weights.get(topic, 0.0) / total, 3) if topic else 1.0,
    }


def library_rows(name: str, index_dir: Path) -> list[dict[str, Any]]:
    """Every question's decline signals on one library's kept index."""
    from app import create_app
    from app.services import services

    library = LIBRARIES[name]
    root = index_dir / (library.index or name)
    with create_app(app_config(root, library.docs, hybrid=True)).app_context():
        answerer = services().assistant._answerer
        rows = [unsaid_row(answerer, question) for question in library.questions()]
    return [row for row in rows if row is not None]


def unsaid_only(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose heaviest word is unsaid, each signal filled (nearest: the first share when unmeasured,
    as the confidence reads it)."""
    kept = []
    for row in rows:
        if row["topic"]:
            nearest = row["nearest"] if row["nearest"] is not None else row["first"]
            kept.append({**row, "nearest": nearest})
    return kept


def print_rows(name: str, rows: list[dict[str, Any]]) -> None:
    """One library's questions, no-coverage first."""
    table = [
        (
            row["id"],
            "content" if row["covered"] else "no-coverage",
            "declined" if row["declined"] else "answered",
            f"{row['confidence']:.3f}",
            row["topic"] or "-",
            f"{row['weight']:.2f}",
            f"{row['first']:.2f}",
            "-" if row["nearest"] is None else f"{row['nearest']:.2f}",
        )
        for row in sorted(rows, key=lambda row: (row["covered"], row["id"]))
    ]
    print()
    header = ("question", "kind", "answer", "confidence", "unsaid", "weight", "first", "nearest")
    print_table(f"Unsaid-topic signals on {name}", header, table)


def main(argv: list[str] | None = None) -> None:
    """Print the per-question signals and the fitted cuts over questions whose heaviest word is unsaid."""
    parser = argparse.ArgumentParser(prog="python -m bench.eval_unsaid", description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=sorted(LIBRARIES), action="append", required=True)
    parser.add_argument("--index-dir", type=Path, required=True, help="the kept indexes of bench.evaluate")
    parser.add_argument("--all", action="store_true", help="list every question, not only unsaid-topic ones")
    args = parser.parse_args(argv)
    libraries = {name: library_rows(name, args.index_dir) for name in args.library}
    for name, rows in libraries.items():
        print_rows(name, rows if args.all else unsaid_only(rows))
    print_signals({name: unsaid_only(rows) for name, rows in libraries.items()}, UNSAID_SIGNALS)


if __name__ == "__main__":
    main()
