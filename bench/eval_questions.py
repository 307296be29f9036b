"""The labelled questions of both eval libraries, read into one shape: kind, gold passages, expected text."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.assistant.extractive.render import TIME_LINK

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "eval" / "questions.yaml"
LECTURES = ROOT / "eval" / "lectures"
# The lecture set's questions reworded by the team (eval/reworded/README.md).
REWORDED = ROOT / "eval" / "reworded"
# The sample library's questions reworded by the team (eval/sample-reworded/README.md).
SAMPLE_REWORDED = ROOT / "eval" / "sample-reworded" / "questions.yaml"
# The sample library's kinds of questions answered by passages (two_lesson needs two of them).
CONTENT_KINDS = ("paraphrase", "definition", "typo", "loose_course", "lesson_number", "two_lesson")
# The lecture set's kinds, renamed to the sample library's where they mean the same.
LECTURE_KINDS = {"content": "content", "cross": "two_lesson", "absent": "no_coverage"}
# Kinds that are not searched for a gold passage: the answer's text, or its absence, is what counts.
UNSEARCHED = ("outline", "no_coverage", "general", "follow_up")


@dataclass(frozen=True)
class Gold:
    """One passage a question needs: its course title, lesson number and a verbatim phrase of it."""

    course: str
    lesson: int
    evidence: str


@dataclass
class Question:
    """A labelled question: its kind, gold passages, search filter, and what an outline answer must say.

    `history` holds the earlier turns of a follow-up (asked first, in the same conversation);
    `ignore_case` says whether evidence is matched case-insensitively (the lecture set's rule).
    """

    id: str
    kind: str
    question: str
    gold: list[Gold] = field(default_factory=list)
    filter: dict[str, Any] = field(default_factory=dict)
    course: str | None = None
    expect: list[str] = field(default_factory=list)
    expect_pattern: str | None = None
    history: list[str] = field(default_factory=list)
    ignore_case: bool = False

    @property
    def searched(self) -> bool:
        """Whether the search layer is scored on it: a single question with gold passages."""
        return bool(self.gold) and self.kind not in UNSEARCHED


def flat(text: str) -> str:
    """Text with quotations' times, markdown escapes and entities dropped and whitespace collapsed, for
    verbatim comparison."""
    return " ".join(html.unescape(TIME_LINK.sub("", text).replace("\\", "")).split())


def contains(text: str, phrase: str, ignore_case: bool = False) -> bool:
    """Whether `phrase` occurs in `text` once both are flattened (and lower-cased when `ignore_case`)."""
    if ignore_case:
        return flat(phrase).lower() in flat(text).lower()
    return flat(phrase) in flat(text)


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    """Read the sample library's question file; a content question's single gold may be given inline."""
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
                history=item.get("history", []),
            )
        )
        if item["kind"] == "follow_up":
            # Graded like the lecture set's follow-ups: the phrase (or lesson title) anywhere in the answer.
            questions[-1].expect = [item["evidence"]]
    return questions


def _records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _lecture_question(item: dict[str, Any]) -> Question:
    """One single-turn lecture-set record as a Question (cross items become two gold passages)."""
    kind = LECTURE_KINDS.get(item["kind"], item["kind"])
    question = Question(id=item["id"], kind=kind, question=item["question"], ignore_case=True)
    if item["kind"] == "content":
        # Every content item of the set names one lesson (its checker allows more; the first is scored).
        question.gold = [Gold(item["course"], item["lessons"][0], item["evidence"])]
    elif item["kind"] == "cross":
        question.gold = [
            Gold(course, lesson, evidence)
            for course, lesson, evidence in zip(
                item["course"], item["lessons"], item["evidence"], strict=True
            )
        ]
    elif item["kind"] == "outline":
        question.course, question.expect = item["course"], [item["evidence"]]
    return question


def _follow_up(item: dict[str, Any]) -> Question:
    """A two-turn lecture-set record: the follow-up, asked after its first turn in the same conversation."""
    first, second = item["turns"]
    question = Question(id=item["id"], kind="follow_up", question=second, history=[first], ignore_case=True)
    question.course = item["course"]
    if item["lessons_for_followup"]:
        lesson = item["lessons_for_followup"][0]
        question.gold = [Gold(item["course"], lesson, item["evidence_for_followup"])]
    # A lesson title or a header value counts wherever the answer says it; a phrase counts the same way.
    question.expect = [item["evidence_for_followup"]]
    return question


def load_lectures(folder: Path = LECTURES) -> list[Question]:
    """The lecture set: its single-turn questions, then its follow-up pairs."""
    singles = [_lecture_question(item) for item in _records(folder / "questions.jsonl")]
    return singles + [_follow_up(item) for item in _records(folder / "multiturn.jsonl")]
