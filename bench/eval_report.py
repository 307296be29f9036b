"""The tables `make eval` prints for a library: headline figures, per-kind detail, paired comparison."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from bench.eval_questions import Question
from bench.eval_scoring import DEPTH, VERDICT_POINTS, Run
from bench.index_search import print_table

CUTS = (1, 5, 10)
ANSWER_MEANING = {
    "no_coverage": "declined (no lesson cited)",
    "general": "no lesson cited",
    "outline": "answered from the outline",
    "two_lesson": "quotes both evidence phrases",
    "follow_up": "quotes the follow-up's evidence",
    "all": "as its kind says",
}


def hits(ranks: list[int | None], cut: int) -> float:
    """The share of ranks within the top `cut` (None = not in the top DEPTH)."""
    return sum(1 for rank in ranks if rank is not None and rank <= cut) / max(len(ranks), 1)


def mrr(ranks: list[int | None], cut: int = 5) -> float:
    """Mean reciprocal rank, counting ranks within the top `cut`."""
    return sum(1 / rank for rank in ranks if rank is not None and rank <= cut) / max(len(ranks), 1)


def search_figures(ranks: list[int | None]) -> list[str]:
    """hit@1/@5/@10 and MRR@5 over ranks."""
    return [f"{value:.2f}" for value in (*(hits(ranks, cut) for cut in CUTS), mrr(ranks))]


def count(run: Run, ids: list[str], test: Callable) -> str:
    """ "k of n": how many of the questions' results pass `test` ("-" when there are none)."""
    results = [run.results[key] for key in ids]
    return f"{sum(1 for result in results if test(result))} of {len(results)}" if results else "-"


def headline(questions: list[Question], run: Run) -> dict[str, str]:
    """The issue's figures for one ranking on one library (docs/evaluation.md says what each means)."""

    def ids(*kinds: str) -> list[str]:
        """The ids of the questions of these kinds."""
        return [question.id for question in questions if question.kind in kinds]

    single = [q.id for q in questions if q.searched and q.kind != "two_lesson"]
    strict = [run.results[key].strict for key in single]
    lesson = [run.results[key].lesson for key in single]
    content = [q.id for q in questions if q.gold and q.kind != "two_lesson"]
    answered = bool(run.verdicts)
    figures = {
        f"search strict hit@1 / @5 / @10 (n={len(single)})": " / ".join(search_figures(strict)[:3]),
        "search strict MRR@5": f"{mrr(strict):.2f}",
        "search lesson hit@5": f"{hits(lesson, 5):.2f}",
        "two-lesson: both passages in top 10": count(
            run, ids("two_lesson"), lambda r: r.strict is not None and r.strict <= DEPTH
        ),
    }
    if answered:
        figures |= {
            "extractive: evidence quoted": count(
                run, [k for k in content if run.results[k].kind != "follow_up"], lambda r: r.verdict == "ok"
            ),
            "extractive: outline answered": count(run, ids("outline"), lambda r: r.verdict == "ok"),
            "extractive: no-coverage declined": count(run, ids("no_coverage"), lambda r: r.declined),
            "extractive: content wrongly declined": count(
                run, [q.id for q in questions if q.gold], lambda r: r.declined
            ),
            "extractive: follow-ups right": count(run, ids("follow_up"), lambda r: r.verdict == "ok"),
            "extractive: comparisons quoting both": count(run, ids("two_lesson"), lambda r: r.quoted == 2),
            "extractive: comparisons quoting one": count(run, ids("two_lesson"), lambda r: r.quoted == 1),
            "extractive: general, no lesson cited": count(run, ids("general"), lambda r: r.declined),
        }
    search_ms = [r.search_ms for r in run.results.values() if r.searched and r.search_ms is not None]
    figures["search p50 ms"] = f"{statistics.median(search_ms):.1f}" if search_ms else "-"
    if answered:
        answer_ms = [r.answer_ms for r in run.results.values() if r.answer_ms is not None]
        figures["extractive answer p50 ms"] = f"{statistics.median(answer_ms):.1f}"
    return figures


def print_headline(library: str, questions: list[Question], runs: dict[str, Run]) -> None:
    """The headline figures of every ranking, side by side."""
    columns = {name: headline(questions, run) for name, run in runs.items()}
    labels = list(next(iter(columns.values())))
    print_table(
        f"== {library}: headline figures ({len(questions)} questions)",
        ("figure", *columns),
        [(label, *(column.get(label, "-") for column in columns.values())) for label in labels],
    )


def by_kind(questions: list[Question], kinds: list[str]) -> dict[str, list[Question]]:
    """The questions of each kind, plus all of them under "all"."""
    groups = {kind: [question for question in questions if question.kind == kind] for kind in kinds}
    return {**groups, "all": [question for question in questions if question.kind in kinds]}


def print_search(name: str, run: Run, groups: dict[str, list[Question]]) -> None:
    """The search table of one ranking, per kind."""
    print_table(
        f"Search layer ({name}), top {DEPTH} (strict: a returned passage holds the evidence phrase; lesson: "
        "a passage from the gold lesson; two-lesson: both by that rank)",
        ("kind", "n", "strict @1", "@5", "@10", "MRR@5", "lesson @1", "@5", "@10", "MRR@5"),
        [
            (
                kind,
                str(len(group)),
                *search_figures([run.results[question.id].strict for question in group]),
                *search_figures([run.results[question.id].lesson for question in group]),
            )
            for kind, group in groups.items()
            if group
        ],
    )


def print_answers(name: str, run: Run, groups: dict[str, list[Question]]) -> None:
    """The extractive-answer table of one ranking, after the questions it did not answer well."""
    misses = [f"{key} ({verdict})" for key, verdict in run.verdicts.items() if verdict != "ok"]
    print(f"  extractive not ok ({name}): {', '.join(misses) or 'none'}")
    rows = []
    for kind, group in groups.items():
        values = [run.results[question.id].verdict for question in group]
        if values:
            shares = [f"{values.count(verdict) / len(values):.2f}" for verdict in VERDICT_POINTS]
            rows.append(
                (kind, str(len(values)), *shares, ANSWER_MEANING.get(kind, "quotes the evidence phrase"))
            )
    print_table(
        f"Extractive answers ({name}, no API key): ok = quotes the evidence phrase(s) / declines / answers "
        "from the outline; partial = one of two phrases, or only the right lesson cited",
        ("kind", "n", "ok", "partial", "miss", "ok means"),
        rows,
    )


def reciprocal(rank: int | None) -> float:
    """1/rank within the top DEPTH, 0 when not found."""
    return 0.0 if rank is None else 1 / rank


def tally(deltas: list[float]) -> list[str]:
    """How many questions the first side wins, loses and ties."""
    return [
        str(sum(d > 0 for d in deltas)),
        str(sum(d < 0 for d in deltas)),
        str(sum(d == 0 for d in deltas)),
    ]


def print_paired(runs: dict[str, Run], groups: dict[str, list[str]], title: str | None = None) -> None:
    """Per question (ids by kind), which of two runs did better: strict reciprocal rank, verdict."""
    first, second = runs

    def deltas(score: Callable, ids: list[str], searched: bool = False) -> list[float]:
        """The first run's score minus the second's, per question both scored (and searched, if asked)."""
        both = [key for key in ids if key in runs[first].results and key in runs[second].results]
        if searched:
            both = [key for key in both if runs[first].results[key].searched]
        return [score(runs[first].results[key]) - score(runs[second].results[key]) for key in both]

    def strict(result) -> float:
        """The strict reciprocal rank of a result."""
        return reciprocal(result.strict)

    def answered(result) -> float:
        """The extractive verdict of a result, as points."""
        return VERDICT_POINTS.get(result.verdict, 0.0)

    answers = bool(runs[first].verdicts) and bool(runs[second].verdicts)
    rows = []
    for kind, ids in groups.items():
        row = [kind, str(len(ids)), *tally(deltas(strict, ids, searched=True))]
        rows.append((*row, *tally(deltas(answered, ids))) if answers else tuple(row))
    columns = ("kind", "n", "search better", "worse", "same")
    print_table(
        title or f"Paired questions: {first} against {second} (better / worse / same, per question)",
        (*columns, "answer better", "worse", "same") if answers else columns,
        rows,
    )


def kind_groups(run: Run) -> dict[str, list[str]]:
    """The question ids of a run by kind, plus all of them under "all"."""
    groups: dict[str, list[str]] = {}
    for key, result in run.results.items():
        groups.setdefault(result.kind, []).append(key)
    return {**groups, "all": list(run.results)}
