"""Indexer: bring the index in line with DOCS_DIR by content hash, one writer at a time, with progress."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from app.config import Settings
from app.courses.caption_course import HEADER_NAME, parse_caption_course
from app.courses.models import Chunk, Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, content_hash, parse_bytes
from app.errors import Conflict, NotFound, SyncBusy
from app.files import locked, write_atomically
from app.library.limits import capped_chunks, size_problem
from app.library.state import StatePaths
from app.search.index import CourseIndex
from app.search.models import CourseRecord, FileResult, FileStatus, SyncProgress, SyncReport

log = logging.getLogger(__name__)

Progress = Callable[[SyncProgress], None]


@dataclass
class _Run:
    """What one sync pass works from: the catalog at its start, the file names, the rebuild generation."""

    catalog: dict[str, CourseRecord]
    names: set[str]
    generation: str | None  # None for a plain sync
    versions: dict[str, str]  # live version per course id, read only for a rebuild
    claimed: dict[str, str] = field(default_factory=dict)  # course id -> the file holding it after this pass
    # Reports chunks written of the current file (done, total), so a large file's progress moves.
    on_chunks: Callable[[int, int], None] = lambda done, total: None
    # Reports the step the current file is at ("Parsing"), so a slow step shows as it happens.
    on_step: Callable[[str], None] = lambda step: None


class Indexer:
    """Sync the documents folder into a CourseIndex: add, update, skip, remove, and report each file."""

    def __init__(self, settings: Settings, index: CourseIndex):
        self.settings = settings
        self.index = index

    @property
    def lock_path(self) -> Path:
        """The writer lock file, beside the index."""
        return StatePaths.of(self.settings).sync_lock

    def supported_files(self) -> list[Path]:
        """Course documents in DOCS_DIR, sorted by name: files of a supported type and captioned course
        folders (holding course.txt); hidden entries and other types (README.md) skipped."""
        docs = self.settings.docs_dir
        if not docs.is_dir():
            return []
        return sorted(path for path in docs.iterdir() if not path.name.startswith(".") and _is_course(path))

    @contextlib.contextmanager
    def writer_lock(self, wait: bool = True) -> Iterator[None]:
        """Hold the writer lock; with wait=False raise SyncBusy when another sync holds it."""
        with contextlib.ExitStack() as stack:
            try:
                fd = stack.enter_context(locked(self.lock_path, wait=wait))
            except BlockingIOError:
                holder = self.lock_path.read_text(errors="replace").strip()
                # The lock's path and holder are for the operator's log, never for a response.
                log.info("writer lock %s held by process %s", self.lock_path, holder or "unknown")
                raise SyncBusy("A sync is already running; try again when it has finished.") from None
            # Only for people reading the file: the lock itself is the flock, gone when its holder dies.
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield

    @property
    def rebuild_marker(self) -> Path:
        """The file that says a rebuild is under way, holding its generation, beside the writer lock."""
        return StatePaths.of(self.settings).rebuild_marker

    def sync(self, rebuild: bool = False, progress: Progress | None = None, wait: bool = True) -> SyncReport:
        """Index new and changed files, skip unchanged ones, remove courses whose file is gone.

        A rebuild writes every course again under a fresh version and flips each one like an update, so
        searches see every course throughout; a rebuild that was cut off is finished by the next sync.
        """
        started = time.monotonic()
        with self.writer_lock(wait):
            generation = self._rebuild_generation(rebuild)
            # A sync killed half-way left chunks of a version the catalog never pointed at.
            self.index.purge_orphans()
            results = self._sync_files(progress or (lambda event: None), generation)
            if generation is not None:
                # Every course is now of this rebuild (or kept its old version because its file failed).
                self.index.purge_orphans()
                self.rebuild_marker.unlink(missing_ok=True)
        seconds = round(time.monotonic() - started, 3)
        finished = datetime.now(UTC).isoformat(timespec="seconds")
        report = SyncReport(
            results=results, seconds=seconds, rebuild=generation is not None, finished_at=finished
        )
        write_atomically(StatePaths.of(self.settings).last_sync_file, report.model_dump_json())
        return report

    def _rebuild_generation(self, rebuild: bool) -> str | None:
        """The generation this pass writes under: a pending rebuild's, a new one for a rebuild, else None."""
        marker = self.rebuild_marker
        pending = marker.read_text().strip() if marker.is_file() else ""
        if not pending and not rebuild:
            # Vectors of two encoders are not comparable: a new encoder (model or export) re-embeds it all.
            stale = self.index.stale_encoders()
            if not stale:
                return None
            log.warning("The index holds vectors of another encoder (%s): re-embedding every course", stale)
        stored = self.index.stored_dimension()
        if stored is not None and stored != self.index.model_dimension():
            # A collection holds vectors of one dimension, so a model of another size cannot write beside
            # the old vectors; those are unsearchable with the new model's queries anyway. Start empty.
            self.index.clear()
        if pending:
            return pending
        generation = secrets.token_hex(8)
        marker.write_text(f"{generation}\n")
        return generation

    def _sync_files(self, progress: Progress, generation: str | None) -> list[FileResult]:
        """Walk the files, then the courses whose file is gone, reporting progress around each step."""
        files = self.supported_files()
        run = self._new_run(files, generation)
        gone = [record for record in run.catalog.values() if record.source_file not in run.names]
        steps: list[tuple[str, Callable[[], list[FileResult]]]] = [
            *((path.name, functools.partial(self._sync_file, path, run)) for path in files),
            *((record.source_file, functools.partial(self._sync_gone, record, run)) for record in gone),
        ]
        results: list[FileResult] = []
        for done, (name, step) in enumerate(steps):
            progress(SyncProgress(done=done, total=len(steps), current_file=name))
            run.on_chunks = functools.partial(_chunk_progress, progress, done, len(steps), name)
            run.on_step = functools.partial(_step_progress, progress, done, len(steps), name)
            step_results = step()
            results.extend(step_results)
            first = step_results[0] if step_results else None
            progress(SyncProgress(done=done + 1, total=len(steps), current_file=name, result=first))
        return results

    def _new_run(self, files: list[Path], generation: str | None) -> _Run:
        """Snapshot the catalog and the folder's file names for one pass."""
        return _Run(
            catalog={record.id: record for record in self.index.courses()},
            names={path.name for path in files},
            generation=generation,
            versions=self.index.versions() if generation is not None else {},
        )

    def _sync_file(self, path: Path, run: _Run) -> list[FileResult]:
        """Sync one file; the first result is the file's own, a second reports a course it stopped holding."""
        name = path.name
        previous = next((record for record in run.catalog.values() if record.source_file == name), None)
        too_big = size_problem(path, self.settings)
        if too_big:
            return [self._failed(name, too_big, previous, run.claimed)]
        try:
            digest, parse = course_reader(path)
            if previous is not None and self._is_current(previous, digest, run):
                run.claimed[previous.id] = name
                return [FileResult(file=name, status="unchanged", course_title=previous.title)]
            run.on_step("Parsing")
            course = parse()
            refusal = self._refusal(course, name, run)
            if refusal is not None:
                return [refusal]
            run.on_step("Splitting into chunks")
            chunks = capped_chunks(course, name, self.settings)  # ParseError over the chunk cap
        except OSError as exc:
            reason = f"{name}: cannot read the file ({exc.strerror})"
            return [self._failed(name, reason, previous, run.claimed)]
        except ParseError as exc:
            return [self._failed(name, exc.message, previous, run.claimed)]
        results = [self._index_course(course, chunks, name, run)]
        if previous is not None and previous.id != course.id and previous.id not in run.claimed:
            # The file's title changed: the course it used to hold goes, now that the new one is live.
            results.append(self._remove(previous, name))
        return results

    def _sync_gone(self, record: CourseRecord, run: _Run) -> list[FileResult]:
        """Remove a course whose file is gone; report nothing when another file now holds it."""
        if record.id in run.claimed:
            # Another file took the course over (a renamed file), so it stays.
            return []
        return [self._remove(record, record.source_file)]

    def _refusal(self, course: Course, name: str, run: _Run) -> FileResult | None:
        """Refuse a file whose course title another file already holds; None when this file may index it."""
        owner = run.claimed.get(course.id) or self._owner(course, run.catalog, run.names)
        if owner is None or owner == name:
            return None
        return FileResult(
            file=name,
            status="refused",
            course_title=course.title,
            error=f"{name}: '{course.title}' is already the course in {owner}",
        )

    def _index_course(self, course: Course, chunks: list[Chunk], name: str, run: _Run) -> FileResult:
        """Write a parsed, chunked course, and claim it for its file."""
        run.on_chunks(0, len(chunks))  # embedding the first batch takes a while: say so before it starts
        self.index.upsert_course(course, chunks, generation=run.generation or "", on_chunks=run.on_chunks)
        run.claimed[course.id] = name
        status: FileStatus = "updated" if course.id in run.catalog else "added"
        return FileResult(file=name, status=status, course_title=course.title, chunks=len(chunks))

    def _remove(self, record: CourseRecord, name: str) -> FileResult:
        """Remove a course from the index and report it under the file name given."""
        self.index.remove_course(record.id)
        return FileResult(file=name, status="removed", course_title=record.title)

    def _is_current(self, record: CourseRecord, digest: str, run: _Run) -> bool:
        """True when the indexed course is this content (and, in a rebuild, already of this rebuild)."""
        if record.content_hash != digest:
            return False
        return run.generation is None or run.versions.get(record.id) == self.index.version_for(
            digest, run.generation
        )

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

    def indexed_course(self, record: CourseRecord) -> Course:
        """The course as its file holds it, when that is still the version indexed; NotFound otherwise, so
        a reader never gets text that the index (and so search) does not hold."""
        try:
            digest, parse = course_reader(self.settings.docs_dir / record.source_file)
            if digest == record.content_hash:
                return parse()
        except (OSError, ParseError):
            pass
        raise NotFound(
            f"The file of '{record.title}' has changed or gone since it was indexed.",
            detail="The next sync indexes it as it is now.",
        )

    def check_upload(self, course: Course) -> None:
        """Refuse (409) a course whose title another file in the folder holds; the same file is an update."""
        holder = self._title_holder(course)
        if holder is not None:
            raise Conflict(
                f"'{course.title}' is already the course in {holder}",
                detail=f"Remove or replace {holder} to change that course.",
            )

    def _title_holder(self, course: Course) -> str | None:
        """Another file in the folder that holds this title, in the index or (not yet indexed) by its text.

        A file placed by hand, or uploaded while a sync still runs, holds its title before it is indexed;
        only files the catalog does not have with their current hash are parsed.
        """
        files = [path for path in self.supported_files() if path.name != course.source_file]
        record = self.index.get_course(course.id)
        if record is not None and any(path.name == record.source_file for path in files):
            return record.source_file
        indexed = {record.source_file: record.content_hash for record in self.index.courses()}
        for path in files:
            if size_problem(path, self.settings):
                continue  # a file too large to index holds no title
            try:
                digest, parse = course_reader(path)
                if indexed.get(path.name) == digest:
                    continue  # indexed as it is, so its title is its catalog record's, checked above
                if parse().id == course.id:
                    return path.name
            except (OSError, ParseError):
                continue  # a file that cannot be read holds no title the sync would index
        return None


def _is_course(path: Path) -> bool:
    """Whether a DOCS_DIR entry is a course: a file of a supported type, or a folder holding course.txt."""
    if path.is_dir():
        return (path / HEADER_NAME).is_file()
    return path.is_file() and path.suffix.lower() in SUPPORTED_EXTENSIONS


def course_reader(path: Path) -> tuple[str, Callable[[], Course]]:
    """A course entry's content hash, and how to parse it; raises OSError or ParseError.

    A file is hashed before it is parsed, so an unchanged one is never parsed. A folder's hash covers
    course.txt and the caption files it names, so the folder is read (and parsed) to know it.
    """
    if path.is_dir():
        course = parse_caption_course(path)
        return course.content_hash, lambda: course
    data = path.read_bytes()
    return content_hash(data), functools.partial(parse_bytes, data, path.name)


def last_sync(settings: Settings) -> SyncReport | None:
    """The report of the last sync that finished, from any source; None before the first."""
    try:
        return SyncReport.model_validate_json(StatePaths.of(settings).last_sync_file.read_bytes())
    except (OSError, ValidationError):
        return None


def _chunk_progress(
    progress: Progress, done: int, total: int, name: str, chunks_done: int, chunks_total: int
) -> None:
    """Report chunks written of the file being indexed."""
    progress(
        SyncProgress(
            done=done,
            total=total,
            current_file=name,
            chunks_done=chunks_done,
            chunks_total=chunks_total,
            step="Embedding and writing chunks",
        )
    )


def _step_progress(progress: Progress, done: int, total: int, name: str, step: str) -> None:
    """Report the step the file being indexed is at."""
    progress(SyncProgress(done=done, total=total, current_file=name, step=step))
