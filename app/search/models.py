"""What the index returns: passages, outlines, course records, sync reports."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class LessonInfo(BaseModel):
    """A lesson as listed in an outline: number, title, link."""

    number: int
    title: str
    link: str | None = None


class Passage(BaseModel):
    """One search hit: where it comes from, how close it is, and its text."""

    course_title: str
    course_link: str | None = None
    lesson_number: int
    lesson_title: str
    lesson_link: str | None = None
    chunk_index: int
    score: float
    text: str


class Outline(BaseModel):
    """A course's title, link, instructor and lessons."""

    title: str
    link: str | None = None
    instructor: str | None = None
    lessons: list[LessonInfo] = Field(default_factory=list)


class CourseRecord(Outline):
    """A catalog entry: the outline plus where it came from and when it was indexed."""

    id: str
    source_file: str
    content_hash: str
    chunk_count: int
    indexed_at: datetime


FileStatus = Literal["added", "updated", "unchanged", "removed", "failed", "refused"]


class FileResult(BaseModel):
    """What a sync did with one file."""

    file: str
    status: FileStatus
    course_title: str | None = None
    chunks: int = 0
    error: str | None = None


class SyncProgress(BaseModel):
    """A progress event: files done of total and the file being worked on."""

    done: int
    total: int
    current_file: str | None = None
    result: FileResult | None = None


class SyncReport(BaseModel):
    """The summary of one sync."""

    results: list[FileResult] = Field(default_factory=list)
    seconds: float = 0.0
    rebuild: bool = False

    def count(self, status: FileStatus) -> int:
        """How many files ended with this status."""
        return sum(1 for result in self.results if result.status == status)

    @property
    def chunks(self) -> int:
        """Chunks written by this sync."""
        return sum(result.chunks for result in self.results if result.status in ("added", "updated"))

    @property
    def problems(self) -> list[FileResult]:
        """Files that failed to parse or were refused."""
        return [result for result in self.results if result.status in ("failed", "refused")]
