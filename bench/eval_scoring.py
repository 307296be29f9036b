"""Score one ranking on one library: search ranks per question, extractive verdicts, follow-ups in context."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.eval_questions import Gold, Question, contains
from bench.eval_signals import word_share

DEPTH = 10
# How many of the top passages each result keeps, for diagnosing a question without rerunning it.
KEPT = 3
VERDICT_POINTS = {"ok": 1.0, "partial": 0.5, "miss": 0.0}


@dataclass
class Result:
    """One question under one ranking: search ranks, top passages, the answer and its verdict."""

    kind: str
    searched: bool = False  # scored by the search layer (a single question with gold passages)
    strict: int | None = None  # rank by which every gold passage holding its evidence has appeared
    lesson: int | None = None  # the same, for any passage of the gold lesson
    top: list[dict[str, Any]] = field(default_factory=list)
    share: float | None = None  # share of the question's content words in the top passage
    verdict: str | None = None
    quoted: int = 0  # gold evidence phrases the answer quotes
    declined: bool = False  # the answer cites no lesson
    confidence: float | None = None  # the extractive answer's decline signal (Answer.confidence)
    cited: list[str] = field(default_factory=list)
    answer: str = ""
    search_ms: float | None = None
    answer_ms: float | None = None


@dataclass
class Run:
    """One ranking's results on one library, by question id."""

    results: dict[str, Result] = field(default_factory=dict)

    @property
    def strict(self) -> dict[str, int | None]:
        """Strict ranks of the searched questions."""
        return {key: value.strict for key, value in self.results.items() if value.searched}

    @property
    def lesson(self) -> dict[str, int | None]:
        """Lesson-level ranks of the searched questions."""
        return {key: value.lesson for key, value in self.results.items() if value.searched}

    @property
    def verdicts(self) -> dict[str, str]:
        """Extractive verdicts of the answered questions."""
        return {key: value.verdict for key, value in self.results.items() if value.verdict is not None}

    def as_json(self) -> dict[str, Any]:
        """The results as plain data, for `--json`."""
        return {key: asdict(value) for key, value in self.results.items()}


def first_rank(passages: list, found: Callable[[Any], bool]) -> int | None:
    """The 1-based rank of the first passage that `found` accepts, or None."""
    return next((rank for rank, passage in enumerate(passages, 1) if found(passage)), None)


def in_lesson(gold: Gold) -> Callable[[Any], bool]:
    """Whether a passage comes from the gold lesson (lesson-level)."""
    return lambda passage: passage.course_title == gold.course and passage.lesson_number == gold.lesson


def holds(gold: Gold, ignore_case: bool = False) -> Callable[[Any], bool]:
    """Whether a passage is the gold lesson's and contains the evidence phrase (strict)."""
    return lambda passage: in_lesson(gold)(passage) and contains(passage.text, gold.evidence, ignore_case)


def question_rank(passages: list, question: Question, strict: bool) -> int | None:
    """The rank by which every gold passage has appeared (for two-lesson questions, the later one)."""
    ranks = [
        first_rank(passages, holds(gold, question.ignore_case) if strict else in_lesson(gold))
        for gold in question.gold
    ]
    return None if None in ranks else max(rank for rank in ranks if rank is not None)


def search(index, question: Question) -> list:
    """The top DEPTH passages for a question, with its filter; an unresolvable filter finds nothing."""
    try:
        return index.search(
            question.question,
            course=question.filter.get("course"),
            lesson=question.filter.get("lesson"),
            k=DEPTH,
        )
    except Exception as exc:  # a filter naming no course or lesson: the app's own error, scored as a miss
        print(f"  ! {question.id}: {getattr(exc, 'message', exc)}")
        return []


def grade(question: Question, result: Result) -> str:
    """The extractive verdict: 'ok', 'partial' (one of two quotes, or the right lesson only) or 'miss'."""
    text = result.answer
    if question.kind in ("no_coverage", "general"):
        return "ok" if result.declined else "miss"
    if question.kind == "outline" or (question.kind == "follow_up" and not question.gold):
        pattern = question.expect_pattern
        found = all(contains(text, expected, question.ignore_case) for expected in question.expect) and (
            pattern is None or re.search(pattern, text, re.IGNORECASE) is not None
        )
        return "ok" if found else "miss"
    if question.kind == "follow_up" and all(contains(text, e, True) for e in question.expect):
        return "ok"  # a lesson title asked for by number counts like the phrase does
    if result.quoted == len(question.gold):
        return "ok"
    places = {(gold.course, gold.lesson) for gold in question.gold}
    if result.quoted or any(f"{course}#{lesson}" in result.cited for course, lesson in places):
        return "partial"
    return "miss"


def score_search(index, question: Question, result: Result) -> None:
    """Search the question and keep its ranks, its top passages and their overlap with the question."""
    started = time.perf_counter()
    passages = search(index, question)
    result.search_ms = (time.perf_counter() - started) * 1000
    if question.gold:
        result.strict = question_rank(passages, question, strict=True)
        result.lesson = question_rank(passages, question, strict=False)
    result.top = [
        {"course": p.course_title, "lesson": p.lesson_number, "chunk": p.chunk_index, "score": p.score}
        for p in passages[:KEPT]
    ]
    result.share = word_share(question.question, passages[0].text) if passages else 0.0


def score_answer(assistant, question: Question, result: Result, exchange: Callable) -> None:
    """Answer the question (after its earlier turns, in one conversation) and grade the answer."""
    history = []
    for turn in question.history:
        earlier = assistant.answer(turn, history)
        history.append(exchange(turn, earlier))
    started = time.perf_counter()
    answer = assistant.answer(question.question, history)
    result.answer_ms = (time.perf_counter() - started) * 1000
    result.answer = answer.markdown
    result.cited = [
        f"{s.course_title}#{s.lesson_number}" for s in answer.sources if s.lesson_number is not None
    ]
    result.declined = not result.cited
    result.confidence = answer.confidence
    result.quoted = sum(
        contains(answer.markdown, gold.evidence, question.ignore_case) for gold in question.gold
    )
    result.verdict = grade(question, result)


def evaluate(index, assistant, questions: list[Question], answers: bool) -> Run:
    """Search every question that can be searched (and answer every one when `answers`) with one index."""
    from app.assistant.base import Exchange  # a plain model of the conversation history

    def exchange(question: str, answer) -> Exchange:
        """An earlier turn as the conversation history keeps it."""
        return Exchange(question=question, answer=answer.markdown, sources=answer.sources)

    run = Run()
    for question in questions:
        result = run.results[question.id] = Result(kind=question.kind, searched=question.searched)
        if question.searched or question.kind in ("no_coverage", "general"):
            score_search(index, question, result)
        if answers:
            score_answer(assistant, question, result, exchange)
    return run
