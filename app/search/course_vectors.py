"""Exact search within one course, over its chunk vectors held in memory (a few recently searched courses).

A ChromaDB query with a metadata filter costs time in proportion to the whole collection, however few chunks
the filter admits; one course is small enough to score exactly with one matrix product instead.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from app.search.ids import ChunkId

# Courses kept in memory per process: ~125 chunks x 384 floats is ~190 KB a course.
CACHED_COURSES = 64


class Hit(NamedTuple):
    """A search hit: the chunk's text, its metadata and its cosine distance to the query."""

    document: str
    metadata: dict[str, Any]
    distance: float

    @property
    def chunk(self) -> ChunkId:
        """The id of the chunk hit."""
        return ChunkId.from_metadata(self.metadata)


@dataclass(frozen=True)
class CourseChunks:
    """One course version's chunks: texts, metadata and unit-length vectors, row for row."""

    documents: list[str]
    metadatas: list[dict[str, Any]]
    vectors: np.ndarray

    def top(self, query: np.ndarray, k: int, lesson: int | None = None) -> list[Hit]:
        """The k chunks closest to the query, within the lesson when given, best first."""
        rows = np.arange(len(self.documents))
        if lesson is not None:
            rows = np.array(
                [row for row in rows if self.metadatas[row]["lesson_number"] == lesson], dtype=int
            )
        if not len(rows):
            return []
        vector = np.asarray(query, dtype=np.float32)
        similarity = self.vectors[rows] @ (vector / (np.linalg.norm(vector) or 1.0))
        best = np.argsort(-similarity, kind="stable")[:k]
        return [
            Hit(self.documents[rows[i]], self.metadatas[rows[i]], float(1.0 - similarity[i])) for i in best
        ]

    @functools.cached_property
    def _rows(self) -> dict[tuple[int, int], int]:
        """The row of each chunk by (lesson number, chunk index)."""
        return {
            (int(metadata["lesson_number"]), int(metadata["chunk_index"])): row
            for row, metadata in enumerate(self.metadatas)
        }

    def hits(self, query: np.ndarray, keys: Iterable[tuple[int, int]]) -> list[Hit]:
        """The chunks of the given (lesson, chunk index) keys as hits scored against the query (unknown keys
        left out)."""
        rows = [self._rows[key] for key in keys if key in self._rows]
        vector = np.asarray(query, dtype=np.float32)
        similarity = self.vectors[rows] @ (vector / (np.linalg.norm(vector) or 1.0))
        return [
            Hit(self.documents[row], self.metadatas[row], float(1.0 - score))
            for row, score in zip(rows, similarity, strict=True)
        ]


class CourseVectors:
    """A bounded, thread-safe cache of CourseChunks by course version, loaded on first use.

    Keyed by the catalog's chunk count too: a version's chunks never change once it is live, and the count
    keeps a course apart from a write of the same version that a crash cut short.
    """

    def __init__(self, load: Callable[[str, str], CourseChunks], size: int = CACHED_COURSES):
        self._load = load
        self._size = size
        self._cache: OrderedDict[tuple[str, str, int], CourseChunks] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, course_id: str, version: str, chunk_count: int) -> CourseChunks:
        """The chunks of a course version (a version's chunks never change: the key keeps them fresh)."""
        key = (course_id, version, chunk_count)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        chunks = self._load(course_id, version)
        with self._lock:
            self._cache[key] = chunks
            self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return chunks

    def clear(self) -> None:
        """Forget every course (after the index was cleared)."""
        with self._lock:
            self._cache.clear()


def course_chunks(result: dict[str, Any]) -> CourseChunks:
    """CourseChunks from a ChromaDB `get` with documents, metadatas and embeddings."""
    vectors = np.asarray(result["embeddings"], dtype=np.float32).reshape(len(result["ids"]), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return CourseChunks(
        list(result["documents"]), list(result["metadatas"]), vectors / np.where(norms, norms, 1.0)
    )
