"""The course catalog as this process last read it, refreshed only when the index's change stamp moves."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from app.search.models import CourseRecord


@dataclass(frozen=True)
class CatalogEntry:
    """A course's catalog record, its live version, and whether a write to it is under way (settling)."""

    record: CourseRecord
    version: str
    settling: bool = False


class CatalogCache:
    """Every catalog entry, read once per change of the index rather than once per question."""

    def __init__(self, read: Callable[[], list[CatalogEntry]], stamp: Callable[[], str]):
        self._read = read
        self._stamp = stamp
        self._lock = threading.Lock()
        self._entries: list[CatalogEntry] | None = None
        self._seen: str | None = None

    def entries(self) -> list[CatalogEntry]:
        """The catalog, sorted by title; re-read only when another write has happened since the last read."""
        # The stamp is read before the catalog: a write in between leaves a stale stamp, so the next call
        # reads again; never the other way round (new stamp, old data).
        stamp = self._stamp()
        with self._lock:
            if self._entries is None or stamp != self._seen:
                self._entries = self._read()
                self._seen = stamp
            return self._entries

    def invalidate(self) -> None:
        """Forget what was read (after a write whose stamp this process may not see, e.g. a reset)."""
        with self._lock:
            self._entries = None
