"""`make eval`: the labelled questions over docs/, scored for the search layer and for extractive answers."""

from __future__ import annotations

import re
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.assistant.models import Answer
from app.assistant.service import Assistant
from app.errors import AppError
from app.search.index import CourseIndex
from app.search.models import Passage
from app.search.sync import Indexer
from bench.index_search import bench_settings, print_table

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
}


def main() -> None:
    """Index docs/ into a private folder, then print the search and extractive-answer tables."""
    questions = load_questions()
    with tempfile.TemporaryDirectory(prefix="eval-") as tmp:
        settings = bench_settings(Path(tmp), "eval")
        index = CourseIndex(settings)
        Indexer(settings, index).sync(rebuild=True)
        content = [question for question in questions if question.kind in CONTENT_KINDS]
        strict: dict[str, list[int | None]] = defaultdict(list)
        lesson: dict[str, list[int | None]] = defaultdict(list)
        for question in content:
            passages = run_search(index, question)
            for kind in (question.kind, "all content"):
                strict[kind].append(question_rank(passages, question, holds))
                lesson[kind].append(question_rank(passages, question, in_lesson))
        kinds = [*CONTENT_KINDS, "all content"]
        print_table(
            f"Search layer, {len(content)} content questions, top {DEPTH} (strict: a returned passage holds "
            "the evidence phrase; lesson: a passage from the gold lesson; two-lesson: both by that rank)",
            ("kind", "n", "strict @1", "@5", "@10", "MRR@5", "lesson @1", "@5", "@10", "MRR@5"),
            [
                (kind, str(len(strict[kind])), *search_figures(strict[kind]), *search_figures(lesson[kind]))
                for kind in kinds
            ],
        )
        assistant = Assistant(settings, index)
        verdicts: dict[str, list[str]] = defaultdict(list)
        for question in questions:
            verdict = answer_verdict(question, assistant.answer(question.question))
            verdicts[question.kind].append(verdict)
            if verdict != "ok":
                print(f"  extractive {verdict}: {question.id}")
        print()
        print_table(
            "Extractive answers (no API key): ok = quotes the evidence phrase(s) / declines / answers from "
            "the outline; partial = one of two phrases, or only the right lesson cited",
            ("kind", "n", "ok", "partial", "miss", "ok means"),
            [
                (
                    kind,
                    str(len(values)),
                    f"{values.count('ok') / len(values):.2f}",
                    f"{values.count('partial') / len(values):.2f}",
                    f"{values.count('miss') / len(values):.2f}",
                    ANSWER_MEANING.get(kind, "quotes the evidence phrase"),
                )
                for kind, values in verdicts.items()
            ],
        )


if __name__ == "__main__":
    main()
