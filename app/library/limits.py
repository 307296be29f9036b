"""The bounds on one course file, the same at upload and at sync: its size and the chunks it becomes."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.courses.chunking import chunk_course
from app.courses.models import Chunk, Course
from app.courses.parsing import ParseError

# The most chunks one document may become: a 50 MB one-line file would otherwise be 65,536 of them (hours of
# embedding). 10,000 chunks of 800 characters is a course of about 8 MB of text.
MAX_CHUNKS_PER_DOCUMENT = 10_000


def size_problem(path: Path, settings: Settings) -> str | None:
    """Why a file is too large to index (over MAX_DOCUMENT_MB), or None."""
    try:
        size = path.stat().st_size
    except OSError:
        return None  # reading it says what is wrong
    if size <= settings.max_document_bytes:
        return None
    return (
        f"{path.name}: the file is {size / 1024 / 1024:.3g} MB, over the {settings.max_document_mb:g} MB "
        "limit for one course file (MAX_DOCUMENT_MB); split it, or raise the limit"
    )


def too_many_chunks(count: int, at_least: bool = False) -> str:
    """Why a document that would make `count` chunks (or more) is refused."""
    return (
        f"the file would make {'at least ' if at_least else ''}{count:,} chunks, more than the "
        f"{MAX_CHUNKS_PER_DOCUMENT:,} one course may have; split it into several courses"
    )


def fewest_chunks(course: Course, size: int) -> int:
    """A lower bound on the course's chunk count, without chunking: a chunk holds at most `size` characters,
    so a lesson makes at least its non-space characters over `size` chunks."""
    visible: dict[int, int] = {}  # by text: lessons that name one caption file share its text
    total = 0
    for lesson in course.lessons:
        key = id(lesson.text)
        if key not in visible:
            visible[key] = len("".join(lesson.text.split()))
        total += -(-visible[key] // size)
    return total


def capped_chunks(course: Course, name: str, settings: Settings) -> list[Chunk]:
    """The course's chunks; ParseError when they are over MAX_CHUNKS_PER_DOCUMENT.

    A course clearly over is refused from its lower bound, before chunking (seconds for a large file).
    """
    least = fewest_chunks(course, settings.chunk_size)
    if least > MAX_CHUNKS_PER_DOCUMENT:
        raise ParseError(name, too_many_chunks(least, at_least=True))
    chunks = chunk_course(course, settings.chunk_size, settings.chunk_overlap)
    if len(chunks) > MAX_CHUNKS_PER_DOCUMENT:
        raise ParseError(name, too_many_chunks(len(chunks)))
    return chunks
