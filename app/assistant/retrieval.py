"""What the tools retrieved while one answer was made: the best passage, for the question log.

Answers carry no confidence figure of their own; the best passage score any search of the answer saw (cosine
similarity, 1 is identical) stands in for it, and that passage's lesson is the one that came closest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from app.search.models import Passage

# A course's vote for being what the question is about: the sum of its best passages' scores (CombSUM
# over its top few), so one stray passage of another course does not outvote several of the right one.
VOTING_PASSAGES = 3


@dataclass
class Retrieval:
    """The best passage the searches of one answer saw (None: no search found anything), and each course's."""

    best: Passage | None = None
    by_course: dict[str, list[Passage]] = field(default_factory=dict)  # each course's best, best first

    def saw(self, passages: Iterable[Passage]) -> None:
        """Keep the best-scoring passage so far, and each course's few best (each place once)."""
        for passage in passages:
            if self.best is None or passage.score > self.best.score:
                self.best = passage
            kept = self.by_course.setdefault(passage.course_title, [])
            if all(other.place != passage.place for other in kept):
                kept.append(passage)
                kept.sort(key=lambda other: -other.score)
                del kept[VOTING_PASSAGES:]

    @property
    def about(self) -> str | None:
        """The course the searches point at as a whole: the highest sum of its best passages' scores."""
        if not self.by_course:
            return None
        return max(self.by_course, key=lambda course: sum(p.score for p in self.by_course[course]))

    def closest_in(self, course: str | None) -> tuple[str, int] | None:
        """The (course, lesson) of the best passage seen in `course` (None: none of it was seen)."""
        kept = self.by_course.get(course or "")
        return (kept[0].course_title, kept[0].lesson_number) if kept else None

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
