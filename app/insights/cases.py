"""Run the test cases saved in the retrieval playground: is the gold lesson ranked, is the evidence found?"""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import AppError
from app.search.index import CourseIndex
from app.search.models import Passage
from app.store.records import SavedCase

DEPTH = 5


@dataclass(frozen=True)
class CaseResult:
    """How search did on one saved case; `rank` is the gold lesson's first place in the top DEPTH."""

    case: SavedCase
    rank: int | None
    evidence_found: bool | None  # None: the case names no evidence
    error: str | None = None

    @property
    def hit_at_1(self) -> bool:
        """The gold lesson came first."""
        return self.rank == 1

    @property
    def hit_at_5(self) -> bool:
        """The gold lesson was in the top five."""
        return self.rank is not None and self.rank <= DEPTH


@dataclass(frozen=True)
class CasesReport:
    """Every saved case's result and the totals."""

    results: list[CaseResult]

    @property
    def hits_at_1(self) -> int:
        """Cases whose gold lesson came first."""
        return sum(result.hit_at_1 for result in self.results)

    @property
    def hits_at_5(self) -> int:
        """Cases whose gold lesson was in the top five."""
        return sum(result.hit_at_5 for result in self.results)

    @property
    def with_evidence(self) -> int:
        """Cases that name evidence."""
        return sum(result.evidence_found is not None for result in self.results)

    @property
    def evidence_found(self) -> int:
        """Cases whose evidence was in the top five passages."""
        return sum(bool(result.evidence_found) for result in self.results)


def flat(text: str) -> str:
    """Text with markdown escapes dropped, whitespace collapsed and case ignored, for verbatim comparison."""
    return " ".join(text.replace("\\", "").split()).lower()


def evidence_lines(evidence: str) -> list[str]:
    """The evidence a case names: one sentence or phrase per line."""
    return [flat(line) for line in evidence.splitlines() if line.strip()]


def _gold(case: SavedCase, passage: Passage) -> bool:
    """The passage is from the case's gold lesson (or gold course, when no lesson was chosen)."""
    same_course = passage.course_title == case.gold_course
    return same_course and (case.gold_lesson is None or passage.lesson_number == case.gold_lesson)


def score_case(index: CourseIndex, case: SavedCase) -> CaseResult:
    """Search the whole library for the case's question and score the top DEPTH passages."""
    try:
        passages = index.search(case.question, k=DEPTH)
    except AppError as exc:
        return CaseResult(case, None, None, error=exc.message)
    rank = next((number for number, passage in enumerate(passages, 1) if _gold(case, passage)), None)
    wanted = evidence_lines(case.evidence)
    found = None
    if wanted:
        text = " ".join(flat(passage.text) for passage in passages)
        found = all(line in text for line in wanted)
    return CaseResult(case, rank, found)


def score_cases(index: CourseIndex, cases: list[SavedCase]) -> CasesReport:
    """Score every saved case."""
    return CasesReport([score_case(index, case) for case in cases])


def report_lines(report: CasesReport) -> list[str]:
    """The report as text: a line per case, then hit@1, hit@5 and evidence@5."""
    if not report.results:
        return ["No saved test cases. Save one from the retrieval playground (/admin/playground)."]
    lines = []
    for result in report.results:
        case = result.case
        gold = (
            f"{case.gold_course}, lesson {case.gold_lesson}"
            if case.gold_lesson is not None
            else case.gold_course
        )
        rank = f"rank {result.rank}" if result.rank else f"not in top {DEPTH}"
        evidence = {None: "no evidence", True: "evidence found", False: "evidence missing"}[
            result.evidence_found
        ]
        outcome = f"error: {result.error}" if result.error else f"{rank}, {evidence}"
        lines.append(f"#{case.id} {case.question!r} -> {gold}: {outcome}")
    total = len(report.results)
    lines.append(
        f"saved cases: {total}  hit@1 {report.hits_at_1}/{total}  hit@{DEPTH} {report.hits_at_5}/{total}  "
        f"evidence@{DEPTH} {report.evidence_found}/{report.with_evidence}"
    )
    return lines
