"""`make eval`: the labelled questions over docs/, scored for the search layer and for extractive answers."""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.assistant.base import Answer
from app.assistant.service import Assistant
from app.errors import AppError
from app.library.sync import Indexer
from app.search.index import CourseIndex
from app.search.models import Passage
from bench.eval_saved import run_saved_cases  # the playground's saved cases, from the app's database
from bench.index_search import bench_settings, p95, print_table

QUESTIONS = Path(__file__).resolve().parent.parent / "eval" / "questions.yaml"
DEPTH = 10
CUTS = (1, 5, 10)
CONTENT_KINDS = ("paraphrase", "definition", "typo", "loose_course", "lesson_number", "two_lesson")


@dataclass(frozen=True)
class Gold:
    """One passage a question needs: its course title, lesson number and a verbatim phrase of it."""

    course: str
    lesson: int
    evidence: str


@dataclass
class Question:
    """A labelled question: its kind, gold passages, search filter, and what an outline answer must say."""

    id: str
    kind: str
    question: str
    gold: list[Gold] = field(default_factory=list)
    filter: dict[str, Any] = field(default_factory=dict)
    course: str | None = None
    expect: list[str] = field(default_factory=list)
    expect_pattern: str | None = None


def flat(text: str) -> str:
    """Text with markdown escapes dropped and whitespace collapsed, for verbatim comparison."""
    return " ".join(text.replace("\\", "").split())


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    """Read the question file; a content question's single gold may be given inline."""
    questions = []
    for item in yaml.safe_load(path.read_text(encoding="utf-8")):
        gold = [Gold(**entry) for entry in item.get("gold", [])]
        if "evidence" in item:
            gold.append(Gold(item["course"], item["lesson"], item["evidence"]))
        questions.append(
            Question(
                id=item["id"],
                kind=item["kind"],
                question=item["question"],
                gold=gold,
                filter=item.get("filter", {}),
                course=item.get("course"),
                expect=item.get("expect", []),
                expect_pattern=item.get("expect_pattern"),
            )
        )
    return questions


def first_rank(passages: list[Passage], found: Callable[[Passage], bool]) -> int | None:
    """The 1-based rank of the first passage that `found` accepts, or None."""
    return next((rank for rank, passage in enumerate(passages, 1) if found(passage)), None)


def holds(gold: Gold) -> Callable[[Passage], bool]:
    """Whether a passage is the gold lesson's and contains the evidence phrase (strict)."""
    return lambda passage: in_lesson(gold)(passage) and flat(gold.evidence) in flat(passage.text)


def in_lesson(gold: Gold) -> Callable[[Passage], bool]:
    """Whether a passage comes from the gold lesson (lesson-level)."""
    return lambda passage: passage.course_title == gold.course and passage.lesson_number == gold.lesson


def question_rank(passages: list[Passage], question: Question, level: Callable) -> int | None:
    """The rank by which every gold passage has appeared (for two-lesson questions, the later one)."""
    ranks = [first_rank(passages, level(gold)) for gold in question.gold]
    return None if None in ranks else max(rank for rank in ranks if rank is not None)


def search_figures(ranks: list[int | None]) -> list[str]:
    """hit@1/@5/@10 and MRR@5 over ranks (None = not in the top DEPTH)."""
    total = max(len(ranks), 1)
    hits = [sum(1 for rank in ranks if rank is not None and rank <= cut) / total for cut in CUTS]
    mrr = sum(1 / rank for rank in ranks if rank is not None and rank <= 5) / total
    return [f"{value:.2f}" for value in (*hits, mrr)]


def run_search(index: CourseIndex, question: Question) -> list[Passage]:
    """The top DEPTH passages for a question, with its filter; an unresolvable filter finds nothing."""
    try:
        return index.search(
            question.question,
            course=question.filter.get("course"),
            lesson=question.filter.get("lesson"),
            k=DEPTH,
        )
    except AppError as exc:
        print(f"  ! {question.id}: {exc.message}")
        return []


def answer_verdict(question: Question, answer: Answer) -> str:
    """Grade an extractive answer: 'ok', 'partial' (one of two quotes, or right lesson only) or 'miss'."""
    text = flat(answer.markdown)
    if question.kind == "no_coverage":
        return "ok" if not any(source.lesson_number is not None for source in answer.sources) else "miss"
    if question.kind == "outline":
        pattern = question.expect_pattern
        found = all(flat(expected) in text for expected in question.expect) and (
            pattern is None or re.search(pattern, text, re.IGNORECASE) is not None
        )
        return "ok" if found else "miss"
    quoted = [flat(gold.evidence) in text for gold in question.gold]
    if all(quoted):
        return "ok"
    cited = {(source.course_title, source.lesson_number) for source in answer.sources}
    if any(quoted) or any((gold.course, gold.lesson) in cited for gold in question.gold):
        return "partial"
    return "miss"


ANSWER_MEANING = {
    "no_coverage": "declined (no passage quoted)",
    "outline": "answered from the outline",
    "two_lesson": "quotes both evidence phrases",
    "all": "as its kind says",
}
VERDICT_POINTS = {"ok": 1.0, "partial": 0.5, "miss": 0.0}
# The rankings compared on the same index and questions: the configured hybrid one and meaning alone.
MODES = {"hybrid": True, "dense": False}


@dataclass
class Run:
    """One ranking's results: strict and lesson-level ranks and extractive verdicts, by question id."""

    strict: dict[str, int | None] = field(default_factory=dict)
    lesson: dict[str, int | None] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    search_ms: list[float] = field(default_factory=list)
    answer_ms: list[float] = field(default_factory=list)


def evaluate(index: CourseIndex, assistant: Assistant, questions: list[Question], answers: bool) -> Run:
    """Search every content question (and answer every question when `answers`) with one index."""
    run = Run()
    for question in questions:
        if question.kind in CONTENT_KINDS:
            started = time.perf_counter()
            passages = run_search(index, question)
            run.search_ms.append((time.perf_counter() - started) * 1000)
            run.strict[question.id] = question_rank(passages, question, holds)
            run.lesson[question.id] = question_rank(passages, question, in_lesson)
        if answers:
            started = time.perf_counter()
            answer = assistant.answer(question.question)
            run.answer_ms.append((time.perf_counter() - started) * 1000)
            run.verdicts[question.id] = answer_verdict(question, answer)
    return run


def print_latency(runs: dict[str, Run]) -> None:
    """Search and extractive answer times of each ranking, in this run (the model already loaded)."""
    baseline = statistics.median(next(reversed(runs.values())).search_ms)
    rows = []
    for name, run in runs.items():
        search = statistics.median(run.search_ms)
        answer = (
            [f"{statistics.median(run.answer_ms):.1f}", f"{p95(run.answer_ms):.1f}"] if run.answer_ms else []
        )
        rows.append(
            (name, f"{search:.1f}", f"{p95(run.search_ms):.1f}", f"{search / baseline:.2f}x", *answer)
        )
    columns = ("ranking", "search p50 ms", "p95", "p50 vs last")
    print_table(
        f"Time per question (top {DEPTH} search; extractive answer at MAX_RESULTS, server side)",
        (*columns, "answer p50 ms", "p95") if rows and len(rows[0]) > len(columns) else columns,
        rows,
    )


def by_kind(questions: list[Question], kinds: list[str]) -> dict[str, list[Question]]:
    """The questions of each kind, plus all of them under "all"."""
    groups = {kind: [question for question in questions if question.kind == kind] for kind in kinds}
    return {**groups, "all": [question for question in questions if question.kind in kinds]}


def print_search(name: str, run: Run, groups: dict[str, list[Question]]) -> None:
    """The search table of one ranking."""
    print_table(
        f"Search layer ({name}), top {DEPTH} (strict: a returned passage holds the evidence phrase; lesson: "
        "a passage from the gold lesson; two-lesson: both by that rank)",
        ("kind", "n", "strict @1", "@5", "@10", "MRR@5", "lesson @1", "@5", "@10", "MRR@5"),
        [
            (
                kind,
                str(len(group)),
                *search_figures([run.strict[question.id] for question in group]),
                *search_figures([run.lesson[question.id] for question in group]),
            )
            for kind, group in groups.items()
        ],
    )


def print_answers(name: str, run: Run, groups: dict[str, list[Question]]) -> None:
    """The extractive-answer table of one ranking, after the questions it did not answer well."""
    for question_id, verdict in run.verdicts.items():
        if verdict != "ok":
            print(f"  extractive {verdict}: {question_id}")
    rows = []
    for kind, group in groups.items():
        values = [run.verdicts[question.id] for question in group]
        shares = [f"{values.count(verdict) / len(values):.2f}" for verdict in VERDICT_POINTS]
        rows.append((kind, str(len(values)), *shares, ANSWER_MEANING.get(kind, "quotes the evidence phrase")))
    print_table(
        f"Extractive answers ({name}, no API key): ok = quotes the evidence phrase(s) / declines / answers "
        "from the outline; partial = one of two phrases, or only the right lesson cited",
        ("kind", "n", "ok", "partial", "miss", "ok means"),
        rows,
    )


def reciprocal(rank: int | None) -> float:
    """1/rank within the top DEPTH, 0 when not found."""
    return 0.0 if rank is None else 1 / rank


def print_paired(
    runs: dict[str, Run], groups: dict[str, list[Question]], content: dict[str, list[Question]]
) -> None:
    """Per question, which ranking did better: strict reciprocal rank, and the extractive verdict."""
    first, second = runs

    def tally(score: Callable[[Run, str], float], group: list[Question]) -> list[str]:
        """How many questions each ranking wins, and how many tie."""
        deltas = [score(runs[first], question.id) - score(runs[second], question.id) for question in group]
        return [
            str(sum(d > 0 for d in deltas)),
            str(sum(d < 0 for d in deltas)),
            str(sum(d == 0 for d in deltas)),
        ]

    def strict(run: Run, question_id: str) -> float:
        """The strict reciprocal rank of a question in a run."""
        return reciprocal(run.strict[question_id])

    def answered(run: Run, question_id: str) -> float:
        """The extractive verdict of a question in a run, as points."""
        return VERDICT_POINTS[run.verdicts[question_id]]

    answers = bool(runs[first].verdicts)
    rows = []
    for kind, group in (groups if answers else content).items():
        row = [kind, str(len(group)), *tally(strict, content.get(kind, []))]
        rows.append((*row, *tally(answered, group)) if answers else tuple(row))
    columns = ("kind", "n", "search better", "worse", "same")
    print_table(
        f"Paired questions: {first} against {second} (better / worse / same, per question)",
        (*columns, "answer better", "worse", "same") if answers else columns,
        rows,
    )


def main() -> None:
    """Index docs/ into a private folder, then score each ranking and compare them question by question."""
    questions = load_questions()
    search_only = "--search-only" in sys.argv
    with tempfile.TemporaryDirectory(prefix="eval-") as tmp:
        settings = bench_settings(Path(tmp), "eval")
        Indexer(settings, CourseIndex(settings)).sync(rebuild=True)
        runs: dict[str, Run] = {}
        embedder = None
        for name, hybrid in MODES.items():
            mode = settings.model_copy(update={"hybrid_search": hybrid})
            index = CourseIndex(mode, embedder=embedder)
            embedder = index.embedder
            embedder.embed_query.cache_clear()  # each ranking embeds its questions afresh: fair timings
            runs[name] = evaluate(index, Assistant(mode, index), questions, answers=not search_only)
        content = by_kind(questions, list(CONTENT_KINDS))
        everything = by_kind(questions, list(dict.fromkeys(question.kind for question in questions)))
        for name, run in runs.items():
            print_search(name, run, content)
            if not search_only:
                print_answers(name, run, everything)
        print_paired(runs, everything, content)
        print_latency(runs)
        run_saved_cases(CourseIndex(settings, embedder=embedder))


if __name__ == "__main__":
    main()
