"""How much one half of a comparison reads: its ten best passages, and as many sentences of each as a whole
question reads.

A half has fewer words than a whole question ("which sauces do the French chefs use?" against the question
naming both cuisines), so its passages rank less surely: over our labelled comparisons, the passage that
answers a half sat 6th to 10th among the half's passages, past the five the search tool returns, when the
half's first five spoke of its subject without answering it (`python -m bench.eval_halves` lists where each
comparison loses a quote). A half therefore reads its next five too, straight from the index, after the
tool's five, as `retrieve.wider` does for a whole question. Its reading budget grows with them: with the
same twenty sentences spread over ten passages, the first passages' answering sentences went unread.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.assistant.extractive.budget import MAX_EMBEDDED
from app.assistant.extractive.retrieve import next_best
from app.search.models import CourseRecord, Passage

if TYPE_CHECKING:
    from app.search.index import CourseIndex

# The passages one half reads, and the sentences a half reading them all reads for meaning per passage (a
# whole answer reads MAX_EMBEDDED of the tool's five, four each): at four, a labelled comparison's answering
# sentence in a half's 9th passage went unread (`python -m bench.eval_halves --dense`), read at six.
HALF_PASSAGES = 10
READ_PER_PASSAGE = 6


def half_passages(
    index: CourseIndex,
    query: str,
    course: CourseRecord | None,
    lesson: int | None,
    found: list[Passage],
) -> list[Passage]:
    """The passages the search tool found for a half, then its next best up to HALF_PASSAGES in all."""
    if not found:
        return found
    title = course.title if course is not None else None
    return found + next_best(index, query, title, lesson, found, HALF_PASSAGES)[: HALF_PASSAGES - len(found)]


def half_reading(passages: list[Passage]) -> int:
    """How many of a half's sentences are read for meaning: READ_PER_PASSAGE of each of its passages, at
    least what a whole answer reads."""
    return max(MAX_EMBEDDED, READ_PER_PASSAGE * len(passages))
