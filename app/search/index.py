"""CourseIndex: the course catalog and lesson chunks in ChromaDB, searched with our own embeddings.

Crash safety. A chunk id carries the version of its course (`<course id>:<lesson>:<chunk index>@<version>`,
version = the first 12 hex digits of the content hash). This deviates on purpose from the id in design §4:
a new version is written beside the old one, then the catalog record is flipped to it (the commit point),
then the old chunks are deleted. Search only returns chunks whose (course id, version) is the catalog's, so
a process killed half-way leaves the old version searchable and its new chunks invisible until
`purge_orphans` removes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import chromadb
import httpx
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import ChromaError, NotFoundError

from app.config import Settings
from app.courses.models import Chunk, Course, slugify
from app.errors import AppError, CourseNotFound, LessonNotFound, ServiceUnavailable
from app.search.embeddings import Embedder, get_embedder
from app.search.models import CourseRecord, LessonInfo, Outline, Passage

CATALOG = "course_catalog"
CONTENT = "course_content"
# Chroma 1.x takes the distance in the collection configuration; "hnsw:space" metadata is the legacy form.
COLLECTION_CONFIG = {"hnsw": {"space": "cosine"}}
WRITE_BATCH = 64
UNAVAILABLE = "The course index is unavailable"

# Course-name resolution by embedding: the best catalog title must reach MATCH_SCORE (cosine similarity) and
# beat the runner-up by MATCH_MARGIN. Measured on the test library: phrases that mean a course score
# 0.6-0.95 ("databases" 0.62, "the vector database class" 0.84); unrelated names stay at or below 0.35
# ("Kubernetes for beginners" 0.25, "cooking pasta" 0.12, "unit tests" 0.35); "python programming" (0.44)
# against "Python Testing with Pytest" is the kind of near miss the threshold is there to refuse.
MATCH_SCORE = 0.45
MATCH_MARGIN = 0.05
# Words that say nothing about which course is meant.
STOPWORDS = frozenset(
    {
        *(
            "a",
            "an",
            "and",
            "the",
            "of",
            "for",
            "in",
            "on",
            "to",
            "with",
            "from",
            "by",
            "at",
            "about",
            "into",
        ),
        *("my", "your", "our", "this", "that", "its", "is", "are", "what", "which", "who", "how", "please"),
        *("course", "courses", "class", "classes", "lesson", "lessons", "lecture", "lectures", "module"),
        *("tutorial", "intro", "introduction"),
    }
)


def _version(course: Course) -> str:
    """The version tag of a course: the first 12 hex digits of its content hash."""
    digest = course.content_hash or hashlib.sha256(course.model_dump_json().encode()).hexdigest()
    return digest[:12]


def chunk_id(chunk: Chunk, version: str) -> str:
    """`<course id>:<lesson>:<chunk index>@<version>`: unique per version, so versions can coexist."""
    return f"{chunk.id}@{version}"


def _words(text: str) -> list[str]:
    """Lowercase content words of a name, stopwords dropped, plural 's' removed."""
    words = []
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.append(word)
    return words


def _initials(title: str) -> str:
    """Initials of every word of a title, hyphen parts counted as words ("Retrieval-Augmented" -> "ra")."""
    return "".join(word[0] for word in re.findall(r"[a-z0-9]+", title.lower()))


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


class CourseIndex:
    """The course catalog and content in ChromaDB: upsert, remove, resolve, search, outline."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.embedding_model)
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._lock = threading.Lock()

    # -- connection ---------------------------------------------------------------------------------

    @property
    def location(self) -> str:
        """Where the index lives, for the admin page and logs."""
        if self.settings.uses_chroma_server:
            return f"ChromaDB server {self.settings.chroma_host}:{self.settings.chroma_port}"
        return f"embedded folder {self.settings.resolved_chroma_path}"

    @contextlib.contextmanager
    def _available(self) -> Iterator[None]:
        """Turn ChromaDB and connection failures into ServiceUnavailable, with the cause as detail."""
        try:
            yield
        except AppError:
            raise
        except (ChromaError, httpx.HTTPError, OSError) as exc:
            raise ServiceUnavailable(UNAVAILABLE, detail=f"{self.location}: {exc}") from exc

    def _connect(self) -> Any:
        """The Chroma client, created on first use so the app starts even while a Chroma server is down."""
        with self._lock:
            if self._client is None:
                chroma_settings = ChromaSettings(anonymized_telemetry=False)
                try:
                    if self.settings.uses_chroma_server:
                        self._client = chromadb.HttpClient(
                            host=self.settings.chroma_host,
                            port=self.settings.chroma_port,
                            settings=chroma_settings,
                        )
                    else:
                        path = self.settings.resolved_chroma_path
                        path.mkdir(parents=True, exist_ok=True)
                        self._client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
                except (ValueError, ChromaError, httpx.HTTPError, OSError) as exc:
                    # HttpClient raises ValueError("Could not connect ...") when the server does not answer.
                    raise ServiceUnavailable(UNAVAILABLE, detail=f"{self.location}: {exc}") from exc
            return self._client

    def _collection(self, name: str, refresh: bool = False) -> Any:
        """A collection handle (cached); embedding_function=None so Chroma never loads its own model."""
        client = self._connect()
        with self._lock:
            if refresh or name not in self._collections:
                self._collections[name] = client.get_or_create_collection(
                    name, configuration=COLLECTION_CONFIG, embedding_function=None
                )
            return self._collections[name]

    def _run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a collection method; a handle left stale by another process's clear() is fetched again."""
        with self._available():
            try:
                return getattr(self._collection(name), operation)(**kwargs)
            except NotFoundError:
                return getattr(self._collection(name, refresh=True), operation)(**kwargs)

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

    def _catalog(self) -> list[tuple[CourseRecord, str]]:
        """Every catalog record with its active version."""
        result = self._run(CATALOG, "get", include=["metadatas"])
        entries = [
            (self._record(course_id, metadata), metadata.get("version", ""))
            for course_id, metadata in zip(result["ids"], result["metadatas"], strict=True)
        ]
        return sorted(entries, key=lambda entry: entry[0].title.casefold())

    def courses(self) -> list[CourseRecord]:
        """All indexed courses, sorted by title."""
        return [record for record, _ in self._catalog()]

    def get_course(self, course_id: str) -> CourseRecord | None:
        """The catalog record of one course id, or None."""
        result = self._run(CATALOG, "get", ids=[course_id], include=["metadatas"])
        if not result["ids"]:
            return None
        return self._record(result["ids"][0], result["metadatas"][0])

    # -- writing ------------------------------------------------------------------------------------

    def upsert_course(self, course: Course, chunks: list[Chunk]) -> CourseRecord:
        """Write a course's new version beside the old, flip the catalog to it, then delete the old chunks."""
        version = _version(course)
        course_id = course.id
        ids = [chunk_id(chunk, version) for chunk in chunks]
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
        record = self._flip_catalog(course, version, len(chunks))
        # The new version is live; anything else of this course is now garbage. With an unchanged version
        # (same bytes, re-chunked) chunks that the new chunking no longer produces go too.
        stale = self._run(CONTENT, "get", where={"course_id": course_id}, include=[])
        keep = set(ids)
        doomed = [chunk for chunk in stale["ids"] if chunk not in keep]
        if doomed:
            self._run(CONTENT, "delete", ids=doomed)
        return record

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
        """Remove a course: catalog record first (it disappears at once), then its chunks."""
        if self.get_course(course_id) is None:
            return False
        self._run(CATALOG, "delete", ids=[course_id])
        self._run(CONTENT, "delete", where={"course_id": course_id})
        return True

    def purge_orphans(self) -> int:
        """Delete chunks that belong to no live course version (left by a crash); return how many."""
        active = {(record.id, version) for record, version in self._catalog()}
        result = self._run(CONTENT, "get", include=["metadatas"])
        orphans = [
            chunk
            for chunk, metadata in zip(result["ids"], result["metadatas"], strict=True)
            if (metadata.get("course_id"), metadata.get("version")) not in active
        ]
        for start in range(0, len(orphans), 1000):
            self._run(CONTENT, "delete", ids=orphans[start : start + 1000])
        return len(orphans)

    def clear(self) -> None:
        """Delete both collections and create them empty."""
        client = self._connect()
        with self._available():
            for name in (CATALOG, CONTENT):
                with contextlib.suppress(NotFoundError, ValueError):
                    client.delete_collection(name)
                self._collection(name, refresh=True)

    # -- reading ------------------------------------------------------------------------------------

    def resolve_course(self, name: str) -> CourseRecord:
        """The one course a name means (title, id, acronym, words, then meaning), or CourseNotFound."""
        return self._resolve(name, self.courses())

    def _resolve(self, name: str, records: list[CourseRecord]) -> CourseRecord:
        """Resolve a course name against catalog records; ambiguity and no match both raise CourseNotFound."""
        wanted = name.strip()
        folded = wanted.casefold()
        steps = (
            lambda record: record.title.casefold() == folded,
            lambda record: record.id == slugify(wanted),
            lambda record: self._acronym_matches(wanted, record.title),
            lambda record: self._words_match(wanted, record.title),
        )
        if wanted:
            for matches in steps:
                found = [record for record in records if matches(record)]
                if len(found) == 1:
                    return found[0]
                if len(found) > 1:
                    raise self._not_found(name, records, candidates=found)
            found = self._closest_by_meaning(wanted, records)
            if found:
                if len(found) > 1:
                    raise self._not_found(name, records, candidates=found)
                return found[0]
        raise self._not_found(name, records)

    @staticmethod
    def _acronym_matches(name: str, title: str) -> bool:
        """True when a name's one content word (2-8 letters) spells consecutive initials of the title."""
        words = [
            word for word in re.findall(r"[a-z0-9]+", name.lower().replace(".", "")) if word not in STOPWORDS
        ]
        if len(words) != 1 or not 2 <= len(words[0]) <= 8:
            return False
        return words[0] in _initials(title)

    @staticmethod
    def _words_match(name: str, title: str) -> bool:
        """True when every content word of the name is a word of the title (plurals and stopwords ignored)."""
        words = _words(name)
        return bool(words) and set(words) <= set(_words(title))

    def _closest_by_meaning(self, name: str, records: list[CourseRecord]) -> list[CourseRecord]:
        """The course whose title embedding is clearly closest to the name, above the threshold; ties: all."""
        if not records:
            return []
        result = self._run(
            CATALOG,
            "query",
            query_embeddings=[self.embedder.embed_query(name)],
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
        """The k passages closest to the query, best first, within a course and/or lesson when given."""
        k = k or self.settings.max_results
        catalog = self._catalog()
        scope = catalog
        if course is not None:
            record = self._resolve(course, [record for record, _ in catalog])
            scope = [entry for entry in catalog if entry[0].id == record.id]
        if lesson is not None:
            scope = [entry for entry in scope if lesson in {info.number for info in entry[0].lessons}]
            if not scope:
                raise self._no_lesson(lesson, record if course is not None else None)
        if not scope:
            return []
        where = self._where(scope, lesson)
        result = self._run(
            CONTENT,
            "query",
            query_embeddings=[self.embedder.embed_query(query)],
            n_results=k,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        passages = [
            Passage(
                course_title=metadata["course_title"],
                course_link=metadata.get("course_link"),
                lesson_number=metadata["lesson_number"],
                lesson_title=metadata["lesson_title"],
                lesson_link=metadata.get("lesson_link"),
                chunk_index=metadata["chunk_index"],
                score=round(1 - distance, 4),
                text=document,
            )
            for document, metadata, distance in zip(
                result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
            )
        ]
        return sorted(passages, key=lambda passage: passage.score, reverse=True)

    @staticmethod
    def _no_lesson(lesson: int, record: CourseRecord | None) -> LessonNotFound:
        """The LessonNotFound for a lesson number, listing the lessons the course has."""
        if record is None:
            return LessonNotFound(f"No course has a lesson {lesson}.")
        numbers = sorted(info.number for info in record.lessons)
        return LessonNotFound(
            f"{record.title} has no lesson {lesson}; its lessons are {_lesson_list(numbers)}."
        )

    @staticmethod
    def _where(scope: list[tuple[CourseRecord, str]], lesson: int | None) -> dict[str, Any]:
        """A filter that admits only the live version of each course in scope (and the lesson, if any)."""
        live = [{"$and": [{"course_id": record.id}, {"version": version}]} for record, version in scope]
        clauses = [live[0] if len(live) == 1 else {"$or": live}]
        if lesson is not None:
            clauses.append({"lesson_number": lesson})
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}
