"""BM25 keyword ranking over the live chunks, kept per course version and updated one course at a time.

Dense vectors miss exact terms ("efSearch", "CSRF", a function name); BM25 ranks by them. The index holds
each course's live version only (what the catalog points at), so a write half-done is never returned, and
it follows the catalog: a changed course is re-read alone, never the whole library. Collection statistics
(document frequencies, average length) are summed over the courses held, so adding one course costs that
course. Scoring is Okapi BM25 with Lucene's non-negative idf.

BM25 is a few lines of arithmetic on term counts; a library for it (bm25s) would bring scipy into every
worker (+27 MB resident, +0.18 s import) and rebuild its whole matrix on every course change.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.search.names import FUNCTION_WORDS, stem, tokens

# Okapi BM25's usual constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
# A chunk's key within its course version: (lesson number, chunk index).
ChunkKey = tuple[int, int]


def lexical_terms(text: str) -> list[str]:
    """The stemmed, lower-cased words of a text, without function words ("the", "how")."""
    return [stem(word) for word in tokens(text) if word.lower() not in FUNCTION_WORDS]


@dataclass(frozen=True)
class CourseTerms:
    """One course version's chunks as term counts: postings per term, lengths, lessons and keys."""

    keys: list[ChunkKey]
    lessons: np.ndarray
    lengths: np.ndarray
    postings: dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (rows, counts)

    @classmethod
    def build(cls, chunks: Iterable[tuple[str, dict[str, Any]]]) -> CourseTerms:
        """Count the terms of each chunk (its text with its course and lesson titles)."""
        keys: list[ChunkKey] = []
        lengths: list[int] = []
        rows_by_term: dict[str, list[tuple[int, int]]] = {}
        for row, (text, metadata) in enumerate(chunks):
            keys.append((int(metadata["lesson_number"]), int(metadata["chunk_index"])))
            terms = lexical_terms(
                f"{metadata.get('course_title', '')} {metadata.get('lesson_title', '')} {text}"
            )
            lengths.append(len(terms))
            for term, count in Counter(terms).items():
                rows_by_term.setdefault(term, []).append((row, count))
        postings = {
            term: (
                np.array([row for row, _ in pairs], dtype=np.int32),
                np.array([n for _, n in pairs], float),
            )
            for term, pairs in rows_by_term.items()
        }
        return cls(keys, np.array([lesson for lesson, _ in keys]), np.array(lengths, float), postings)

    def scores(self, weights: dict[str, float], average_length: float, lesson: int | None) -> np.ndarray:
        """BM25 of every chunk for the query terms' idf `weights` (chunks outside the lesson score 0)."""
        total = np.zeros(len(self.keys))
        norm = K1 * (1 - B + B * self.lengths / average_length)
        for term, idf in weights.items():
            if term in self.postings:
                rows, counts = self.postings[term]
                total[rows] += idf * counts * (K1 + 1) / (counts + norm[rows])
        if lesson is not None:
            total[self.lessons != lesson] = 0.0
        return total


@dataclass(frozen=True)
class LexicalHit:
    """A chunk ranked by BM25: its course, version, key and score."""

    course_id: str
    version: str
    key: ChunkKey
    score: float


class LexicalIndex:
    """BM25 over the live version of every course, following the catalog one changed course at a time."""

    def __init__(
        self,
        load_course: Callable[[str, str], CourseTerms],
        load_all: Callable[[dict[str, str]], dict[str, CourseTerms]],
    ):
        self._load_course = load_course
        self._load_all = load_all
        self._lock = threading.Lock()
        self._courses: dict[str, tuple[str, CourseTerms]] = {}  # course id -> (version, terms)
        self._frequencies: Counter[str] = Counter()
        self._chunks = 0
        self._length = 0.0
        self._followed: dict[str, str] | None = None

    def ranked(
        self, query: str, library: dict[str, str], scope: Iterable[str], lesson: int | None, limit: int
    ) -> list[LexicalHit]:
        """Up to `limit` chunks of the `scope` courses sharing a word with the query, best first.

        `library` maps every catalog course to its live version: the statistics are the whole library's,
        whatever the scope, so a score means the same in a course search as in a library search.
        """
        terms = set(lexical_terms(query))
        if not terms:
            return []
        with self._lock:
            self._follow(library)
            weights = {term: self._idf(term) for term in terms if self._frequencies[term] > 0}
            average = self._length / max(self._chunks, 1) or 1.0
            found: list[LexicalHit] = []
            for course_id in scope:
                version, course = self._courses[course_id]
                if not any(term in course.postings for term in weights):
                    continue
                scores = course.scores(weights, average, lesson)
                best = np.flatnonzero(scores)
                if len(best) > limit:
                    best = best[np.argpartition(-scores[best], limit)[:limit]]
                found += [
                    LexicalHit(course_id, version, course.keys[row], float(scores[row])) for row in best
                ]
        found.sort(key=lambda hit: hit.score, reverse=True)
        return found[:limit]

    def clear(self) -> None:
        """Forget every course (after the index was cleared)."""
        with self._lock:
            self._courses.clear()
            self._frequencies.clear()
            self._chunks, self._length = 0, 0.0
            self._followed = None

    def _idf(self, term: str) -> float:
        """Lucene's BM25 idf: rare terms weigh more, and no term weighs less than nothing."""
        frequency = self._frequencies[term]
        return math.log(1 + (self._chunks - frequency + 0.5) / (frequency + 0.5))

    def _follow(self, live: dict[str, str]) -> None:
        """Hold exactly the given course versions: load what changed, drop what is gone."""
        if live is self._followed:  # the common case: the same catalog as the last search
            return
        held = {course_id: version for course_id, (version, _) in self._courses.items()}
        for course_id in held.keys() - live.keys():
            self._drop(course_id)
        changed = {
            course_id: version for course_id, version in live.items() if held.get(course_id) != version
        }
        # A cold start reads the library in one pass; later changes read only the courses that changed.
        loaded = self._load_all(changed) if not held else {}
        for course_id, version in changed.items():
            self._drop(course_id)
            self._add(course_id, version, loaded.get(course_id) or self._load_course(course_id, version))
        self._followed = live

    def _add(self, course_id: str, version: str, course: CourseTerms) -> None:
        """Hold one course version and add its statistics."""
        self._courses[course_id] = (version, course)
        self._frequencies.update({term: len(rows) for term, (rows, _) in course.postings.items()})
        self._chunks += len(course.keys)
        self._length += float(course.lengths.sum())

    def _drop(self, course_id: str) -> None:
        """Stop holding a course and subtract its statistics."""
        if course_id not in self._courses:
            return
        _, course = self._courses.pop(course_id)
        self._frequencies.subtract({term: len(rows) for term, (rows, _) in course.postings.items()})
        self._chunks -= len(course.keys)
        self._length -= float(course.lengths.sum())
