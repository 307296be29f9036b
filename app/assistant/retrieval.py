"""What the tools retrieved while one answer was made: the best passage, for the question log.

Answers carry no confidence figure of their own; the best passage score any search of the answer saw (cosine
similarity, 1 is identical) stands in for it, and that passage's lesson is the one that came closest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from app.search.models import Passage


@dataclass
class Retrieval:
    """The best passage the searches of one answer saw (None: no search found anything)."""

    best: Passage | None = None

    def saw(self, passages: Iterable[Passage]) -> None:
        """Keep the best-scoring passage so far."""
        for passage in passages:
            if self.best is None or passage.score > self.best.score:
                self.best = passage

    @property
    def confidence(self) -> float | None:
        """The best passage's score."""
        return self.best.score if self.best is not None else None

    @property
    def closest(self) -> tuple[str, int] | None:
        """The best passage's (course, lesson)."""
        return (self.best.course_title, self.best.lesson_number) if self.best is not None else None


_watching: ContextVar[Retrieval | None] = ContextVar("retrieval", default=None)


@contextmanager
def watching(retrieval: Retrieval) -> Iterator[Retrieval]:
    """Tell `retrieval` what searches see in this context (this thread, this request) until the block ends."""
    token = _watching.set(retrieval)
    try:
        yield retrieval
    finally:
        _watching.reset(token)


def saw(passages: list[Passage]) -> None:
    """Tell the current watch, if any, what a search found."""
    retrieval = _watching.get()
    if retrieval is not None:
        retrieval.saw(passages)
