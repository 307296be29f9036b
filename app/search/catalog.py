"""The course catalog as this process last read it, refreshed only when the index's change stamp moves."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.search.models import CourseRecord

T = TypeVar("T")
# Values remembered per catalog version (course names resolved, say), before the memo starts over.
MEMO_SIZE = 1024


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
        self._memo: dict[Any, Any] = {}

    def entries(self) -> list[CatalogEntry]:
        """The catalog, sorted by title; re-read only when another write has happened since the last read."""
        # The stamp is read before the catalog: a write in between leaves a stale stamp, so the next call
        # reads again; never the other way round (new stamp, old data).
        stamp = self._stamp()
        with self._lock:
            if self._entries is None or stamp != self._seen:
                self._entries = self._read()
                self._seen = stamp
                self._memo = {}
            return self._entries

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
            self._entries = None
            self._memo = {}
