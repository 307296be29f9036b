"""Where each comparison loses a quote: its split, and each evidence's passage and sentence in its half.

python -m bench.eval_halves --index-dir /tmp/idx --library lectures --library reworded [--dense]

Per two-lesson question, per gold phrase: the half that reads the phrase's lesson (or else the half whose
passages hold the phrase), the phrase's passage among that half's passages, its sentence's rank among the
half's scored sentences ("unread" when it was not read for meaning), and what stops it being quoted:
- "not split": the question is answered whole (no halves);
- "no lead": a half found nothing relevant, so the question is answered whole;
- "passage not found": no half's passages hold the phrase (ranking);
- "sentence not chosen": the passage was read but another sentence leads (quote choice);
- "quoted": the half's lead, or the more of its lesson, says it.
The answerer's own halves are read (`ExtractiveAnswerer.read_halves`), so the figures are the answer's.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.eval_questions import Question, flat
from bench.evaluate import LIBRARIES, app_config
from bench.index_search import print_table

# A phrase is found in a sentence by its opening words (a phrase may run over a sentence's end).
OPENING_CHARS = 25


def half_rows(answerer: Any, question: Question) -> list[dict[str, Any]]:
    """One row per gold phrase of a two-lesson question: where its half found it, and why it is unquoted."""
    plan = answerer.plan(question.question, [])
    read = answerer.read_halves(plan)
    rows = []
    for gold in question.gold:
        row: dict[str, Any] = {"id": question.id, "lesson": gold.lesson, "half": "-", "passage": None}
        row.update(sentence=None, cause="not split" if read is None else "no lead")
        if read is None or len(read) < 2 or not all(one.lead for one in read):
            rows.append(row)
            continue
        phrase = flat(gold.evidence).lower()
        found = [_found(one, phrase) for one in read]
        # The half quoting the phrase, else the one that searched its lesson, else the one finding it first.
        quoted = [each for each in found if each["cause"] == "quoted"]
        lessons = [each for one, each in zip(read, found, strict=True) if _reads_lesson(one, gold)]
        held = sorted((each for each in found if each["passage"]), key=lambda each: each["passage"])
        row.update((quoted or lessons or held or found)[0])
        rows.append(row)
    return rows


def _found(one: Any, phrase: str) -> dict[str, Any]:
    """Where one half found the phrase: its passage's rank, its sentence's rank, and the cause."""
    from app.assistant.extractive.quotes import more_of

    row: dict[str, Any] = {"half": one.half.topic, "passage": None, "sentence": None}
    ranks = [at for at, passage in enumerate(one.passages, 1) if phrase in flat(passage.text).lower()]
    if not ranks:
        return {**row, "cause": "passage not found"}
    ranked = sorted(one.quotes, key=lambda quote: quote.score, reverse=True)
    at = next((n for n, quote in enumerate(ranked, 1) if _says(quote.sentence, phrase)), None)
    sentence = "unread" if at is not None and not ranked[at - 1].embedded else at
    quoted = any(_says(quote.sentence, phrase) for quote in one.lead + more_of(one.quotes, one.lead))
    return {
        **row,
        "passage": ranks[0],
        "sentence": sentence,
        "cause": "quoted" if quoted else "sentence not chosen",
    }


def _reads_lesson(one: Any, gold: Any) -> bool:
    """True when the half's passages come from the gold lesson and no other."""
    places = {(p.course_title, p.lesson_number) for p in one.passages}
    return places == {(gold.course, gold.lesson)}


def _says(sentence: str, phrase: str) -> bool:
    """True when the sentence holds the phrase's opening, or the phrase holds the whole sentence."""
    said = flat(sentence).lower()
    return phrase[:OPENING_CHARS] in said or said in phrase


def library_rows(name: str, index_dir: Path, hybrid: bool) -> list[dict[str, Any]]:
    """Every two-lesson question's rows on one library's kept index."""
    from app import create_app
    from app.services import services

    library = LIBRARIES[name]
    root = index_dir / (library.index or name)
    with create_app(app_config(root, library.docs, hybrid=hybrid)).app_context():
        answerer = services().assistant._answerer
        questions = [question for question in library.questions() if question.kind == "two_lesson"]
        return [row for question in questions for row in half_rows(answerer, question)]


def main(argv: list[str] | None = None) -> None:
    """Print each comparison's phrases: the half, the passage and sentence ranks, and the cause."""
    parser = argparse.ArgumentParser(prog="python -m bench.eval_halves", description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=sorted(LIBRARIES), action="append", required=True)
    parser.add_argument("--index-dir", type=Path, required=True, help="the kept indexes of bench.evaluate")
    parser.add_argument("--dense", action="store_true", help="rank by meaning alone, not hybrid")
    args = parser.parse_args(argv)
    for name in args.library:
        rows = library_rows(name, args.index_dir, hybrid=not args.dense)
        table = [
            (
                row["id"],
                str(row["lesson"]),
                row["half"][:60],
                str(row["passage"] or "-"),
                str(row["sentence"] or "-"),
            )
            + (row["cause"],)
            for row in rows
        ]
        print()
        header = ("question", "lesson", "half", "passage", "sentence", "cause")
        print_table(f"Comparison halves on {name} ({'dense' if args.dense else 'hybrid'})", header, table)


if __name__ == "__main__":
    main()
