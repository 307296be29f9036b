"""Where each single question loses its evidence: the search, the sentences read, or the choice of quotes.

python -m bench.eval_evidence --index-dir /tmp/idx --library lectures --library reworded [--dense] [--all]

Per question with one gold passage (a two-lesson question: `bench.eval_halves`), the evidence's passage among
those the answer reads, its sentence's rank among the sentences that may answer ("unread" when it was not
read for meaning), how far its score is below the best one's, and the cause:
- "declined": the answer quotes nothing;
- "compared": the question is split in two halves, each read on its own (`bench.eval_halves`);
- "passage not read": no passage the answer reads holds the evidence (search);
- "sentence unread": its passage is read, but not its sentence (`budget.worth_reading`);
- "sentence not chosen": its sentence is scored, but neither leads nor is among the further quotes;
- "quoted": the answer says it.
A rewording that loses what its labelled wording quotes shows which step the wording defeats. The plan's
own words are read: an acronym the answer searches again in full is read as asked.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.eval_halves import _says
from bench.eval_questions import Question, contains, flat
from bench.evaluate import LIBRARIES, app_config
from bench.index_search import print_table

# Kinds answered by other means: an outline, a comparison (bench.eval_halves), nothing to quote.
OTHER_KINDS = frozenset({"two_lesson", "follow_up", "no_coverage", "outline", "general", "absent", "cross"})


def evidence_row(answerer: Any, question: Question) -> dict[str, Any]:
    """Where the question's evidence is lost on its way into the answer (see the module)."""
    from app.assistant.extractive.replies import answers
    from app.assistant.extractive.retrieve import search_query, wider

    evidence = flat(question.gold[0].evidence)
    row: dict[str, Any] = {"id": question.id, "question": question.question, "passage": None}
    row.update(sentence=None, gap=None)
    answer = answerer.answer(question.question, [])
    if contains(answer.markdown, evidence, ignore_case=question.ignore_case):
        return {**row, "cause": "quoted"}
    if not answer.sources:
        return {**row, "cause": "declined"}
    plan = answerer.plan(question.question, [])
    if plan.halves is not None:
        return {**row, "cause": "compared (bench.eval_halves)"}
    result = answerer.retrieve(plan)
    passages = wider(answerer.index, plan, search_query(plan), [] if result.is_error else result.passages)
    phrase = evidence.lower()
    ranks = [at for at, passage in enumerate(passages, 1) if phrase in flat(passage.text).lower()]
    if not ranks:
        return {**row, "cause": "passage not read"}
    quotes = answerer.scorer.quotes(plan.quoted_for, passages)
    if not any(quote.embedded for quote in quotes if _says(quote.sentence, phrase)):
        return {**row, "passage": ranks[0], "sentence": "unread", "cause": "sentence unread"}
    scored = sorted(answers(quotes), key=lambda each: each[1], reverse=True)
    at = next((n for n, (quote, _, _) in enumerate(scored, 1) if _says(quote.sentence, phrase)), None)
    gap = scored[0][1] - scored[at - 1][1] if at is not None else None
    return {**row, "passage": ranks[0], "sentence": at, "gap": gap, "cause": "sentence not chosen"}


def library_rows(name: str, index_dir: Path, hybrid: bool, every: bool) -> list[dict[str, Any]]:
    """The rows of one library's single questions (those not quoted, unless `every`) on its kept index."""
    from app import create_app
    from app.services import services

    library = LIBRARIES[name]
    root = index_dir / (library.index or name)
    with create_app(app_config(root, library.docs, hybrid=hybrid)).app_context():
        answerer = services().assistant._answerer
        single = [q for q in library.questions() if len(q.gold) == 1 and q.kind not in OTHER_KINDS]
        rows = [evidence_row(answerer, question) for question in single]
    return [row for row in rows if every or row["cause"] != "quoted"]


def main(argv: list[str] | None = None) -> None:
    """Print, per question, the evidence's passage and sentence ranks, its score gap, and the cause."""
    first = __doc__.splitlines()[0]
    parser = argparse.ArgumentParser(prog="python -m bench.eval_evidence", description=first)
    parser.add_argument("--library", choices=sorted(LIBRARIES), action="append", required=True)
    parser.add_argument("--index-dir", type=Path, required=True, help="the kept indexes of bench.evaluate")
    parser.add_argument("--dense", action="store_true", help="rank by meaning alone, not hybrid")
    parser.add_argument("--all", action="store_true", help="list the questions quoted too")
    args = parser.parse_args(argv)
    for name in args.library:
        rows = library_rows(name, args.index_dir, hybrid=not args.dense, every=args.all)
        table = [
            (
                row["id"],
                row["question"][:60],
                str(row["passage"] or "-"),
                str(row["sentence"] or "-"),
                "-" if row["gap"] is None else f"{row['gap']:.3f}",
                row["cause"],
            )
            for row in rows
        ]
        print()
        header = ("question", "asked", "passage", "sentence", "gap", "cause")
        print_table(f"Evidence on {name} ({'dense' if args.dense else 'hybrid'})", header, table)


if __name__ == "__main__":
    main()
