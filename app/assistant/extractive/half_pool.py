"""How much one half of a comparison reads: its ten best passages, and as many sentences of each as a whole
question reads.

A half has fewer words than a whole question ("which sauces do the French chefs use?" against the question
naming both cuisines), so its passages rank less surely: over our labelled comparisons, the passage that
answers a half sat 6th to 10th among the half's passages, past the five the search tool returns, when the
half's first five spoke of its subject without answering it (`python -m bench.eval_halves` lists where each
comparison loses a quote). A half therefore reads its next five too, straight from the index, after the
tool's five, as `retrieve.wider` does for a whole question. Its reading budget grows with them: with the
same twenty sentences spread over ten passages, the first passages' answering sentences went unread.

Two clauses of one question about one thing ("when was the mill built, and what did it grind?": the second
names the first's subject by a pronoun, and both search the same place) read only the tool's five: such a
clause has fewer words still, and among its next five a sentence that says the subject's words (another year
of the mill's) outscored the answer of the first five. Measured, no margin or floor on the extra passages'
scores tells the two apart: a comparison's answer in its 8th passage beat its first five by less than such a
question's wrong sentence did.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from app.assistant.extractive.antecedent import FRONTED_RE
from app.assistant.extractive.budget import MAX_EMBEDDED
from app.assistant.extractive.retrieve import next_best
from app.search.models import CourseRecord, Passage

if TYPE_CHECKING:
    from app.search.index import CourseIndex

# A pronoun standing for the subject; a possessive ("burning his boats") comes with its own thing.
POINTER_RE = re.compile(r"\b(?:it|they|them|he|she|him)\b", re.IGNORECASE)
# The passages one half reads, and the sentences a half reading them all reads for meaning per passage (a
# whole answer reads MAX_EMBEDDED of the tool's five, four each): at four, a labelled comparison's answering
# sentence in a half's 9th passage went unread (`python -m bench.eval_halves --dense`), read at six. Two
# clauses about one thing read the tool's five as a whole answer does: more read there let a wrong one in.
HALF_PASSAGES = 10
READ_PER_PASSAGE = 6


def two_things(topics: tuple[str, str], places: tuple[object, object]) -> bool:
    """True for halves that ask about two things; False for two clauses of one question about one thing:
    both search the same place and one names its subject only by a pronoun."""
    return places[0] != places[1] or not any(_pointing(topic) for topic in topics)


def _pointing(topic: str) -> bool:
    """True for a half that names its subject by a pronoun and not before asking ("caching: how is it …")."""
    return POINTER_RE.search(topic) is not None and FRONTED_RE.match(topic) is None


def half_passages(
    index: CourseIndex,
    query: str,
    course: CourseRecord | None,
    lesson: int | None,
    found: list[Passage],
    wide: bool = True,
) -> list[Passage]:
    """The passages the search tool found for a half, then (when `wide`) its next best up to HALF_PASSAGES
    in all."""
    if not found or not wide:
        return found
    title = course.title if course is not None else None
    return found + next_best(index, query, title, lesson, found, HALF_PASSAGES)[: HALF_PASSAGES - len(found)]


def half_reading(passages: list[Passage], wide: bool = True) -> int:
    """How many of a half's sentences are read for meaning: READ_PER_PASSAGE of each of its passages when it
    reads past the tool's five (`wide`), else what a whole answer reads."""
    return max(MAX_EMBEDDED, READ_PER_PASSAGE * len(passages)) if wide else MAX_EMBEDDED
