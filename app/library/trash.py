"""Trash: remove a course (its file to instance/trash, the course out of the index) and restore it."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.config import Settings
from app.courses.parsing import ParseError, parse_bytes
from app.errors import Conflict, NotFound, Unprocessable
from app.files import locked_folder, write_atomically
from app.library.state import StatePaths
from app.library.sync import Indexer
from app.search.models import CourseRecord

# "<UTC stamp>[-<n>]-<original name>": the stamp orders the entries, n keeps two removals apart.
ENTRY = re.compile(r"^(\d{8}T\d{6}Z)(?:-\d+)?-(.+)$")
STAMP = "%Y%m%dT%H%M%SZ"


@dataclass(frozen=True)
class TrashEntry:
    """A removed course file: its name in the trash, its original name and when it was removed."""

    entry: str
    name: str
    removed_at: str


class Trash:
    """Removed course files, kept under instance/trash until they are restored."""

    def __init__(self, settings: Settings, indexer: Indexer):
        self.settings = settings
        self.indexer = indexer

    @property
    def folder(self) -> Path:
        """instance/trash."""
        return StatePaths.of(self.settings).trash

    def entries(self) -> list[TrashEntry]:
        """The files in the trash, newest first."""
        if not self.folder.is_dir():
            return []
        entries = []
        for path in self.folder.iterdir():
            match = ENTRY.match(path.name)
            if path.is_file() and match:
                removed = datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)
                entries.append(TrashEntry(path.name, match.group(2), removed.isoformat(sep=" ")))
        return sorted(entries, key=lambda item: item.entry, reverse=True)

    def remove(self, course_id: str) -> CourseRecord:
        """Move a course's file to the trash and take the course out of the index; return what was removed."""
        index = self.indexer.index
        # Holding the writer lock keeps a running sync (here or in `flask index`) from re-adding the course.
        with self.indexer.writer_lock(wait=False):
            record = index.get_course(course_id)
            if record is None:
                raise NotFound(f"There is no course with id '{course_id}'.")
            source = Path(self.settings.docs_dir) / Path(record.source_file).name
            if record.source_file and source.is_file():
                self._move_in(source)
            index.remove_course(course_id)
        return record

    def restore(self, entry: str) -> str:
        """Put a trashed file back into the docs folder if its name and title are free; return its name."""
        match = ENTRY.match(entry)
        path = self.folder / entry
        if not match or not path.is_file():
            raise NotFound("That file is not in the trash.")
        target = Path(self.settings.docs_dir) / match.group(2)
        # The folder lock is the one uploads take, so an upload of the same name or title cannot slip in.
        with self.indexer.writer_lock(wait=False), locked_folder(target.parent):
            if target.exists():
                raise Conflict(f"{target.name} is already in the docs folder; remove it first.")
            data = path.read_bytes()
            try:
                course = parse_bytes(data, target.name)
            except ParseError as exc:
                raise Unprocessable(f"Cannot restore: {exc.message}") from exc
            self.indexer.check_upload(course)
            write_atomically(target, data)
            path.unlink()
        return target.name

    def _move_in(self, source: Path) -> Path:
        """Move a file into the trash under a timestamped name that no other entry has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime(STAMP)
        target, counter = self.folder / f"{stamp}-{source.name}", 1
        while target.exists():
            target, counter = self.folder / f"{stamp}-{counter}-{source.name}", counter + 1
        shutil.move(source, target)
        return target
