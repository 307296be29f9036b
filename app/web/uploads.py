"""Check uploaded course files before they touch DOCS_DIR, then save the accepted ones atomically."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from werkzeug.datastructures import FileStorage
from werkzeug.utils import secure_filename

from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_bytes
from app.errors import AppError
from app.files import locked, write_atomically


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
    """Return a safe base name for an uploaded file; raise ValueError with the reason when there is none."""
    if not name.strip():
        raise ValueError("the file has no name")
    # Refuse rather than silently strip folders: "../../x.txt" is a mistake or an attack, never intended.
    if "/" in name or "\\" in name or PurePosixPath(name).name in ("", ".", ".."):
        raise ValueError("the name contains folder parts (only a plain file name is accepted)")
    safe = secure_filename(name)
    if not safe or not Path(safe).stem or safe.startswith("."):
        raise ValueError("the name has no usable characters")
    return safe


def check_file(
    upload: FileStorage, max_bytes: int, check_upload: Callable[[Course], None]
) -> tuple[str, Course, bytes]:
    """Check one upload: name, extension, size, content and course title; raise ValueError with the reason."""
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
        check_upload(course)
    except ParseError as exc:
        raise ValueError(exc.reason + (f" (line {exc.line})" if exc.line is not None else "")) from exc
    except AppError as exc:
        raise ValueError(exc.message) from exc
    return name, course, data


def save_uploads(
    uploads: Iterable[FileStorage], docs_dir: Path, max_bytes: int, check_upload: Callable[[Course], None]
) -> UploadOutcome:
    """Check every upload first, then write the accepted ones into `docs_dir`; list the refused ones.

    Checks and writes happen under a lock on the folder, so a concurrent upload (in any worker) of the same
    title waits and then sees this one's file, instead of passing the same check before either is written.
    """
    docs_dir.mkdir(parents=True, exist_ok=True)
    with locked(docs_dir):
        return _check_and_write(uploads, docs_dir, max_bytes, check_upload)


def _check_and_write(
    uploads: Iterable[FileStorage], docs_dir: Path, max_bytes: int, check_upload: Callable[[Course], None]
) -> UploadOutcome:
    """Check every upload, then write the accepted ones (call with the folder lock held)."""
    outcome = UploadOutcome()
    course_ids: set[str] = set()  # by id, as the sync compares titles: "Kitchen-Basics" is "Kitchen Basics"
    for upload in uploads:
        label = upload.filename or "(no name)"
        try:
            name, course, data = check_file(upload, max_bytes, check_upload)
            if any(item.file == name for item in outcome.accepted):
                raise ValueError(f"another file in this upload is also named {name}")
            if course.id in course_ids:
                raise ValueError(f"another file in this upload has the course title '{course.title}'")
        except ValueError as exc:
            outcome.refused.append(Refused(label, str(exc)))
            continue
        course_ids.add(course.id)
        outcome.accepted.append(Accepted(name, course.title, (docs_dir / name).exists(), data))
    for item in outcome.accepted:
        write_atomically(docs_dir / item.file, item.data)
        item.data = b""
    return outcome
