"""Check uploaded course files before they touch DOCS_DIR; app.library.uploads saves the accepted ones."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from werkzeug.datastructures import FileStorage
from werkzeug.utils import secure_filename

from app.courses.models import Course
from app.courses.parsing import SUPPORTED_EXTENSIONS, ParseError, parse_bytes
from app.library.uploads import Discard, UploadOutcome, save_courses

# Well under the 255 bytes a file name may have, leaving room for the temp and trash prefixes.
MAX_NAME_CHARS = 120


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
    # Spaces are kept as they are (a name with "_" instead is another file); anything else secure_filename
    # would change is refused.
    safe = secure_filename(name)
    if safe != name.replace(" ", "_"):
        suggestion = f" (for example to {safe})" if safe and Path(safe).stem else ""
        allowed = "letters, digits, '.', '-', '_' and spaces"
        raise ValueError(f"the name has characters other than {allowed}; rename it{suggestion}")
    if not Path(safe).stem or name != name.strip():
        raise ValueError("the name has no usable characters or starts or ends with a space; rename it")
    return name


# Refuses (ParseError) a parsed course that the sync would refuse, e.g. for its chunk count.
CourseCheck = Callable[[Course, str], object]


def check_file(
    upload: FileStorage, max_bytes: int, check_course: CourseCheck | None = None
) -> tuple[str, Course, bytes]:
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
        if check_course is not None:
            check_course(course, name)
    except ParseError as exc:
        # The reason and line; a file inside a course archive keeps its own name ("x.zip/course.txt: ...").
        raise ValueError(
            exc.message.removeprefix(f"{exc.file}: ") if exc.file == name else exc.message
        ) from exc
    return name, course, data


def save_uploads(
    uploads: Iterable[FileStorage],
    docs_dir: Path,
    max_bytes: int,
    check_upload: Callable[[Course], None],
    discard: Discard | None = None,
    check_course: CourseCheck | None = None,
) -> UploadOutcome:
    """Check every upload, then write the accepted ones into `docs_dir`, all or none; list the refused ones.

    Parsing (the slow part) happens before the folder lock. The title checks and the writes happen under it,
    so a concurrent upload (in any worker) of the same title waits and then sees this one's file, instead
    of passing the same check before either is written. A file an upload replaces goes to `discard`;
    `check_course` refuses, before the lock, a course the sync would refuse.
    """
    outcome = UploadOutcome()
    parsed: list[tuple[str, Course, bytes]] = []
    for upload in uploads:
        try:
            parsed.append(check_file(upload, max_bytes, check_course))
        except ValueError as exc:
            outcome.refuse(upload.filename or "(no name)", str(exc))
    return save_courses(parsed, docs_dir, check_upload, outcome, discard)
