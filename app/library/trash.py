"""Trash: remove a course (its file or captioned-course folder to instance/trash, the course out of the
index) and restore it."""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.config import Settings
from app.courses.caption_course import HEADER_NAME, parse_caption_course
from app.courses.parsing import ParseError, parse_bytes
from app.errors import Conflict, NotFound, SyncBusy, Unprocessable
from app.files import locked_folder, write_atomically
from app.library.state import StatePaths
from app.library.sync import Indexer
from app.search.models import CourseRecord

BUSY = (
    "{what}: the index is being changed right now (a sync, or another removal or restore). "
    "Try again in a moment."
)

# "<UTC stamp>[.<n>]-<original name>": the stamp orders the entries, n keeps two removals apart. The counter
# has its own separator, so a name that starts with "digits-" ("1-numbered.txt") is read back whole. (Older
# entries wrote the counter as "-<n>-"; those read back with the "<n>-" prefix, but still restore.)
ENTRY = re.compile(r"^(\d{8}T\d{6}Z)(?:\.\d+)?-(.+)$")
STAMP = "%Y%m%dT%H%M%SZ"


@dataclass(frozen=True)
class TrashEntry:
    """A removed course file or folder: its name in the trash, its original name and when it was removed."""

    entry: str
    name: str
    removed_at: str  # "YYYY-MM-DD HH:MM", UTC


class Trash:
    """Removed course files and captioned-course folders, kept under instance/trash until restored."""

    def __init__(self, settings: Settings, indexer: Indexer):
        self.settings = settings
        self.indexer = indexer

    @property
    def folder(self) -> Path:
        """instance/trash."""
        return StatePaths.of(self.settings).trash

    def entries(self) -> list[TrashEntry]:
        """The files and course folders in the trash, newest first."""
        if not self.folder.is_dir():
            return []
        entries = []
        for path in self.folder.iterdir():
            match = ENTRY.match(path.name)
            if match and (path.is_file() or _is_course_folder(path)):
                removed = datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)
                entries.append(TrashEntry(path.name, match.group(2), removed.strftime("%Y-%m-%d %H:%M")))
        return sorted(entries, key=lambda item: item.entry, reverse=True)

    def remove(self, course_id: str) -> CourseRecord:
        """Move a course's file (or folder) to the trash and take the course out of the index; return it."""
        index = self.indexer.index
        # Holding the writer lock keeps a running sync (here or in `flask index`) from re-adding the course.
        with self._writer_lock("The course was not removed"):
            record = index.get_course(course_id)
            if record is None:
                raise NotFound(f"There is no course with id '{course_id}'.")
            source = Path(self.settings.docs_dir) / Path(record.source_file).name
            # A captioned course is a folder: all of it goes, or the next sync would bring the course back.
            if record.source_file and (source.is_file() or _is_course_folder(source)):
                self.keep(source, source.name)
            index.remove_course(course_id)
        return record

    def restore(self, entry: str) -> str:
        """Put a trashed file or folder back into the docs folder if its name and title are free; return its
        name."""
        match = ENTRY.match(entry)
        path = self.folder / entry
        if not match or not (path.is_file() or _is_course_folder(path)):
            raise NotFound("That file is not in the trash.")
        target = Path(self.settings.docs_dir) / match.group(2)
        # The folder lock is the one uploads take, so an upload of the same name or title cannot slip in.
        with self._writer_lock("The file was not restored"), locked_folder(target.parent):
            if target.exists():
                raise Conflict(f"{target.name} is already in the docs folder; remove it first.")
            if path.is_dir():
                self._restore_folder(path, target)
                return target.name
            data = path.read_bytes()
            try:
                course = parse_bytes(data, target.name)
            except ParseError as exc:
                raise Unprocessable(f"Cannot restore: {exc.message}") from exc
            self.indexer.check_upload(course)
            write_atomically(target, data)
            path.unlink()
        return target.name

    def _restore_folder(self, path: Path, target: Path) -> None:
        """Put a trashed course folder back as `target`, checked like a file; the caller holds the locks."""
        try:
            course = parse_caption_course(path, target.name)
        except ParseError as exc:
            raise Unprocessable(f"Cannot restore: {exc.message}") from exc
        self.indexer.check_upload(course)
        # Copied under a hidden name (sync skips those), then renamed: a sync never sees half a folder.
        staging = target.with_name(f".restoring-{target.name}")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(path, staging)
        staging.rename(target)
        shutil.rmtree(path)

    @contextlib.contextmanager
    def _writer_lock(self, what: str) -> Iterator[None]:
        """Hold the index's writer lock, or refuse saying that nothing happened and why."""
        try:
            with self.indexer.writer_lock(wait=False):
                yield
        except SyncBusy:
            raise SyncBusy(BUSY.format(what=what)) from None

    def keep(self, source: Path, name: str) -> Path:
        """Move a file (or course folder) into the trash as `name`, under an entry name no other entry has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime(STAMP)
        target, counter = self.folder / f"{stamp}-{name}", 1
        while target.exists():
            target, counter = self.folder / f"{stamp}.{counter}-{name}", counter + 1
        shutil.move(source, target)
        return target


def _is_course_folder(path: Path) -> bool:
    """Whether `path` is a captioned course's folder (it holds course.txt)."""
    return path.is_dir() and (path / HEADER_NAME).is_file()
