"""The course catalog as this process last read it, refreshed only when the index's change stamp moves.

A CatalogSnapshot is one read of it: the entries, each course's live version, and a stamp that differs
between any two reads. Searches take one snapshot and pass it on, so every part of one search sees the same
catalog, and a cache that follows the catalog (the keyword index) compares stamps to know it moved.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from app.search.models import CourseRecord, LessonInfo

T = TypeVar("T")
# Values remembered per catalog version (course names resolved, say), before the memo starts over.
MEMO_SIZE = 1024


@dataclass(frozen=True)
class CatalogEntry:
    """A course's catalog record, its live version, and whether a write to it is under way (settling)."""

    record: CourseRecord
    version: str
    settling: bool = False


@dataclass(frozen=True)
class CatalogSnapshot:
    """One read of the catalog: its entries sorted by title, the live versions, and the read's stamp."""

    entries: list[CatalogEntry]
    stamp: int
    versions: dict[str, str]  # live version by course id

    @classmethod
    def of(cls, entries: list[CatalogEntry], stamp: int) -> CatalogSnapshot:
        """The snapshot of one read of the catalog."""
        return cls(entries, stamp, {entry.record.id: entry.version for entry in entries})

    @property
    def records(self) -> list[CourseRecord]:
        """Every course record, sorted by title."""
        return [entry.record for entry in self.entries]

    @property
    def settling(self) -> list[CatalogEntry]:
        """The entries of courses being written."""
        return [entry for entry in self.entries if entry.settling]


def course_record(course_id: str, metadata: dict[str, Any]) -> CourseRecord:
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


def catalog_entries(result: dict[str, Any]) -> list[CatalogEntry]:
    """Every catalog record with its live version and settling mark, from a `get` of the catalog."""
    entries = [
        CatalogEntry(
            course_record(course_id, metadata),
            metadata.get("version", ""),
            bool(metadata.get("settling", False)),
        )
        for course_id, metadata in zip(result["ids"], result["metadatas"], strict=True)
    ]
    return sorted(entries, key=lambda entry: entry.record.title.casefold())


class CatalogCache:
    """Every catalog entry, read once per change of the index rather than once per question."""

    def __init__(self, read: Callable[[], list[CatalogEntry]], stamp: Callable[[], str]):
        self._read = read
        self._stamp = stamp
        self._lock = threading.Lock()
        self._snapshot: CatalogSnapshot | None = None
        self._seen: str | None = None
        self._reads = itertools.count(1)
        self._memo: dict[Any, Any] = {}

    def snapshot(self) -> CatalogSnapshot:
        """The catalog; re-read only when another write has happened since the last read."""
        # The stamp is read before the catalog: a write in between leaves a stale stamp, so the next call
        # reads again; never the other way round (new stamp, old data).
        stamp = self._stamp()
        with self._lock:
            if self._snapshot is None or stamp != self._seen:
                self._snapshot = CatalogSnapshot.of(self._read(), next(self._reads))
                self._seen = stamp
                self._memo = {}
            return self._snapshot

    def entries(self) -> list[CatalogEntry]:
        """The catalog entries, sorted by title."""
        return self.snapshot().entries

    def memo(self, key: Any, compute: Callable[[list[CatalogEntry]], T]) -> T:
        """`compute(entries)`, remembered under `key` until the catalog changes; errors are not kept."""
        entries = self.entries()
        with self._lock:
            memo = self._memo
            if key in memo:
                return memo[key]
        value = compute(entries)
        with self._lock:
            if memo is self._memo:  # still the same catalog version
                if len(memo) >= MEMO_SIZE:
                    memo.clear()
                memo[key] = value
        return value

    def invalidate(self) -> None:
        """Forget what was read (after a write whose stamp this process may not see, e.g. a reset)."""
        with self._lock:
            self._snapshot = None
            self._memo = {}
