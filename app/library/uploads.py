"""Save accepted course files into DOCS_DIR all or none: staged beside their targets, then renamed in.

The request side (names, sizes, parsing of uploads) is app.web.uploads; this is the file side, which any
face that adds course files can use.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.courses.models import Course
from app.errors import AppError, InsufficientStorage
from app.files import locked_folder, stage_file

# A checked upload: its file name, the course it parses into, and its bytes.
Parsed = tuple[str, Course, bytes]
# Raises an AppError when another file already holds the course's title.
TitleCheck = Callable[[Course], None]


@dataclass
class Accepted:
    """A file that passed every check and was saved."""

    file: str
    course_title: str
    replaced: bool
    data: bytes = field(repr=False, default=b"")


@dataclass
class Refused:
    """A file that was not saved, and why."""

    file: str
    reason: str


@dataclass
class UploadOutcome:
    """What happened to each file of one upload."""

    accepted: list[Accepted] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    def refuse(self, file: str, reason: str) -> None:
        """Record a file that is not saved, and why."""
        self.refused.append(Refused(file, reason))


def save_courses(
    parsed: list[Parsed], docs_dir: Path, check_upload: TitleCheck, outcome: UploadOutcome
) -> UploadOutcome:
    """Write the parsed files whose name and title are free into `docs_dir`, all or none; refuse the others.

    The title checks and the writes happen under the folder lock, so a concurrent upload (in any worker) of
    the same title waits and then sees this one's file, instead of passing the same check before either is
    written.
    """
    with locked_folder(docs_dir):
        _accept(parsed, docs_dir, check_upload, outcome)
        _write_all(outcome.accepted, docs_dir)
    return outcome


def _accept(parsed: list[Parsed], docs_dir: Path, check_upload: TitleCheck, outcome: UploadOutcome) -> None:
    """Accept each parsed file whose name and title are free (call with the folder lock held)."""
    course_ids: set[str] = set()  # by id, as the sync compares titles: "Kitchen-Basics" is "Kitchen Basics"
    for name, course, data in parsed:
        try:
            if any(item.file == name for item in outcome.accepted):
                raise ValueError(f"another file in this upload is also named {name}")
            if course.id in course_ids:
                raise ValueError(f"another file in this upload has the course title '{course.title}'")
            check_upload(course)
        except AppError as exc:
            outcome.refuse(name, exc.message)
            continue
        except ValueError as exc:
            outcome.refuse(name, str(exc))
            continue
        course_ids.add(course.id)
        outcome.accepted.append(Accepted(name, course.title, (docs_dir / name).exists(), data))


def _write_all(accepted: list[Accepted], docs_dir: Path) -> None:
    """Write every accepted file or none: stage them all beside their targets, then rename them into place.

    A full disk fails while staging, before any course file changed. A rename that fails (a folder where
    the file should go, an I/O error) puts back what the earlier renames replaced or added.
    """
    staged: list[tuple[Path, Path]] = []
    moved: list[tuple[Path, Path | None]] = []  # each target renamed into place, with the old file's copy
    try:
        for item in accepted:
            staged.append((stage_file(docs_dir / item.file, item.data), docs_dir / item.file))
            item.data = b""
        for temp, target in staged:
            moved.append((target, _move_into_place(temp, target)))
    except OSError as exc:
        _undo(staged, moved)
        reason = exc.strerror or type(exc).__name__
        message = (
            f"The upload could not be saved ({reason}); no file was changed. Free some space or try again."
        )
        error = InsufficientStorage if exc.errno == errno.ENOSPC else AppError
        raise error(message) from exc
    for _, backup in moved:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _move_into_place(temp: Path, target: Path) -> Path | None:
    """Rename a staged file over its target; return a hard link to the file it replaced, if there was one."""
    backup = None
    if target.is_file():
        # A hidden name, like the staged file's, so the indexer never reads it as a course.
        backup = target.with_name(f".{target.name[:100]}.{secrets.token_hex(4)}.old")
        os.link(target, backup)
    try:
        os.replace(temp, target)
    except OSError:
        if backup is not None:
            backup.unlink(missing_ok=True)
        raise
    return backup


def _undo(staged: list[tuple[Path, Path]], moved: list[tuple[Path, Path | None]]) -> None:
    """Put back what earlier renames replaced, remove what they added, and drop the staged copies."""
    for target, backup in reversed(moved):
        with contextlib.suppress(OSError):
            if backup is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(backup, target)
    for temp, _ in staged:
        temp.unlink(missing_ok=True)
