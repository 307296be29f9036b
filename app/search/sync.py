"""Indexer: bring the index in line with DOCS_DIR by content hash, one writer at a time, with progress."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from app.config import Settings
from app.courses.chunking import chunk_course
from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_bytes
from app.errors import AppError, SyncBusy
from app.search.index import CourseIndex
from app.search.models import CourseRecord, FileResult, SyncProgress, SyncReport

Progress = Callable[[SyncProgress], None]
LOCK_NAME = "sync.lock"


class Indexer:
    """Sync the documents folder into a CourseIndex: add, update, skip, remove, and report each file."""

    def __init__(self, settings: Settings, index: CourseIndex):
        self.settings = settings
        self.index = index

    @property
    def lock_path(self) -> Path:
        """The writer lock file, beside the index."""
        return self.settings.state_dir / LOCK_NAME

    def supported_files(self) -> list[Path]:
        """Course documents in DOCS_DIR, sorted by name; hidden files, READMEs and other types are ignored."""
        docs = self.settings.docs_dir
        if not docs.is_dir():
            return []
        return sorted(
            path
            for path in docs.iterdir()
            if path.is_file()
            and not path.name.startswith(".")
            and path.suffix.lower() in SUPPORTED_EXTENSIONS
            and path.stem.lower() != "readme"
        )

    @contextlib.contextmanager
    def writer_lock(self, wait: bool = True) -> Iterator[None]:
        """Hold the writer lock; with wait=False raise SyncBusy when another sync holds it.

        flock belongs to the open file, and the OS drops it when the holder exits or is killed, so a crashed
        sync never leaves a stale lock behind; the pid written into the file is only for people reading it.
        """
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
                raise SyncBusy(
                    "A sync is already running; try again when it has finished.",
                    detail=f"lock {self.lock_path} held by process {holder or 'unknown'}",
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield
        finally:
            os.close(fd)

    def sync(self, rebuild: bool = False, progress: Progress | None = None, wait: bool = True) -> SyncReport:
        """Index new and changed files, skip unchanged ones, remove courses whose file is gone."""
        started = time.monotonic()
        with self.writer_lock(wait):
            if rebuild:
                self.index.clear()
            else:
                # A sync killed half-way left chunks of a version the catalog never pointed at.
                self.index.purge_orphans()
            results = self._sync_files(progress or (lambda event: None))
        return SyncReport(results=results, seconds=round(time.monotonic() - started, 3), rebuild=rebuild)

    def _sync_files(self, progress: Progress) -> list[FileResult]:
        """Walk the files, then the courses whose file is gone, reporting progress around each step."""
        files = self.supported_files()
        names = {path.name for path in files}
        catalog = {record.id: record for record in self.index.courses()}
        gone = [record for record in catalog.values() if record.source_file not in names]
        total = len(files) + len(gone)
        claimed: dict[str, str] = {}  # course id -> the file that holds it after this sync
        results: list[FileResult] = []
        done = 0
        for path in files:
            progress(SyncProgress(done=done, total=total, current_file=path.name))
            file_results = self._sync_file(path, catalog, names, claimed)
            results.extend(file_results)
            done += 1
            progress(SyncProgress(done=done, total=total, current_file=path.name, result=file_results[0]))
        for record in gone:
            progress(SyncProgress(done=done, total=total, current_file=record.source_file))
            result = None
            if record.id not in claimed:
                # Another file may have taken the course over (a renamed file); then it stays.
                self.index.remove_course(record.id)
                result = FileResult(file=record.source_file, status="removed", course_title=record.title)
                results.append(result)
            done += 1
            progress(SyncProgress(done=done, total=total, current_file=record.source_file, result=result))
        return results

    def _sync_file(
        self, path: Path, catalog: dict[str, CourseRecord], names: set[str], claimed: dict[str, str]
    ) -> list[FileResult]:
        """Sync one file; the first result is the file's own, a second reports a course it stopped holding."""
        previous = next((record for record in catalog.values() if record.source_file == path.name), None)
        try:
            data = path.read_bytes()
        except OSError as exc:
            return [
                self._failed(
                    path.name, f"{path.name}: cannot read the file ({exc.strerror})", previous, claimed
                )
            ]
        digest = hashlib.sha256(data).hexdigest()
        if previous is not None and previous.content_hash == digest:
            claimed[previous.id] = path.name
            return [FileResult(file=path.name, status="unchanged", course_title=previous.title)]
        try:
            course = parse_bytes(data, path.name)
        except ParseError as exc:
            return [self._failed(path.name, exc.message, previous, claimed)]
        owner = claimed.get(course.id) or self._owner(course, catalog, names)
        if owner is not None and owner != path.name:
            return [
                FileResult(
                    file=path.name,
                    status="refused",
                    course_title=course.title,
                    error=f"{path.name}: '{course.title}' is already the course in {owner}",
                )
            ]
        chunks = chunk_course(course, self.settings.chunk_size, self.settings.chunk_overlap)
        self.index.upsert_course(course, chunks)
        claimed[course.id] = path.name
        status = "updated" if course.id in catalog else "added"
        results = [FileResult(file=path.name, status=status, course_title=course.title, chunks=len(chunks))]
        if previous is not None and previous.id != course.id and previous.id not in claimed:
            # The file's title changed: the course it used to hold goes, now that the new one is live.
            self.index.remove_course(previous.id)
            results.append(FileResult(file=path.name, status="removed", course_title=previous.title))
        return results

    @staticmethod
    def _owner(course: Course, catalog: dict[str, CourseRecord], names: set[str]) -> str | None:
        """The file that holds this course's title in the catalog, if that file is still in the folder."""
        record = catalog.get(course.id)
        if record is not None and record.source_file in names:
            return record.source_file
        return None

    @staticmethod
    def _failed(name: str, reason: str, previous: CourseRecord | None, claimed: dict[str, str]) -> FileResult:
        """Report a file that cannot be read; its previously indexed course stays."""
        if previous is not None:
            claimed[previous.id] = name
        return FileResult(
            file=name, status="failed", course_title=previous.title if previous else None, error=reason
        )

    def check_upload(self, course: Course) -> None:
        """Refuse (409) a course whose title another file in the folder holds; the same file is an update."""
        record = self.index.get_course(course.id)
        if record is None or record.source_file == course.source_file:
            return
        if (self.settings.docs_dir / record.source_file).exists():
            raise AppError(
                f"'{course.title}' is already the course in {record.source_file}",
                detail=f"Remove or replace {record.source_file} to change that course.",
                status=409,
            )
