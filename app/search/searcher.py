"""Searcher: hybrid search over the live course versions (see ARCHITECTURE.md, "Index").

Constant-cost search. A ChromaDB query with a metadata filter costs time in proportion to the collection
(even a one-clause filter: 15 ms against 1.3 ms unfiltered at 4,000 chunks), so the common path has none:
a search over the whole library asks for a few more hits than needed, unfiltered, and keeps the chunks of
catalog versions (chunks being written, or left by a crash, are few). Only when too few are left does it
query with a filter: chunks carry a `live` flag that the write sets once its catalog flip is done, and a
course being written is marked `settling` in the catalog and admitted by its exact version meanwhile. A
search within one course scores that course's vectors exactly, in memory (`course_vectors`), keyed by
its catalog version.

Hybrid ranking. Every search also ranks the same scope by BM25 (`lexical`: exact words such as "efSearch"
or "CSRF" that vectors blur), and the two rankings are fused by reciprocal rank. A passage's score stays its
cosine similarity to the question, which the answerers read as relevance.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from app.config import Settings
from app.courses.timecodes import unpack_times
from app.search.catalog import CatalogEntry, CatalogSnapshot
from app.search.course_vectors import CourseChunks, CourseVectors, Hit, course_chunks
from app.search.embedding import Embedder
from app.search.ids import ChunkId
from app.search.lexical import CourseTerms, LexicalHit, LexicalIndex
from app.search.models import Passage
from app.search.store import CONTENT, ChromaStore

# Extra hits an unfiltered library search asks for, to make up for chunks that are not live.
OVERFETCH = 10
# Hybrid search: each ranking (dense, BM25) offers candidates (at least twice k), fused by reciprocal rank,
# 1 / (RRF_K + rank) summed over the rankings; 60 is the customary constant. Measured with `make eval` at k=5:
# 20 dense candidates rank no better than 10 and cost a slower vector query; 20 keyword candidates rather
# than 10 gave two more good extractive answers (cheap: BM25 scores every chunk anyway).
DENSE_CANDIDATES = 10
LEXICAL_CANDIDATES = 20
RRF_K = 60
Place = tuple[str, int, int]  # a chunk within the live library: (course id, lesson, chunk index)


def passage(hit: Hit) -> Passage:
    """Build a Passage from a hit, scored by cosine similarity."""
    metadata = hit.metadata
    return Passage(
        course_title=metadata["course_title"],
        course_link=metadata.get("course_link"),
        lesson_number=metadata["lesson_number"],
        lesson_title=metadata["lesson_title"],
        lesson_link=metadata.get("lesson_link"),
        chunk_index=metadata["chunk_index"],
        score=round(1 - hit.distance, 4),
        text=hit.document,
        sentence_times=unpack_times(metadata["sentence_times"]) if metadata.get("sentence_times") else None,
    )


def fused_ranking(dense: list[Hit], lexical: list[LexicalHit], k: int) -> list[Place]:
    """The k best chunks of both rankings by reciprocal rank fusion, best first."""
    fused: dict[Place, float] = {}
    for rank, hit in enumerate(dense, 1):
        fused[hit.chunk.place] = 1 / (RRF_K + rank)
    for rank, found in enumerate(lexical, 1):
        fused[found.place] = fused.get(found.place, 0.0) + 1 / (RRF_K + rank)
    return sorted(fused, key=lambda place: fused[place], reverse=True)[:k]


def exact(entry: CatalogEntry) -> dict[str, Any]:
    """A filter for the chunks of one course's catalog version."""
    return {"$and": [{"course_id": entry.record.id}, {"version": entry.version}]}


def live_filter(library: CatalogSnapshot, scope: list[CatalogEntry], course: str | None) -> dict[str, Any]:
    """A filter admitting only live chunks of the scope, whose size is not the library's.

    One named course: its exact version. Otherwise the `live` flag, plus the exact version of each course
    being written (usually none).
    """
    if course is not None:
        return exact(scope[0])
    settling = library.settling
    if not settling:
        return {"live": True}
    others = {"$and": [{"live": True}, {"course_id": {"$nin": [entry.record.id for entry in settling]}}]}
    return {"$or": [others, *(exact(entry) for entry in settling)]}


class Candidates(NamedTuple):
    """What a search ranks before fusion: the query's vector, the dense hits and the keyword hits."""

    vector: np.ndarray
    dense: list[Hit]
    lexical: list[LexicalHit]


class Searcher:
    """Rank a scope of the catalog's live chunks by meaning and by keyword, and fuse the two rankings."""

    def __init__(self, settings: Settings, store: ChromaStore, embedder: Embedder):
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.course_vectors = CourseVectors(self._load_course_chunks)
        self.lexical = LexicalIndex(self._load_course_terms, self._load_library_terms)

    def _run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a method of one of the two collections through the store."""
        return self.store.run(name, operation, **kwargs)

    def search(
        self,
        query: str,
        library: CatalogSnapshot,
        scope: list[CatalogEntry],
        course: str | None,
        lesson: int | None,
        k: int,
    ) -> list[Passage]:
        """The k best passages of the scope (one named course, or all courses with the lesson) for the query.

        Hybrid: the nearest chunks by meaning and the best by BM25, both within the same scope, fused by
        reciprocal rank.
        """
        candidates = self.candidates(query, library, scope, course, lesson, k)
        return self._fuse(candidates.dense, candidates.lexical, candidates.vector, k)

    def candidates(
        self,
        query: str,
        library: CatalogSnapshot,
        scope: list[CatalogEntry],
        course: str | None,
        lesson: int | None,
        k: int,
    ) -> Candidates:
        """The query's vector and both rankings of the scope that `search` fuses."""
        vector = self.embedder.embed_query(query)
        hybrid = self.settings.hybrid_search
        pool = max(DENSE_CANDIDATES, 2 * k) if hybrid else k
        if course is not None:
            dense = self.search_course(scope[0], vector, pool, lesson)
        elif lesson is None:
            dense = self._search_library(library, scope, vector, pool)
        else:
            dense = self.query(vector, pool, self._where(library, scope, course, lesson))
        lexical: list[LexicalHit] = []
        if hybrid:
            scope_ids = [entry.record.id for entry in scope]
            ranked = self.lexical.ranked(query, library, scope_ids, lesson, max(LEXICAL_CANDIDATES, 2 * k))
            # The keyword index may be a course version behind for a moment (see LexicalIndex._follow).
            lexical = [found for found in ranked if library.versions.get(found.course_id) == found.version]
        return Candidates(vector, dense, lexical)

    def corrected(self, text: str, library: CatalogSnapshot) -> str:
        """The text with misspelled words corrected towards the library's own words ("hypotesis")."""
        return self.lexical.corrected(text, library, self.embedder.vocabulary())

    def rarity(self, terms: list[str], library: CatalogSnapshot) -> dict[str, float]:
        """The idf of each stemmed term over the library's chunks (see LexicalIndex.rarity)."""
        return self.lexical.rarity(terms, library)

    def clear(self) -> None:
        """Forget every course held in memory (after the index was cleared)."""
        self.course_vectors.clear()
        self.lexical.clear()

    def _fuse(self, dense: list[Hit], lexical: list[LexicalHit], vector: np.ndarray, k: int) -> list[Passage]:
        """The k best of both rankings by reciprocal rank fusion, as passages."""
        hits = {hit.chunk.place: hit for hit in dense}
        best = fused_ranking(dense, lexical, k)
        # Keyword hits the dense ranking did not offer are read with their vectors, for their cosine score.
        missing = {
            str(ChunkId(found.course_id, *found.key, found.version))
            for found in lexical
            if found.place in best and found.place not in hits
        }
        if missing:
            hits.update((hit.chunk.place, hit) for hit in self._read_hits(sorted(missing), vector))
        return [passage(hits[place]) for place in best if place in hits]

    def _read_hits(self, ids: list[str], vector: np.ndarray) -> list[Hit]:
        """Chunks by id as hits: text, metadata and cosine distance to the query vector."""
        chunks = course_chunks(
            self._run(CONTENT, "get", ids=ids, include=["documents", "metadatas", "embeddings"])
        )
        return chunks.top(vector, len(ids))

    def _load_course_terms(self, course_id: str, version: str) -> CourseTerms:
        """Read one course version's chunk texts and count their terms."""
        where = {"$and": [{"course_id": course_id}, {"version": version}]}
        result = self._run(CONTENT, "get", where=where, include=["documents", "metadatas"])
        return CourseTerms.build(zip(result["documents"], result["metadatas"], strict=True))

    def _load_library_terms(self, versions: dict[str, str]) -> dict[str, CourseTerms]:
        """Read every chunk in one pass and count the terms of each course's wanted version."""
        result = self._run(CONTENT, "get", include=["documents", "metadatas"])
        by_course: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for document, metadata in zip(result["documents"], result["metadatas"], strict=True):
            course_id = str(metadata.get("course_id"))
            if versions.get(course_id) == metadata.get("version"):
                by_course.setdefault(course_id, []).append((document, metadata))
        return {course_id: CourseTerms.build(chunks) for course_id, chunks in by_course.items()}

    def search_course(self, entry: CatalogEntry, vector: np.ndarray, k: int, lesson: int | None) -> list[Hit]:
        """Search one course exactly, over its live version's vectors held in memory."""
        chunks = self.course_vectors.get(entry.record.id, entry.version, entry.record.chunk_count)
        return chunks.top(vector, k, lesson)

    def _load_course_chunks(self, course_id: str, version: str) -> CourseChunks:
        """Read one course version's chunks with their vectors from the store."""
        where = {"$and": [{"course_id": course_id}, {"version": version}]}
        return course_chunks(
            self._run(CONTENT, "get", where=where, include=["documents", "metadatas", "embeddings"])
        )

    def _search_library(
        self, library: CatalogSnapshot, scope: list[CatalogEntry], vector: np.ndarray, k: int
    ) -> list[Hit]:
        """Search every course unfiltered, keeping catalog versions only; filter only when that falls short.

        An unfiltered query costs the vector search alone at any library size; the chunks it may also return
        (a course being written, leftovers of a crash) are few, so asking for a few more covers them.
        """
        live = {entry.record.id: entry.version for entry in scope}
        fetched = k + OVERFETCH
        hits = self.query(vector, fetched, None)
        admitted = [
            hit for hit in hits if live.get(str(hit.metadata.get("course_id"))) == hit.metadata.get("version")
        ]
        if len(admitted) >= k or len(hits) < fetched:
            return admitted[:k]
        return self.query(vector, k, self._where(library, scope, None, None))

    def query(self, vector: np.ndarray, k: int, where: dict[str, Any] | None) -> list[Hit]:
        """One ChromaDB query: (document, metadata, cosine distance) per hit, best first."""
        result = self._run(
            CONTENT,
            "query",
            query_embeddings=[vector],
            n_results=k,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        return [
            Hit(*found)
            for found in zip(
                result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
            )
        ]

    @staticmethod
    def _where(
        library: CatalogSnapshot, scope: list[CatalogEntry], course: str | None, lesson: int | None
    ) -> dict[str, Any]:
        """The live filter of the scope, narrowed to the lesson when given."""
        where = live_filter(library, scope, course)
        return where if lesson is None else {"$and": [where, {"lesson_number": lesson}]}
