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
or "CSRF" that vectors blur), and the candidates of both are fused by score: each one's cosine similarity to
the question blended with its BM25 score relative to the best keyword candidate's. A passage's score stays
its cosine similarity to the question, which the answerers read as relevance. With RERANKER_MODEL set, a
cross-encoder re-orders the fused ranking's best candidates before the k best are kept (`rerank.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from app.config import Settings
from app.courses.timecodes import unpack_times
from app.search.catalog import CatalogEntry, CatalogSnapshot
from app.search.course_vectors import CourseChunks, CourseVectors, Hit, course_chunks
from app.search.embedding import Embedder
from app.search.lexical import CourseTerms, LexicalHit, LexicalIndex
from app.search.models import Passage
from app.search.rerank import Reranker
from app.search.store import CONTENT, ChromaStore

# Extra hits an unfiltered library search asks for, to make up for chunks that are not live.
OVERFETCH = 10
# Hybrid search: each ranking (dense, BM25) offers candidates (at least twice k). Measured with `make eval`
# at k=5: 20 dense candidates rank no better than 10 and cost a slower vector query; 20 keyword candidates
# rather than 10 gave two more good extractive answers (cheap: BM25 scores every chunk anyway).
DENSE_CANDIDATES = 10
LEXICAL_CANDIDATES = 20
# Keyword credit reaches deeper than the keyword candidates: a chunk found by meaning gets its BM25 score
# if it ranks within this depth by keywords, so whether it gets credit does not depend on how many results
# were asked for (a chunk 2nd by meaning and 27th by keywords had none at k=10 and some at k=40). 100 deep
# costs nothing measurable (the hits are read in one pass); the scores are BM25's over every chunk anyway.
KEYWORD_DEPTH = 100
# Every candidate of either ranking is scored DENSE_WEIGHT * cosine + (1 - DENSE_WEIGHT) * BM25 / best BM25
# (the keyword part scaled by the question's coverage, `fused_scores`).
# Fused by score rather than by reciprocal rank: a chunk that matches the question's rare words far better
# than the others (BM25 1.0) wins over one that is merely a little closer in meaning, which ranks cannot
# tell from a near tie. 0.6 was fitted on the sample library (best MRR@5 there, 0.5-0.7 all within 0.01)
# and checked on the lecture set (strict hit@1 0.52 -> 0.65, MRR@5 0.67 -> 0.77).
DENSE_WEIGHT = 0.6
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


def fused_scores(
    cosines: dict[Place, float], lexical: list[LexicalHit], coverage: float = 1.0
) -> dict[Place, float]:
    """Each candidate's fused score: its cosine blended with its BM25 score relative to the best one's, the
    latter weighted by the `coverage` of the question's words (`LexicalIndex.coverage`)."""
    best = max((found.score for found in lexical), default=0.0)
    keyword = {found.place: found.score / best for found in lexical} if best > 0 else {}
    # Keywords weigh as much of the question as they can see: words the library never says in any spelling
    # ("UK" for a course that says "England") are matched by meaning alone.
    share = (1 - DENSE_WEIGHT) * coverage
    return {
        place: DENSE_WEIGHT * cosine + share * keyword.get(place, 0.0) for place, cosine in cosines.items()
    }


def fused_ranking(
    cosines: dict[Place, float], lexical: list[LexicalHit], k: int, coverage: float = 1.0
) -> list[Place]:
    """The k best candidates by fused score, best first (of equal scores, the earlier candidate)."""
    fused = fused_scores(cosines, lexical, coverage)
    return sorted(fused, key=lambda place: fused[place], reverse=True)[:k]


def exact(entry: CatalogEntry) -> dict[str, Any]:
    """A filter for the chunks of one course's catalog version."""
    return {"$and": [{"course_id": entry.record.id}, {"version": entry.version}]}


def live_filter(library: CatalogSnapshot, scope: list[CatalogEntry], course: str | None) -> dict[str, Any]:
    """A filter admitting only live chunks of the scope, whose size is not the library's.

    One named course: its exact version. Otherwise the `live` flag (within the scope's course ids when it is
    narrower than the library), plus the exact version of each course of it being written (usually none).
    """
    if course is not None:
        return exact(scope[0])
    settling = library.settling
    live: dict[str, Any] = {"live": True}
    if len(scope) < len(library.entries):  # a course space's courses, or those with the lesson
        live = {"$and": [live, {"course_id": {"$in": [entry.record.id for entry in scope]}}]}
    if not settling:
        return live
    others = {"$and": [live, {"course_id": {"$nin": [entry.record.id for entry in settling]}}]}
    written = [exact(entry) for entry in settling if entry in scope]
    return {"$or": [others, *written]} if written else others


# A value, not the Searcher's state: a comparison's part or a list question's sentences are searched as a
# copy of the whole question's request (`dataclasses.replace`), by the same Searcher.
@dataclass(frozen=True)
class SearchRequest:
    """One search: the query, the catalog snapshot it reads, the entries in scope (one named course, or all
    courses with the lesson), the course and lesson named if any, and how many passages it wants."""

    query: str
    library: CatalogSnapshot
    scope: list[CatalogEntry]
    course: str | None
    lesson: int | None
    k: int


class Candidates(NamedTuple):
    """What a search ranks before fusion: the query's vector, the dense hits and the keyword hits.

    The first `offered` keyword hits are candidates; the rest only lend their score to dense candidates.
    """

    vector: np.ndarray
    dense: list[Hit]
    lexical: list[LexicalHit]
    offered: int = LEXICAL_CANDIDATES
    coverage: float = 1.0


class Searcher:
    """Rank a scope of the catalog's live chunks by meaning and by keyword, and fuse the two rankings."""

    def __init__(self, settings: Settings, store: ChromaStore, embedder: Embedder):
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.course_vectors = CourseVectors(self._load_course_chunks)
        self.lexical = LexicalIndex(self._load_course_terms, self._load_library_terms)
        self.reranker = Reranker(settings.reranker_model)

    def _run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a method of one of the two collections through the store."""
        return self.store.run(name, operation, **kwargs)

    def search(self, request: SearchRequest) -> list[Passage]:
        """The k best passages of the request's scope for its query.

        Hybrid: the nearest chunks by meaning and the best by BM25, both within the same scope, fused by
        score (`fused_scores`); with a reranker, its best candidates re-ordered by the cross-encoder.
        """
        depth = self.reranker.depth(request.k)
        wide = replace(request, k=depth) if depth > request.k else request
        fused = self.fuse(self.candidates(wide), request.scope, depth)
        return self.reranker.rerank(request.query, fused, request.k)

    def candidates(self, request: SearchRequest) -> Candidates:
        """The query's vector and both rankings of the scope that `search` fuses."""
        library, scope, lesson = request.library, request.scope, request.lesson
        vector = self.embedder.embed_query(request.query)
        hybrid = self.settings.hybrid_search
        pool = max(DENSE_CANDIDATES, 2 * request.k) if hybrid else request.k
        if request.course is not None:
            dense = self.search_course(scope[0], vector, pool, lesson)
        elif lesson is None:
            dense = self._search_library(library, scope, vector, pool)
        else:
            dense = self.query(vector, pool, self._where(library, scope, request.course, lesson))
        lexical: list[LexicalHit] = []
        offered = max(LEXICAL_CANDIDATES, 2 * request.k)
        coverage = 1.0
        if hybrid:
            vocabulary = self.embedder.vocabulary()
            coverage = self.lexical.coverage(request.query, library, vocabulary)
            scope_ids = [entry.record.id for entry in scope]
            depth = max(KEYWORD_DEPTH, offered)
            ranked = self.lexical.ranked(request.query, library, scope_ids, lesson, depth, vocabulary)
            # The keyword index may be a course version behind for a moment (see LexicalIndex._follow).
            lexical = [found for found in ranked if library.versions.get(found.course_id) == found.version]
        return Candidates(vector, dense, lexical, offered, coverage)

    def corrected(self, text: str, library: CatalogSnapshot, names: bool = False) -> str:
        """The text with misspelled words corrected towards the library's own words ("hypotesis")."""
        return self.lexical.corrected(text, library, self.embedder.vocabulary(), names)

    def rarity(self, terms: list[str], library: CatalogSnapshot) -> dict[str, float]:
        """The idf of each stemmed term over the library's chunks (see LexicalIndex.rarity)."""
        return self.lexical.rarity(terms, library)

    def held(self, terms: list[str], library: CatalogSnapshot, scope: list[CatalogEntry]) -> set[str]:
        """The stemmed terms the scope's courses say somewhere (see LexicalIndex.held)."""
        return self.lexical.held(terms, library, [entry.record.id for entry in scope])

    def covers(
        self, terms: list[str], library: CatalogSnapshot, own: list[CatalogEntry], scope: list[CatalogEntry]
    ) -> bool:
        """True when the `own` courses say every one of the terms that some course of `scope` says: a part
        of a question that is about them ("what clients expose" in the MCP course), not about another."""
        return self.held(terms, library, own) == self.held(terms, library, scope)

    def clear(self) -> None:
        """Forget every course held in memory (after the index was cleared)."""
        self.course_vectors.clear()
        self.lexical.clear()

    def fuse(self, candidates: Candidates, scope: list[CatalogEntry], k: int) -> list[Passage]:
        """The k best candidates of both rankings by fused score, as passages."""
        hits = {hit.chunk.place: hit for hit in candidates.dense}
        # Keyword hits the dense ranking did not offer need their cosine too: read from their courses'
        # vectors in memory (one read per course version, then kept), not the store on every search.
        missing: dict[str, list[LexicalHit]] = {}
        for found in candidates.lexical[: candidates.offered]:
            if found.place not in hits:
                missing.setdefault(found.course_id, []).append(found)
        entries = {entry.record.id: entry for entry in scope}
        for course_id, wanted in missing.items():
            entry = entries[course_id]
            chunks = self.course_vectors.get(course_id, entry.version, entry.record.chunk_count)
            found_hits = chunks.hits(candidates.vector, [found.key for found in wanted])
            hits.update((hit.chunk.place, hit) for hit in found_hits)
        cosines = {place: 1.0 - hit.distance for place, hit in hits.items()}
        # A keyword hit missing from its course's vectors (the course changing meanwhile) is left out.
        lexical = [found for found in candidates.lexical if found.place in hits]
        return [passage(hits[place]) for place in fused_ranking(cosines, lexical, k, candidates.coverage)]

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
        if len(scope) < len(library.entries):  # a course space: filter inside the query, never after it
            return self.query(vector, k, self._where(library, scope, None, None))
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
