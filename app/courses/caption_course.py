"""A captioned course: a folder or `.zip` holding `course.txt` and caption files, or a single caption file.

`course.txt` uses the TXT course header, one block per lesson, and nothing else::

    Course Title: <title>            (optional; else the folder or archive name)
    Course Link: <url>               (optional)
    Course Instructor: <name>        (optional)
    Lesson 1: <lesson title>
    Lesson Link: <video url>         (optional)
    Lesson Captions: <file name>     (a .vtt or .srt file next to course.txt)

A single `.vtt`/`.srt` file is one course of one lesson, titled from its file name.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.courses.captions import caption_sentences
from app.courses.models import Course, Lesson
from app.courses.reading import ParseError, content_hash, decode_text, title_from_filename

HEADER_NAME = "course.txt"
CAPTION_FILE_TYPES = (".vtt", ".srt")
# An archive is refused from its directory, before anything is inflated: captions are text of about
# 100 KB per lecture hour, so these limits leave room for hundreds of lectures and stop zip bombs.
MAX_ARCHIVE_MEMBERS = 1000
MAX_ARCHIVE_BYTES = 100 * 1024 * 1024
MAX_CAPTION_BYTES = 20 * 1024 * 1024
_LESSON = re.compile(r"^lesson\s+(\d+)\s*:\s*(.*)$", re.IGNORECASE)
_FIELD = re.compile(
    r"^(course\s+title|course\s+link|course\s+instructor|lesson\s+link|lesson\s+captions)\s*:\s*(.*)$", re.I
)
_ANY_FIELD = re.compile(r"^([^:]{1,40}):")
_DRIVE = re.compile(r"^[A-Za-z]:")

# Reads a caption file named in course.txt: (name, course.txt line) -> (bytes, name for error messages).
CaptionReader = Callable[[str, int], tuple[bytes, str]]


@dataclass
class _LessonEntry:
    """One lesson block of course.txt."""

    number: int
    title: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class CourseHeader:
    """What course.txt says: the course fields and one entry per lesson, in file order."""

    fields: dict[str, str]
    lessons: list[_LessonEntry]


def parse_caption_course(path: Path, name: str | None = None) -> Course:
    """Read a captioned course from a folder holding course.txt (a `.zip` of one, or one caption file, is
    read by `parse_caption_bytes`, through `app.courses.parsing` as every file is).

    `name` is the folder's name in DOCS_DIR when it is read from elsewhere (the trash); else its own.
    """
    path = Path(path)
    if not path.is_dir():
        raise ParseError(name or path.name, "not a captioned course folder")
    return _parse_folder(path, name or path.name)


def parse_caption_bytes(data: bytes, filename: str) -> Course:
    """Parse an uploaded `.zip` course archive or a single `.vtt`/`.srt` file."""
    name = Path(filename).name
    if name.lower().endswith(".zip"):
        return _parse_zip(data, name)
    title = title_from_filename(name)
    lesson = captioned_lesson(1, title, None, data, name)
    return Course(title=title, lessons=[lesson], source_file=name, content_hash=content_hash(data))


def captioned_lesson(number: int, title: str, link: str | None, data: bytes, name: str) -> Lesson:
    """Make a lesson from a caption file: its sentences as text, each sentence's offset and time."""
    sentences, duration = caption_sentences(data, name)
    times: list[tuple[int, float]] = []
    offset = 0
    for sentence in sentences:
        times.append((offset, sentence.start))
        offset += len(sentence.text) + 1
    text = " ".join(sentence.text for sentence in sentences)
    return Lesson(
        number=number, title=title, link=link, text=text, sentence_times=tuple(times), duration=duration
    )


def read_course_header(text: str, name: str) -> CourseHeader:
    """Read course.txt strictly: every non-blank line must be a known field, else it is refused."""
    fields: dict[str, str] = {}
    lessons: list[_LessonEntry] = []
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        lesson, known = _LESSON.match(line), _FIELD.match(line)
        if not line:
            continue
        if lesson:
            lessons.append(_new_lesson(lesson, lessons, name, number))
        elif known:
            _set_field(
                " ".join(known.group(1).lower().split()),
                known.group(2).strip(),
                fields,
                lessons,
                name,
                number,
            )
        else:
            unknown = _ANY_FIELD.match(line)
            reason = f"unknown header field '{unknown.group(1)}'" if unknown else "not a header field line"
            raise ParseError(name, reason, line=number)
    if not lessons:
        raise ParseError(
            name, "no lessons: add 'Lesson 1: <title>' and its 'Lesson Captions:'", line=len(lines)
        )
    for entry in lessons:
        if not entry.fields.get("lesson captions"):
            raise ParseError(name, f"lesson {entry.number} has no 'Lesson Captions:' line", line=entry.line)
    return CourseHeader(fields, lessons)


def _new_lesson(match: re.Match[str], lessons: list[_LessonEntry], name: str, line: int) -> _LessonEntry:
    """Open a lesson block, refusing a lesson number that is already taken."""
    number = int(match.group(1))
    if any(entry.number == number for entry in lessons):
        raise ParseError(name, f"duplicate lesson number {number}", line=line)
    return _LessonEntry(number, match.group(2).strip() or f"Lesson {number}", line)


def _set_field(
    key: str, value: str, fields: dict[str, str], lessons: list[_LessonEntry], name: str, line: int
) -> None:
    """Store a course field (before the lessons) or a lesson field (inside a lesson block), once each."""
    label = key.title()
    if key.startswith("course"):
        if lessons:
            raise ParseError(name, f"'{label}' must come before the first lesson", line=line)
        target = fields
    elif not lessons:
        raise ParseError(name, f"'{label}' comes before any 'Lesson N:' line", line=line)
    else:
        target = lessons[-1].fields
    if key in target:
        raise ParseError(name, f"'{label}' is given twice", line=line)
    if key == "lesson captions" and not _safe_name(value):
        raise ParseError(name, f"'{value[:60]}' is not a caption file name inside the course", line=line)
    target[key] = value


def _safe_name(member: str) -> bool:
    """Whether a path stays inside its folder: relative, no `..`, no backslashes or drive letters."""
    parts = member.split("/")
    absolute = member.startswith("/") or _DRIVE.match(member) is not None
    return bool(member) and not absolute and "\\" not in member and ".." not in parts


def build_course(header: CourseHeader, read: CaptionReader, fallback_title: str, source: str) -> Course:
    """Make the Course that a course.txt describes, reading each lesson's caption file with `read`."""
    lessons = []
    # A caption file that several lessons name is read and parsed once; the lessons share its text (the
    # chunk cap then counts each lesson, as the sync would index it).
    parsed: dict[str, Lesson] = {}
    for entry in header.lessons:
        captions = entry.fields["lesson captions"]
        if not captions.lower().endswith(CAPTION_FILE_TYPES):
            raise ParseError(HEADER_NAME, f"'{captions}' is not a .vtt or .srt file", line=entry.line)
        link = entry.fields.get("lesson link") or None
        named = {"number": entry.number, "title": entry.title, "link": link}
        if captions in parsed:
            lessons.append(parsed[captions].model_copy(update=named))
            continue
        data, shown = read(captions, entry.line)
        parsed[captions] = captioned_lesson(entry.number, entry.title, link, data, shown)
        lessons.append(parsed[captions])
    return Course(
        title=header.fields.get("course title") or fallback_title,
        link=header.fields.get("course link") or None,
        instructor=header.fields.get("course instructor") or None,
        lessons=lessons,
        source_file=source,
    )


def _parse_folder(folder: Path, name: str) -> Course:
    """Read a course folder, known in DOCS_DIR as `name`: course.txt and the caption files it names."""
    header_path = folder / HEADER_NAME
    if not header_path.is_file():
        raise ParseError(name, f"no {HEADER_NAME} in the folder")
    header_bytes = header_path.read_bytes()
    header_name = f"{name}/{HEADER_NAME}"
    header = read_course_header(decode_text(header_bytes, header_name), header_name)
    digest = hashlib.sha256(header_bytes)

    def read(captions: str, line: int) -> tuple[bytes, str]:
        path = folder / captions
        if not path.is_file():
            raise ParseError(header_name, f"caption file '{captions}' is not in the folder", line)
        data = path.read_bytes()
        digest.update(captions.encode() + b"\0" + data)
        return data, f"{name}/{captions}"

    # title_from_filename drops an extension; a folder name has none to drop.
    course = build_course(header, read, title_from_filename(f"{name}.dir"), name)
    course.content_hash = digest.hexdigest()
    return course


def _parse_zip(data: bytes, name: str) -> Course:
    """Read a `.zip` course archive after checking its directory for traversal and unpacked size."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(name, "not a ZIP archive") from exc
    with archive:
        members = {info.filename: info for info in archive.infolist() if not info.is_dir()}
        _check_archive(list(members.values()), name)
        headers = sorted((path for path in members if posixpath.basename(path) == HEADER_NAME), key=len)
        if not headers:
            raise ParseError(name, f"the archive holds no {HEADER_NAME}")
        root = posixpath.dirname(headers[0])

        def member_bytes(path: str) -> bytes:
            try:
                return archive.open(members[path]).read(MAX_CAPTION_BYTES + 1)
            except (zipfile.BadZipFile, OSError, NotImplementedError) as exc:
                raise ParseError(name, f"the archive's {path} is damaged ({type(exc).__name__})") from exc

        header_name = f"{name}/{headers[0]}"
        header = read_course_header(decode_text(member_bytes(headers[0]), header_name), header_name)

        def read(captions: str, line: int) -> tuple[bytes, str]:
            path = posixpath.join(root, captions)
            if path not in members:
                raise ParseError(header_name, f"caption file '{captions}' is not in the archive", line)
            content = member_bytes(path)
            if len(content) > MAX_CAPTION_BYTES:
                raise ParseError(f"{name}/{path}", f"larger than {MAX_CAPTION_BYTES // 2**20} MB")
            return content, f"{name}/{path}"

        course = build_course(header, read, title_from_filename(name), name)
    course.content_hash = content_hash(data)
    return course


def _check_archive(members: list[zipfile.ZipInfo], name: str) -> None:
    """Refuse an archive with too many members, too much unpacked data, or paths leaving its folder."""
    if len(members) > MAX_ARCHIVE_MEMBERS:
        raise ParseError(name, f"the archive holds {len(members):,} files (limit {MAX_ARCHIVE_MEMBERS:,})")
    unpacked = sum(member.file_size for member in members)
    if unpacked > MAX_ARCHIVE_BYTES:
        limit = MAX_ARCHIVE_BYTES // 2**20
        raise ParseError(name, f"the archive unpacks to {unpacked // 2**20:,} MB (limit {limit} MB)")
    for member in members:
        if not _safe_name(member.filename):
            raise ParseError(name, f"the archive's member '{member.filename[:80]}' leaves the course folder")
