"""IndexWriter: versioned, crash-safe writes of courses to the index (see ARCHITECTURE.md, "Index").

A chunk id carries the version of its course (`ChunkId`). The version is a hash over what produced the
chunks: the file's content hash, the chunk settings, the embedding model and a generation (empty for a
sync, one fresh value per rebuild), so a rebuild writes every course anew even when nothing else changed.
A new version is written beside the old one, then the catalog record is flipped to it (the commit point),
then the old chunks are deleted. Search only returns chunks of the catalog's version, so a process killed
half-way leaves the old version searchable and its new chunks invisible until `purge_orphans` removes them.
Chunks carry a `live` flag that the write sets once its catalog flip is done, and a course being written is
marked `settling` in the catalog meanwhile (see searcher.py for why).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from app.config import Settings
from app.courses.models import Chunk, Course
from app.courses.timecodes import pack_times
from app.search.catalog import CatalogCache, course_record
from app.search.embedding import Embedder
from app.search.ids import ChunkId
from app.search.models import CourseRecord, LessonInfo
from app.search.store import CATALOG, CONTENT, ChromaStore

WRITE_BATCH = 64
# A course is written in about this many batches at least (of no fewer than MIN_BATCH chunks), so the
# progress a sync shows moves with the passages of one course, not only between courses.
PROGRESS_STEPS = 10
MIN_BATCH = 8
# Hears of each batch of a course's chunks written: (written, total).
OnChunks = Callable[[int, int], None]
# Chroma caps the ids of one get/update/delete; flags are set and chunks deleted in pieces of this size.
ID_BATCH = 1000


def _clean(metadata: dict[str, Any]) -> dict[str, Any]:
    """Drop None values (Chroma metadata holds only scalars)."""
    return {key: value for key, value in metadata.items() if value is not None}


def _pieces(ids: list[str]) -> list[list[str]]:
    """Ids in pieces small enough for one Chroma call."""
    return [ids[start : start + ID_BATCH] for start in range(0, len(ids), ID_BATCH)]


class IndexWriter:
    """Write, flip, remove and clean up course versions in the store."""

    def __init__(self, settings: Settings, store: ChromaStore, catalog: CatalogCache, embedder: Embedder):
        self.settings = settings
        self.store = store
        self.catalog = catalog
        self.embedder = embedder

    def _run(self, name: str, operation: str, /, **kwargs: Any) -> Any:
        """Call a method of one of the two collections through the store."""
        return self.store.run(name, operation, **kwargs)

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

    def stored_dimension(self) -> int | None:
        """The dimension of the vectors already stored (None while the index is empty)."""
        for name in (CONTENT, CATALOG):
            result = self._run(name, "get", limit=1, include=["embeddings"])
            if len(result["ids"]):
                return len(result["embeddings"][0])
        return None

    def stored_encoders(self) -> set[str]:
        """The fingerprints of the encoders the catalog's courses were embedded with ("" for a course written
        before courses recorded theirs)."""
        result = self._run(CATALOG, "get", include=["metadatas"])
        return {metadata.get("encoder", "") for metadata in result["metadatas"]}

    def upsert_course(
        self, course: Course, chunks: list[Chunk], generation: str = "", on_chunks: OnChunks | None = None
    ) -> CourseRecord:
        """Write a course's new version beside the old, flip the catalog to it, then retire the old chunks.

        `on_chunks(written, total)` hears of each batch written, for progress.
        """
        digest = course.content_hash or hashlib.sha256(course.model_dump_json().encode()).hexdigest()
        # Written shortest first: each embedding batch then holds texts of about one length, so little of
        # the encoder's work goes into padding. The order of writes is of no consequence to the index.
        chunks = sorted(chunks, key=lambda chunk: len(chunk.embedding_text))
        version = self.version_for(digest, generation)
        course_id = course.id
        ids = [str(ChunkId.of(chunk, version)) for chunk in chunks]
        # From here until the end, searches admit this course by its exact catalog version only.
        self._mark_settling(course_id, True)
        size = min(WRITE_BATCH, max(MIN_BATCH, -(-len(chunks) // PROGRESS_STEPS)))
        for start in range(0, len(chunks), size):
            batch = chunks[start : start + size]
            self._run(
                CONTENT,
                "upsert",
                ids=ids[start : start + size],
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
        self._set_live(ids, True)
        self._mark_settling(course_id, False)
        return record

    def _mark_settling(self, course_id: str, settling: bool) -> None:
        """Set or clear a catalog record's settling mark (a new course has none)."""
        # Asked of the store, not the cache: every write moves the stamp, and a sync writes many courses.
        if self._run(CATALOG, "get", ids=[course_id], include=[])["ids"]:
            self._run(CATALOG, "update", ids=[course_id], metadatas=[{"settling": settling}])

    def _set_live(self, ids: list[str], live: bool) -> None:
        """Flag chunks as the live version (or not), so unfiltered searches see them (or not)."""
        for piece in _pieces(ids):
            self._run(CONTENT, "update", ids=piece, metadatas=[{"live": live}] * len(piece))

    def _delete_chunks(self, ids: list[str]) -> None:
        """Delete chunks by id, in pieces."""
        for piece in _pieces(ids):
            self._run(CONTENT, "delete", ids=piece)

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
                # A captioned lesson's chunk: when each of its sentences is said ("offset:second;...").
                "sentence_times": pack_times(chunk.sentence_times) if chunk.sentence_times else None,
                "version": version,
                # Not searchable unfiltered until the catalog points at this version and the old one is gone.
                "live": False,
            }
        )

    def _flip_catalog(self, course: Course, version: str, chunk_count: int) -> CourseRecord:
        """Point the catalog at a course version: the single write that makes it live."""
        lessons = [
            LessonInfo(number=lesson.number, title=lesson.title, link=lesson.link, duration=lesson.duration)
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
                # An untimed lesson is stored as before (no duration key), so its record reads the same.
                "lessons": json.dumps([lesson.model_dump(exclude_none=True) for lesson in lessons]),
                "version": version,
                "settling": True,
                # Which encoder made this course's vectors: another one re-embeds the library (sync.py).
                "encoder": self.embedder.fingerprint,
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
        return course_record(course.id, metadata)

    def remove_course(self, course_id: str) -> bool:
        """Remove a course: hide its chunks, drop its catalog record (gone at once), then the chunks."""
        if course_id not in self.catalog.snapshot().versions:
            return False
        # Hidden first: once the record is gone no search could tell its still-flagged chunks apart.
        owned = self._run(CONTENT, "get", where={"course_id": course_id}, include=[])["ids"]
        self._set_live(owned, False)
        self._run(CATALOG, "delete", ids=[course_id])
        self._delete_chunks(owned)
        return True

    def purge_orphans(self) -> int:
        """Finish what a killed write left: delete chunks of no live version (returning how many), flag the
        live versions' chunks, clear settling marks. Also brings an index from before the flag up to date."""
        snapshot = self.catalog.snapshot()
        active = set(snapshot.versions.items())
        result = self._run(CONTENT, "get", include=["metadatas"])
        orphans, unflagged = [], []
        for chunk, metadata in zip(result["ids"], result["metadatas"], strict=True):
            if (metadata.get("course_id"), metadata.get("version")) not in active:
                orphans.append(chunk)
            elif metadata.get("live") is not True:
                unflagged.append(chunk)
        self._delete_chunks(orphans)
        self._set_live(unflagged, True)
        for entry in snapshot.settling:
            self._mark_settling(entry.record.id, False)
        return len(orphans)
