"""What the index returns: passages, outlines, course records, sync reports."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from app.courses.timecodes import start_of


class LessonInfo(BaseModel):
    """A lesson as listed in an outline: number, title, link."""

    number: int
    title: str
    link: str | None = None
    # A captioned lesson's video length in seconds; None for lessons read from text.
    duration: float | None = None


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
    # A captioned lesson's passage: (offset in `text`, second in the video) of each sentence; None if untimed.
    sentence_times: tuple[tuple[int, float], ...] | None = None

    @property
    def place(self) -> tuple[str, int, int]:
        """Where the passage sits in the live library: (course title, lesson number, chunk index)."""
        return (self.course_title, self.lesson_number, self.chunk_index)

    def start_seconds(self, quote: str | None = None) -> float | None:
        """The second at which `quote` (or, without one, the passage) starts being said; None if untimed."""
        return start_of(self.text, self.sentence_times, quote)


class Outline(BaseModel):
    """A course's title, link, instructor and lessons."""

    title: str
    link: str | None = None
    instructor: str | None = None
    lessons: list[LessonInfo] = Field(default_factory=list)

    @property
    def captioned(self) -> bool:
        """Whether the course was read from caption files (its lessons have a video length)."""
        return any(lesson.duration is not None for lesson in self.lessons)


class CourseRecord(Outline):
    """A catalog entry: the outline plus where it came from and when it was indexed."""

    id: str
    source_file: str
    content_hash: str
    chunk_count: int
    indexed_at: datetime


FileStatus = Literal["added", "updated", "unchanged", "removed", "failed", "refused"]
# Every status in the order reports list them (the CLI's totals, the admin page's summary).
FILE_STATUSES: tuple[FileStatus, ...] = get_args(FileStatus)
# Statuses whose chunks were written by the sync.
WRITTEN: tuple[FileStatus, ...] = ("added", "updated")


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
    # Within the current file: chunks embedded and written so far, of how many.
    chunks_done: int = 0
    chunks_total: int = 0
    # What is being done to the current file now ("Parsing", "Embedding chunks"), for a slow file.
    step: str | None = None


class SyncReport(BaseModel):
    """The summary of one sync."""

    results: list[FileResult] = Field(default_factory=list)
    seconds: float = 0.0
    rebuild: bool = False
    # When it ended (ISO 8601, UTC); set on the record every sync leaves, from the admin page or the CLI.
    finished_at: str | None = None

    def count(self, status: FileStatus) -> int:
        """How many files ended with this status."""
        return sum(1 for result in self.results if result.status == status)

    @property
    def chunks(self) -> int:
        """Chunks written by this sync."""
        return sum(result.chunks for result in self.results if result.status in WRITTEN)

    @property
    def problems(self) -> list[FileResult]:
        """Files that failed to parse or were refused."""
        return [result for result in self.results if result.status in ("failed", "refused")]


JobState = Literal["running", "done", "failed", "interrupted"]


class SyncJob(BaseModel):
    """A background sync as every worker reads it from the job file: its state, progress and results."""

    id: str
    state: JobState = "running"
    rebuild: bool = False
    done: int = 0
    total: int = 0
    current_file: str | None = None
    # Chunks of the current file embedded so far, so a large file shows movement (0 of 0 between files).
    chunks_done: int = 0
    chunks_total: int = 0
    step: str | None = None  # what is being done to the current file now
    note: str | None = None
    results: list[FileResult] = Field(default_factory=list)
    failure: str | None = None
    seconds: float | None = None
    started_at: str
    finished_at: str | None = None
    pid: int
    # Set on the answer to a start request that found another job running (that job is returned).
    already_running: bool = False

    @property
    def running(self) -> bool:
        """True while the job has not ended."""
        return self.state == "running"

    @property
    def errors(self) -> list[str]:
        """The error of each file that failed or was refused."""
        return [result.error for result in self.results if result.error]

    @property
    def summary(self) -> dict[str, int]:
        """Files per status, plus the chunks written."""
        counts: dict[str, int] = dict.fromkeys(FILE_STATUSES, 0)
        for result in self.results:
            counts[result.status] += 1
        counts["chunks"] = sum(result.chunks for result in self.results if result.status in WRITTEN)
        return counts

    def public(self) -> dict:
        """The JSON form for the API: the stored fields but the worker's process id (internal to the host),
        plus the derived summary and errors."""
        return {
            **self.model_dump(mode="json", exclude={"pid"}),
            "summary": self.summary,
            "errors": self.errors,
        }
