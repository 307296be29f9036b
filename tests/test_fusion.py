"""Hybrid search fuses by score: a candidate's cosine blended with its BM25 score relative to the best one."""

from __future__ import annotations

import numpy as np
import pytest

from app.config import Settings
from app.search.course_vectors import Hit
from app.search.index import CourseIndex
from app.search.lexical import LexicalHit
from app.search.searcher import (
    DENSE_WEIGHT,
    LEXICAL_CANDIDATES,
    Candidates,
    Searcher,
    SearchRequest,
    fused_ranking,
    fused_scores,
)
from tests.helpers import Library
from tests.test_index import TEST_COURSES

QUERY = "which cutoff date does the knowledge of a model have"


def keyword(lesson: int, chunk: int, score: float) -> LexicalHit:
    """A BM25 hit on a chunk of the course "kitchen"."""
    return LexicalHit("kitchen", "v1", (lesson, chunk), score)


def test_a_far_better_keyword_match_beats_a_near_tie_in_meaning():
    # Each ranking puts the other's first second: reciprocal ranks would tie, and the order of the
    # dense ranking would decide. The scores say more: chunk 2 holds the question's words far better.
    cosines = {("kitchen", 1, 1): 0.52, ("kitchen", 1, 2): 0.50}
    lexical = [keyword(1, 2, 9.0), keyword(1, 1, 1.5)]
    assert fused_ranking(cosines, lexical, 2) == [("kitchen", 1, 2), ("kitchen", 1, 1)]
    scores = fused_scores(cosines, lexical)
    assert scores[("kitchen", 1, 2)] == pytest.approx(DENSE_WEIGHT * 0.50 + (1 - DENSE_WEIGHT) * 1.0)
    assert scores[("kitchen", 1, 1)] == pytest.approx(DENSE_WEIGHT * 0.52 + (1 - DENSE_WEIGHT) * 1.5 / 9.0)


def test_without_keyword_hits_the_order_is_by_meaning():
    cosines = {("kitchen", 1, 0): 0.31, ("kitchen", 2, 0): 0.64, ("kitchen", 3, 0): 0.47}
    assert fused_ranking(cosines, [], 2) == [("kitchen", 2, 0), ("kitchen", 3, 0)]


def test_a_much_closer_meaning_still_beats_a_weak_keyword_match():
    # The keyword hit's BM25 is its best relative to itself (1.0) only when it is the best keyword hit;
    # here a chunk far closer in meaning that shares fewer words stays ahead of a passing mention.
    cosines = {("kitchen", 1, 0): 0.80, ("kitchen", 2, 0): 0.20}
    lexical = [keyword(1, 0, 4.0), keyword(2, 0, 5.0)]
    assert fused_ranking(cosines, lexical, 2) == [("kitchen", 1, 0), ("kitchen", 2, 0)]


def test_keyword_only_candidates_are_scored_from_the_course_vectors_in_memory(tmp_path):
    # Small chunks: many more than the dense ranking offers.
    index = Library.indexed(tmp_path, TEST_COURSES, chunk_size=200, chunk_overlap=50).index
    # QUERY occurs once in the test courses, and meaning alone does not find it (see test_lexical).
    library = index.catalog.snapshot()
    candidates = index.searcher.candidates(SearchRequest(QUERY, library, library.entries, None, None, 5))
    offered = {hit.chunk.place for hit in candidates.dense}
    titles = {entry.record.id: entry.record.title for entry in library.entries}
    keyword_only = {
        (titles[found.course_id], *found.key) for found in candidates.lexical if found.place not in offered
    }
    first = index.search(QUERY)
    # Some passage returned was offered by the keyword ranking alone, so its cosine had to be found.
    assert keyword_only & {(p.course_title, p.lesson_number, p.chunk_index) for p in first}
    reads: list[str] = []
    run = index.store.run

    def counted(name: str, operation: str, /, **kwargs):
        reads.append(operation)
        return run(name, operation, **kwargs)

    index.store.run = counted  # type: ignore[method-assign]
    # Once each course's vectors are in memory, no chunk is read from the store again for a keyword hit.
    assert [passage.text for passage in index.search(QUERY)] == [passage.text for passage in first]
    assert "get" not in reads
    assert "cutoff date" in first[0].text
    # The score stays the cosine similarity, for keyword-only candidates too.
    dense = CourseIndex(index.settings.model_copy(update={"hybrid_search": False}), embedder=index.embedder)
    by_meaning = {passage.text: passage.score for passage in dense.search(QUERY, k=50)}
    assert [passage.score for passage in first] == [by_meaning[passage.text] for passage in first]


def dense_hit(lesson: int, chunk: int, cosine: float) -> Hit:
    """A dense hit on a chunk of the course "kitchen"."""
    metadata = {
        "course_id": "kitchen",
        "course_title": "Kitchen",
        "lesson_number": lesson,
        "lesson_title": f"Lesson {lesson}",
        "chunk_index": chunk,
        "version": "v1",
    }
    return Hit(f"text of chunk {lesson}.{chunk}", metadata, 1.0 - cosine)


def test_keyword_credit_reaches_past_the_keyword_candidates():
    # Chunk 2.0 is close in meaning and shares the question's words, but less than the 20 chunks that repeat
    # them (keyword rank 21). Its credit must not depend on how many keyword candidates k brings, or it falls
    # behind chunks that share the words and not the meaning at a small k only.
    repeating = [dense_hit(1, chunk, 0.40 if chunk == 0 else 0.10) for chunk in range(LEXICAL_CANDIDATES)]
    lexical = [keyword(1, chunk, 10.0) for chunk in range(LEXICAL_CANDIDATES)] + [keyword(2, 0, 8.0)]
    candidates = Candidates(np.zeros(3), [*repeating, dense_hit(2, 0, 0.60)], lexical, LEXICAL_CANDIDATES)
    searcher = Searcher(Settings(), store=None, embedder=None)  # type: ignore[arg-type]
    ranked = searcher.fuse(candidates, [], 3)
    # 0.6 * 0.60 + 0.4 * 8 / 10 = 0.68: ahead of chunk 1.0 (0.64) and of the repeating chunks (0.46).
    assert [(found.lesson_number, found.chunk_index) for found in ranked] == [(2, 0), (1, 0), (1, 1)]
    assert ranked[0].score == pytest.approx(0.60, abs=1e-4)  # the score stays the cosine
