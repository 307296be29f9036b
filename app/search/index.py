"""CourseIndex: the course catalog and lesson chunks in ChromaDB, searched with our own embeddings.

Crash safety. A chunk id carries the version of its course (`<course id>:<lesson>:<chunk index>@<version>`).
The version is a hash over what produced the chunks: the file's content hash, the chunk settings, the
embedding model and a generation (empty for a sync, one fresh value per rebuild), so a rebuild writes every
course anew even when nothing else changed. This deviates on purpose from the id in design §4: a new
version is written beside the old one, then the catalog record is flipped to it (the commit point), then the
old chunks are deleted. Search only returns chunks of the catalog's version, so a process killed half-way
leaves the old version searchable and its new chunks invisible until `purge_orphans` removes them.

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

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from app.config import Settings
from app.courses.models import Chunk, Course, slugify
from app.errors import CourseNotFound, LessonNotFound
from app.search.catalog import CatalogCache, CatalogEntry
from app.search.course_vectors import CourseChunks, CourseVectors, Hit, course_chunks
from app.search.embeddings import Embedder, get_embedder
from app.search.lexical import CourseTerms, LexicalHit, LexicalIndex
from app.search.models import CourseRecord, LessonInfo, Outline, Passage
from app.search.names import (
    STOPWORDS,
    acronym_matches,
    all_words_match,
    content_words,
    distinctive_words,
    tokens,
    word_matches,
)
from app.search.store import ChromaStore

CATALOG = "course_catalog"
CONTENT = "course_content"
WRITE_BATCH = 64
# Extra hits an unfiltered library search asks for, to make up for chunks that are not live.
OVERFETCH = 10
# Hybrid search: each ranking (dense, BM25) offers candidates (at least twice k), fused by reciprocal rank,
# 1 / (RRF_K + rank) summed over the rankings; 60 is the customary constant. Measured with `make eval` at k=5:
# 20 dense candidates rank no better than 10 and cost a slower vector query; 20 keyword candidates rather
# than 10 gave two more good extractive answers (cheap: BM25 scores every chunk anyway).
DENSE_CANDIDATES = 10
LEXICAL_CANDIDATES = 20
RRF_K = 60
# Chroma caps the ids of one get/update/delete; flags are set and chunks deleted in pieces of this size.
ID_BATCH = 1000

# Course-name resolution by meaning, calibrated on the test library and the sample docs (all-MiniLM-L6-v2).
# A name word that is no title word may still mean one: "DBs" ~ "databases" 0.77, "apps" ~ "applications"
# 0.71, while near misses stay below WORD_SCORE ("programming" ~ "python" 0.61, "sql" ~ "databases" 0.61,
# "django" ~ "flask" 0.48). A whole name that no word rule explains must reach MATCH_SCORE against a title and
# beat the runner-up by MATCH_MARGIN: names that mean a course score 0.80-0.92 ("flask web development",
# "python unit testing", "retrieval augmented generation"); near misses stay at or below 0.65 on both
# libraries ("advanced python" 0.65, "software testing" 0.63, "python programming" 0.62, "SQL databases"
# 0.54, "machine learning" 0.37, "Kubernetes for beginners" 0.25).
WORD_SCORE = 0.7
MATCH_SCORE = 0.75
MATCH_MARGIN = 0.1


def chunk_id(chunk: Chunk, version: str) -> str:
    """`<course id>:<lesson>:<chunk index>@<version>`: unique per version, so versions can coexist."""
    return f"{chunk.id}@{version}"


def _lesson_list(numbers: list[int]) -> str:
    """Describe lesson numbers briefly: "1–4" when consecutive, else "0, 2, 5"."""
    if not numbers:
        return "none"
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"{numbers[0]}–{numbers[-1]}"
    return ", ".join(str(number) for number in numbers)


def _clean(metadata: dict[str, Any]) -> dict[str, Any]:
    """Drop None values (Chroma metadata holds only scalars)."""
    return {key: value for key, value in metadata.items() if value is not None}


def _hit_key(metadata: dict[str, Any]) -> tuple[str, int, int]:
    """A hit's chunk within the live library: (course id, lesson number, chunk index)."""
    return str(metadata["course_id"]), int(metadata["lesson_number"]), int(metadata["chunk_index"])


def _live_versions(entries: list[CatalogEntry]) -> dict[str, str]:
    """Each catalog course's live version, by course id."""
    return {entry.record.id: entry.version for entry in entries}


def _passage(document: str, metadata: dict[str, Any], distance: float) -> Passage:
    """Build a Passage from a query hit, scored by cosine similarity."""
    return Passage(
        course_title=metadata["course_title"],
        course_link=metadata.get("course_link"),
        lesson_number=metadata["lesson_number"],
        lesson_title=metadata["lesson_title"],
        lesson_link=metadata.get("lesson_link"),
        chunk_index=metadata["chunk_index"],
        score=round(1 - distance, 4),
        text=document,
    )


class CourseIndex:
    """The course catalog and content in ChromaDB: upsert, remove, resolve, search, outline."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.embedding_model, settings.embedding_cache_dir)
        self.store = ChromaStore(settings)
        self.catalog = CatalogCache(self._read_catalog, self.store.change_stamp)
        self.course_vectors = CourseVectors(self._load_course_chunks)
        self.lexical = LexicalIndex(self._load_course_terms, self._load_library_terms)

    @property
    def location(self) -> str:
        """Where the index lives, for the admin page and logs."""
        return self.store.location

    def _run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a method of one of the two collections through the store."""
        return self.store.run(name, operation, **kwargs)

    def ping(self) -> int:
        """Count the courses; raises ServiceUnavailable when ChromaDB cannot answer."""
        return self._run(CATALOG, "count")

    # -- catalog ------------------------------------------------------------------------------------

    @staticmethod
    def _record(course_id: str, metadata: dict[str, Any]) -> CourseRecord:
        """Build a CourseRecord from catalog metadata."""
        return CourseRecord(
            id=course_id,
            title=metadata["title"],
            link=metadata.get("link"),
            instructor=metadata.get("instructor"),
            lessons=[LessonInfo(**lesson) for lesson in json.loads(metadata.get("lessons", "[]"))],
            source_file=metadata.get("source_file", ""),
            content_hash=metadata.get("content_hash", ""),
            chunk_count=metadata.get("chunk_count", 0),
            indexed_at=datetime.fromisoformat(metadata["indexed_at"]),
        )

    def _read_catalog(self) -> list[CatalogEntry]:
        """Every catalog record with its live version and settling mark, read from the store."""
        result = self._run(CATALOG, "get", include=["metadatas"])
        entries = [
            CatalogEntry(
                self._record(course_id, metadata),
                metadata.get("version", ""),
                bool(metadata.get("settling", False)),
            )
            for course_id, metadata in zip(result["ids"], result["metadatas"], strict=True)
        ]
        return sorted(entries, key=lambda entry: entry.record.title.casefold())

    def courses(self) -> list[CourseRecord]:
        """All indexed courses, sorted by title."""
        return [entry.record for entry in self.catalog.entries()]

    def get_course(self, course_id: str) -> CourseRecord | None:
        """The catalog record of one course id, or None."""
        return next((entry.record for entry in self.catalog.entries() if entry.record.id == course_id), None)

    # -- writing ------------------------------------------------------------------------------------

    def version_for(self, content_hash: str, generation: str = "") -> str:
        """A course's version tag: a hash of its content, chunk settings, embedding model and generation."""
        made_of = [
            content_hash,
            self.settings.chunk_size,
            self.settings.chunk_overlap,
            self.settings.embedding_model or "",
            generation,
        ]
        return hashlib.sha256(json.dumps(made_of).encode()).hexdigest()[:16]

    def versions(self) -> dict[str, str]:
        """The live version of every course in the catalog, by course id."""
        return {entry.record.id: entry.version for entry in self.catalog.entries()}

    def stored_dimension(self) -> int | None:
        """The dimension of the vectors already stored (None while the index is empty)."""
        for name in (CONTENT, CATALOG):
            result = self._run(name, "get", limit=1, include=["embeddings"])
            if len(result["ids"]):
                return len(result["embeddings"][0])
        return None

    def model_dimension(self) -> int:
        """The dimension of the vectors the embedding model makes (loads the model)."""
        return len(self.embedder.embed_query("dimension"))

    def upsert_course(
        self,
        course: Course,
        chunks: list[Chunk],
        generation: str = "",
        on_chunks: Callable[[int, int], None] | None = None,
    ) -> CourseRecord:
        """Write a course's new version beside the old, flip the catalog to it, then retire the old chunks.

        `on_chunks(written, total)` hears of each batch written, for progress.
        """
        digest = course.content_hash or hashlib.sha256(course.model_dump_json().encode()).hexdigest()
        version = self.version_for(digest, generation)
        course_id = course.id
        ids = [chunk_id(chunk, version) for chunk in chunks]
        # From here until the end, searches admit this course by its exact catalog version only.
        self._mark_settling(course_id, True)
        for start in range(0, len(chunks), WRITE_BATCH):
            batch = chunks[start : start + WRITE_BATCH]
            self._run(
                CONTENT,
                "upsert",
                ids=ids[start : start + WRITE_BATCH],
                embeddings=self.embedder.embed_documents([chunk.embedding_text for chunk in batch]),
                documents=[chunk.text for chunk in batch],
                metadatas=[self._chunk_metadata(course, chunk, version) for chunk in batch],
            )
            if on_chunks is not None:
                on_chunks(start + len(batch), len(chunks))
        record = self._flip_catalog(course, version, len(chunks))
        # The new version is live; anything else of this course is now garbage, including chunks of this
        # same version that this write did not produce again.
        stale = self._run(CONTENT, "get", where={"course_id": course_id}, include=[])
        keep = set(ids)
        self._delete_chunks([chunk for chunk in stale["ids"] if chunk not in keep])
        self._set_live(ids)
        self._mark_settling(course_id, False)
        return record

    def _mark_settling(self, course_id: str, settling: bool) -> None:
        """Set or clear a catalog record's settling mark (a new course has none)."""
        # Asked of the store, not the cache: every write moves the stamp, and a sync writes many courses.
        if self._run(CATALOG, "get", ids=[course_id], include=[])["ids"]:
            self._run(CATALOG, "update", ids=[course_id], metadatas=[{"settling": settling}])

    def _set_live(self, ids: list[str]) -> None:
        """Flag chunks as the live version, so unfiltered searches see them."""
        for start in range(0, len(ids), ID_BATCH):
            piece = ids[start : start + ID_BATCH]
            self._run(CONTENT, "update", ids=piece, metadatas=[{"live": True}] * len(piece))

    def _delete_chunks(self, ids: list[str]) -> None:
        """Delete chunks by id, in pieces."""
        for start in range(0, len(ids), ID_BATCH):
            self._run(CONTENT, "delete", ids=ids[start : start + ID_BATCH])

    @staticmethod
    def _chunk_metadata(course: Course, chunk: Chunk, version: str) -> dict[str, Any]:
        """Metadata stored with a chunk: where it comes from, and its course version."""
        return _clean(
            {
                "course_id": course.id,
                "course_title": course.title,
                "course_link": course.link,
                "lesson_number": chunk.lesson_number,
                "lesson_title": chunk.lesson_title,
                "lesson_link": chunk.lesson_link,
                "chunk_index": chunk.index,
                "version": version,
                # Not searchable unfiltered until the catalog points at this version and the old one is gone.
                "live": False,
            }
        )

    def _flip_catalog(self, course: Course, version: str, chunk_count: int) -> CourseRecord:
        """Point the catalog at a course version: the single write that makes it live."""
        lessons = [
            LessonInfo(number=lesson.number, title=lesson.title, link=lesson.link)
            for lesson in course.lessons
        ]
        metadata = _clean(
            {
                "title": course.title,
                "link": course.link,
                "instructor": course.instructor,
                "source_file": course.source_file,
                "content_hash": course.content_hash,
                "chunk_count": chunk_count,
                "indexed_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "lessons": json.dumps([lesson.model_dump() for lesson in lessons]),
                "version": version,
                "settling": True,
            }
        )
        self._run(
            CATALOG,
            "upsert",
            ids=[course.id],
            embeddings=[self.embedder.embed_query(course.title)],
            documents=[course.title if not course.instructor else f"{course.title} ({course.instructor})"],
            metadatas=[metadata],
        )
        return self._record(course.id, metadata)

    def remove_course(self, course_id: str) -> bool:
        """Remove a course: hide its chunks, drop its catalog record (gone at once), then the chunks."""
        if self.get_course(course_id) is None:
            return False
        # Hidden first: once the record is gone no search could tell its still-flagged chunks apart.
        owned = self._run(CONTENT, "get", where={"course_id": course_id}, include=[])["ids"]
        for start in range(0, len(owned), ID_BATCH):
            piece = owned[start : start + ID_BATCH]
            self._run(CONTENT, "update", ids=piece, metadatas=[{"live": False}] * len(piece))
        self._run(CATALOG, "delete", ids=[course_id])
        self._delete_chunks(owned)
        return True

    def purge_orphans(self) -> int:
        """Finish what a killed write left: delete chunks of no live version (returning how many), flag the
        live versions' chunks, clear settling marks. Also brings an index from before the flag up to date."""
        entries = self.catalog.entries()
        active = {(entry.record.id, entry.version) for entry in entries}
        result = self._run(CONTENT, "get", include=["metadatas"])
        orphans, unflagged = [], []
        for chunk, metadata in zip(result["ids"], result["metadatas"], strict=True):
            if (metadata.get("course_id"), metadata.get("version")) not in active:
                orphans.append(chunk)
            elif metadata.get("live") is not True:
                unflagged.append(chunk)
        self._delete_chunks(orphans)
        self._set_live(unflagged)
        for entry in entries:
            if entry.settling:
                self._mark_settling(entry.record.id, False)
        return len(orphans)

    def clear(self) -> None:
        """Delete both collections and create them empty."""
        self.store.reset(CATALOG, CONTENT)
        self.catalog.invalidate()
        self.course_vectors.clear()
        self.lexical.clear()

    # -- reading ------------------------------------------------------------------------------------

    def resolve_course(self, name: str) -> CourseRecord:
        """The one course a name means (title, id, acronym, words, then meaning), or CourseNotFound."""
        # The same names come again and again (the sidebar's titles, a conversation's course).
        return self.catalog.memo(
            ("course", name), lambda entries: self._resolve(name, [entry.record for entry in entries])
        )

    def _resolve(self, name: str, records: list[CourseRecord]) -> CourseRecord:
        """Resolve a course name against catalog records; ambiguity and no match both raise CourseNotFound.

        Text rules first, strictest first: the exact title or id; an acronym; the title's own words; a
        lesson-title term or the instructor's name that only one course has. Only then meaning: every name
        word close to a title word, or the whole name clearly closest to one title. The first rule that
        matches decides; two courses at one rule is ambiguous, never a guess.
        """
        wanted = name.strip()
        words = content_words(wanted)
        steps = (
            lambda record: record.title.casefold() == wanted.casefold() or record.id == slugify(wanted),
            lambda record: self._acronym_matches(wanted, record.title),
            lambda record: all_words_match(words, content_words(record.title)),
            lambda record: self._lesson_or_instructor_matches(words, record),
        )
        if wanted and records:
            for matches in steps:
                found = [record for record in records if matches(record)]
                if found:
                    return self._one(name, records, found)
            found = self._words_by_meaning(words, records) or self._closest_by_meaning(wanted, records)
            if found:
                return self._one(name, records, found)
        raise self._not_found(name, records)

    def _one(self, name: str, records: list[CourseRecord], found: list[CourseRecord]) -> CourseRecord:
        """The single course found, or CourseNotFound listing the candidates."""
        if len(found) > 1:
            raise self._not_found(name, records, candidates=found)
        return found[0]

    @staticmethod
    def _acronym_matches(name: str, title: str) -> bool:
        """True when the name's one content word spells the title's initials (whole, or from the start)."""
        words = [token for token in tokens(name) if token.lower() not in STOPWORDS]
        return len(words) == 1 and len(words[0]) <= 8 and acronym_matches(words[0], title)

    @staticmethod
    def _lesson_or_instructor_matches(words: list[str], record: CourseRecord) -> bool:
        """True when the name is the instructor's, or names one lesson: all its words are words of one lesson
        title, and a one-word name is a term of that title ("pytest", "HNSW"), not an ordinary word."""
        if all_words_match(words, content_words(record.instructor or "")):
            return True
        for lesson in record.lessons:
            title_words = distinctive_words(lesson.title) if len(words) == 1 else content_words(lesson.title)
            if all_words_match(words, title_words):
                return True
        return False

    def _words_by_meaning(self, words: list[str], records: list[CourseRecord]) -> list[CourseRecord]:
        """Courses whose title has, for every name word, the same word or one that means it ("DBs")."""
        titles = {record.id: content_words(record.title) for record in records}
        vocabulary = {*words, *(word for title in titles.values() for word in title)}
        # One cached vector per word: the title words are the same on every resolution.
        vectors = {word: self.embedder.embed_query(word) for word in vocabulary}

        def close(word: str, other: str) -> bool:
            """True when two words are one, or mean nearly the same."""
            similarity = float(np.dot(vectors[word], vectors[other]))
            return word_matches(word, other) or similarity >= WORD_SCORE

        return [
            record
            for record in records
            if words and all(any(close(word, other) for other in titles[record.id]) for word in words)
        ]

    def _closest_by_meaning(self, name: str, records: list[CourseRecord]) -> list[CourseRecord]:
        """The course whose title embedding is clearly closest to the name, above the threshold; ties: all."""
        # "the vector DB course" is compared as "vector DB": the filler words only blur the meaning.
        phrase = " ".join(token for token in tokens(name) if token.lower() not in STOPWORDS)
        if not phrase:
            return []
        result = self._run(
            CATALOG,
            "query",
            query_embeddings=[self.embedder.embed_query(phrase)],
            n_results=min(len(records), 3),
            include=["distances"],
        )
        scored = [
            (1 - distance, course_id)
            for course_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        ]
        scored.sort(reverse=True)
        if not scored or scored[0][0] < MATCH_SCORE:
            return []
        by_id = {record.id: record for record in records}
        close = [course_id for score, course_id in scored if scored[0][0] - score < MATCH_MARGIN]
        return [by_id[course_id] for course_id in close if course_id in by_id]

    @staticmethod
    def _not_found(name: str, records: list[CourseRecord], candidates: list[CourseRecord] | None = None):
        """The CourseNotFound for a name: which courses exist, or which ones it could mean."""
        if candidates:
            titles = ", ".join(record.title for record in candidates)
            return CourseNotFound(f"'{name}' could mean several courses: {titles}. Please name one.")
        if not records:
            return CourseNotFound(f"No course matches '{name}'. No courses are indexed yet.")
        titles = ", ".join(record.title for record in records)
        return CourseNotFound(f"No course matches '{name}'. Courses are: {titles}.")

    def outline(self, course: str) -> Outline:
        """The outline (title, link, instructor, lessons) of the course a name means."""
        record = self.resolve_course(course)
        return Outline(
            title=record.title, link=record.link, instructor=record.instructor, lessons=record.lessons
        )

    def search(
        self, query: str, course: str | None = None, lesson: int | None = None, k: int | None = None
    ) -> list[Passage]:
        """The k best passages for the query, within a course and/or lesson when given.

        Hybrid: the nearest chunks by meaning and the best by BM25, both within the same scope, fused by
        reciprocal rank.
        """
        scope = self._scope(course, lesson)
        if not scope:
            return []
        vector = self.embedder.embed_query(query)
        k = k or self.settings.max_results
        hybrid = self.settings.hybrid_search
        pool = max(DENSE_CANDIDATES, 2 * k) if hybrid else k
        if course is not None:
            dense = self._search_course(scope[0], vector, pool, lesson)
        elif lesson is None:
            dense = self._search_library(scope, vector, pool)
        else:
            dense = self._query(vector, pool, self._where(scope, course, lesson))
        lexical: list[LexicalHit] = []
        if hybrid:
            library = self.catalog.memo("live versions", _live_versions)
            scope_ids = [entry.record.id for entry in scope]
            ranked = self.lexical.ranked(query, library, scope_ids, lesson, max(LEXICAL_CANDIDATES, 2 * k))
            # The keyword index may be a course version behind for a moment (see LexicalIndex._follow).
            lexical = [found for found in ranked if library.get(found.course_id) == found.version]
        return self._fuse(dense, lexical, vector, k)

    def corrected(self, text: str) -> str:
        """The text with misspelled words corrected towards the library's own words ("hypotesis")."""
        library = self.catalog.memo("live versions", _live_versions)
        return self.lexical.corrected(text, library, self.embedder.vocabulary())

    def _fuse(self, dense: list[Hit], lexical: list[LexicalHit], vector: np.ndarray, k: int) -> list[Passage]:
        """The k best of both rankings by reciprocal rank fusion, as passages."""
        hits: dict[tuple[str, int, int], Hit] = {}
        fused: dict[tuple[str, int, int], float] = {}
        for rank, hit in enumerate(dense, 1):
            key = _hit_key(hit[1])
            hits[key] = hit
            fused[key] = 1 / (RRF_K + rank)
        for rank, found in enumerate(lexical, 1):
            key = (found.course_id, *found.key)
            fused[key] = fused.get(key, 0.0) + 1 / (RRF_K + rank)
        best = sorted(fused, key=lambda key: fused[key], reverse=True)[:k]
        # Keyword hits the dense ranking did not offer are read with their vectors, for their cosine score.
        missing = {
            f"{found.course_id}:{found.key[0]}:{found.key[1]}@{found.version}"
            for found in lexical
            if (found.course_id, *found.key) in best and (found.course_id, *found.key) not in hits
        }
        if missing:
            hits.update((_hit_key(hit[1]), hit) for hit in self._read_hits(sorted(missing), vector))
        return [_passage(*hits[key]) for key in best if key in hits]

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

    def _search_course(
        self, entry: CatalogEntry, vector: np.ndarray, k: int, lesson: int | None
    ) -> list[Hit]:
        """Search one course exactly, over its live version's vectors held in memory."""
        chunks = self.course_vectors.get(entry.record.id, f"{entry.version}:{entry.record.chunk_count}")
        return chunks.top(vector, k, lesson)

    def _load_course_chunks(self, course_id: str, key: str) -> CourseChunks:
        """Read one course version's chunks with their vectors from the store."""
        version = key.rsplit(":", 1)[0]
        where = {"$and": [{"course_id": course_id}, {"version": version}]}
        return course_chunks(
            self._run(CONTENT, "get", where=where, include=["documents", "metadatas", "embeddings"])
        )

    def _search_library(self, scope: list[CatalogEntry], vector: np.ndarray, k: int) -> list[Hit]:
        """Search every course unfiltered, keeping catalog versions only; filter only when that falls short.

        An unfiltered query costs the vector search alone at any library size; the chunks it may also return
        (a course being written, leftovers of a crash) are few, so asking for a few more covers them.
        """
        live = {entry.record.id: entry.version for entry in scope}
        fetched = k + OVERFETCH
        hits = self._query(vector, fetched, None)
        admitted = [hit for hit in hits if live.get(str(hit[1].get("course_id"))) == hit[1].get("version")]
        if len(admitted) >= k or len(hits) < fetched:
            return admitted[:k]
        return self._query(vector, k, self._where(scope, None, None))

    def _query(self, vector: np.ndarray, k: int, where: dict[str, Any] | None) -> list[Hit]:
        """One ChromaDB query: (document, metadata, cosine distance) per hit, best first."""
        result = self._run(
            CONTENT,
            "query",
            query_embeddings=[vector],
            n_results=k,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        return list(zip(result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True))

    def _scope(self, course: str | None, lesson: int | None) -> list[CatalogEntry]:
        """Select the catalog entries to search: the named course, narrowed to courses with the lesson."""
        scope = self.catalog.entries()
        record: CourseRecord | None = None
        if course is not None:
            record = self.resolve_course(course)
            scope = [entry for entry in scope if entry.record.id == record.id]
        if lesson is not None:
            scope = [entry for entry in scope if lesson in {info.number for info in entry.record.lessons}]
            if not scope:
                raise self._no_lesson(lesson, record)
        return scope

    @staticmethod
    def _no_lesson(lesson: int, record: CourseRecord | None) -> LessonNotFound:
        """The LessonNotFound for a lesson number, listing the lessons the course has."""
        if record is None:
            return LessonNotFound(f"No course has a lesson {lesson}.")
        numbers = sorted(info.number for info in record.lessons)
        return LessonNotFound(
            f"{record.title} has no lesson {lesson}; its lessons are {_lesson_list(numbers)}."
        )

    def _where(self, scope: list[CatalogEntry], course: str | None, lesson: int | None) -> dict[str, Any]:
        """A filter admitting only live chunks of the scope (and the lesson), whose size is not the library's.

        One named course: its exact version. Otherwise the `live` flag, plus the exact version of each
        course being written (usually none).
        """
        if course is not None:
            clauses = [self._exact(scope[0])]
        else:
            settling = [entry for entry in self.catalog.entries() if entry.settling]
            clauses = [self._live_except(settling)] if settling else [{"live": True}]
            clauses += [self._exact(entry) for entry in settling]
        where = clauses[0] if len(clauses) == 1 else {"$or": clauses}
        return where if lesson is None else {"$and": [where, {"lesson_number": lesson}]}

    @staticmethod
    def _exact(entry: CatalogEntry) -> dict[str, Any]:
        """The chunks of one course's catalog version."""
        return {"$and": [{"course_id": entry.record.id}, {"version": entry.version}]}

    @staticmethod
    def _live_except(settling: list[CatalogEntry]) -> dict[str, Any]:
        """Live chunks of every course but those being written."""
        return {"$and": [{"live": True}, {"course_id": {"$nin": [entry.record.id for entry in settling]}}]}
