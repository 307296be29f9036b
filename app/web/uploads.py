"""Check uploaded course files before they touch DOCS_DIR, then save the accepted ones atomically."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from werkzeug.datastructures import FileStorage
from werkzeug.utils import secure_filename

from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_bytes
from app.errors import AppError
from app.files import locked_folder, stage_file

# Well under the 255 bytes a file name may have, leaving room for the temp and trash prefixes.
MAX_NAME_CHARS = 120


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


def megabytes(size: int) -> str:
    """A byte count as a short human size: 'N MB', 'N KB' or 'N bytes'."""
    if size >= 1024 * 1024:
        return f"{round(size / (1024 * 1024), 2):g} MB"
    if size >= 1024:
        return f"{round(size / 1024):g} KB"
    return f"{size} bytes"


def safe_name(name: str) -> str:
    """Return the name an uploaded file is saved under; raise ValueError with the reason when there is none.

    A name is used as given or refused: a changed name could silently replace another course's file.
    """
    if not name.strip():
        raise ValueError("the file has no name")
    # Refuse rather than silently strip folders: "../../x.txt" is a mistake or an attack, never intended.
    if "/" in name or "\\" in name or PurePosixPath(name).name in ("", ".", ".."):
        raise ValueError("the name contains folder parts (only a plain file name is accepted)")
    if name.startswith("."):
        raise ValueError("the name starts with a dot (a hidden file); rename it")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"the name is longer than {MAX_NAME_CHARS} characters; rename it")
    # Spaces become underscores (harmless); anything else secure_filename would change is refused.
    safe = secure_filename(name)
    if safe != name.replace(" ", "_"):
        suggestion = f" (for example to {safe})" if safe and Path(safe).stem else ""
        allowed = "letters, digits, '.', '-', '_' and spaces"
        raise ValueError(f"the name has characters other than {allowed}; rename it{suggestion}")
    if not Path(safe).stem:
        raise ValueError("the name has no usable characters")
    return safe


def check_file(upload: FileStorage, max_bytes: int) -> tuple[str, Course, bytes]:
    """Check one upload's name, extension, size and content; raise ValueError with the reason."""
    name = safe_name(upload.filename or "")
    extension = Path(name).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        raise ValueError(
            f"only {', '.join(SUPPORTED_EXTENSIONS)} files are accepted, not '{extension or name}'"
        )
    data = upload.stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"the file is larger than the {megabytes(max_bytes)} limit")
    if not data:
        raise ValueError("the file is empty")
    try:
        course = parse_bytes(data, name)
    except ParseError as exc:
        raise ValueError(exc.reason + (f" (line {exc.line})" if exc.line is not None else "")) from exc
    return name, course, data


def save_uploads(
    uploads: Iterable[FileStorage], docs_dir: Path, max_bytes: int, check_upload: Callable[[Course], None]
) -> UploadOutcome:
    """Check every upload, then write the accepted ones into `docs_dir`, all or none; list the refused ones.

    Parsing (the slow part) happens before the folder lock. The title checks and the writes happen under it,
    so a concurrent upload (in any worker) of the same title waits and then sees this one's file, instead
    of passing the same check before either is written.
    """
    outcome = UploadOutcome()
    parsed: list[tuple[str, Course, bytes]] = []
    for upload in uploads:
        try:
            parsed.append(check_file(upload, max_bytes))
        except ValueError as exc:
            outcome.refused.append(Refused(upload.filename or "(no name)", str(exc)))
    with locked_folder(docs_dir):
        _accept(parsed, docs_dir, check_upload, outcome)
        _write_all(outcome.accepted, docs_dir)
    return outcome


def _accept(
    parsed: list[tuple[str, Course, bytes]],
    docs_dir: Path,
    check_upload: Callable[[Course], None],
    outcome: UploadOutcome,
) -> None:
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
            outcome.refused.append(Refused(name, exc.message))
            continue
        except ValueError as exc:
            outcome.refused.append(Refused(name, str(exc)))
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
        raise AppError(
            f"The upload could not be saved ({reason}); no file was changed. Free some space or try again.",
            status=507 if exc.errno == errno.ENOSPC else 500,
        ) from exc
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
