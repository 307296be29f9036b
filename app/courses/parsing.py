"""Read course documents (TXT, PDF, DOCX; captions via `app.courses.caption_course`) into a `Course`.

Text format (README, "Course documents")::

    Course Title: <title>          (optional; else the title comes from the file name)
    Course Link: <url>             (optional)
    Course Instructor: <name>      (optional)
    <introduction text>            (optional; becomes Lesson 0 "Introduction")
    Lesson 1: <lesson title>
    Lesson Link: <url>             (optional; blank lines before it are fine)
    <lesson text>

Lesson-marker rule. A line of the form `Lesson <N>: <title>` is a *candidate*. Transcripts often say
"Lesson 1: ..." in passing, so a candidate opens a lesson only when one of these holds:

1. it is *linked*: the next non-blank line is `Lesson Link: ...`. A linked marker always opens a lesson,
   and one whose number is already taken is a duplicate -> `ParseError`;
2. its number is the next expected one (0 or 1 for the first lesson, else one more than the highest so
   far), its title reads as a title (short, not ending like a sentence), and no linked marker with that
   number comes later in the file.

Any other candidate is lesson text, except an unlinked marker that repeats a taken number while *looking
like a header* (it follows a blank line or the start of the body, and its title is short and does not end
like a sentence): that is a duplicate too, because a reader would take it for a second lesson N.

Text before the first lesson becomes Lesson 0 "Introduction" (or is put in front of an explicit lesson 0).
A file with no lesson header at all is one lesson, Lesson 1 "Overview". Without a `Course Title:` line the
title comes from the file name: "intro_to_sql.txt" -> "Intro To Sql".
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from app.control_chars import drop_control_chars
from app.courses.caption_course import parse_caption_bytes, parse_caption_course
from app.courses.models import Course, Lesson
from app.courses.reading import ParseError, content_hash, decode_text, sniff, title_from_filename

__all__ = ["ParseError", "content_hash", "decode_text", "parse_bytes", "parse_file", "title_from_filename"]

SUPPORTED_EXTENSIONS = (".txt", ".pdf", ".docx", ".vtt", ".srt", ".zip")
CAPTION_EXTENSIONS = (".vtt", ".srt", ".zip")

_MARKER = re.compile(r"^lesson\s+(\d+)\s*:\s*(.*)$", re.IGNORECASE)
_LESSON_LINK = re.compile(r"^lesson\s+link\s*:\s*(.*)$", re.IGNORECASE)
_HEADER = re.compile(r"^course\s+(title|link|instructor)\s*:\s*(.*)$", re.IGNORECASE)
_MAX_HEADER_TITLE = 80
# A Word document is a ZIP: refuse one whose parts would unpack to more than this, or that compresses its XML
# far beyond what text does (a zip bomb), before inflating anything.
MAX_DOCX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_DOCX_RATIO = 100
# The XML parts are parsed into a tree about ten times their size, so they get a tighter cap than images:
# 32 MB of XML is a book of several thousand pages, and still well under a gigabyte of memory to read.
MAX_DOCX_XML_BYTES = 32 * 1024 * 1024
# More pages than any course has; a 20,000-page PDF would keep a worker busy for half a minute.
MAX_PDF_PAGES = 2000
# pypdf signals damage with many exception types (PyPdfError and these); all mean the same to a user.
_PDF_DAMAGE = (
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    OSError,
    NotImplementedError,
)


@dataclass
class _Section:
    """A lesson header found in the text, and the line range of its body."""

    number: int
    title: str
    link: str | None
    header_line: int
    start: int
    end: int = 0


def parse_file(path: Path) -> Course:
    """Read and parse one course file, or a captioned course's folder."""
    path = Path(path)
    if path.is_dir():
        return parse_caption_course(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ParseError(path.name, f"cannot read the file ({exc.strerror or exc})") from exc
    return parse_bytes(data, path.name)


def parse_bytes(data: bytes, filename: str) -> Course:
    """Parse a course file's bytes, checking that the content is what the extension says."""
    name = Path(filename).name
    extension = Path(name).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        supported = ", ".join(SUPPORTED_EXTENSIONS)
        raise ParseError(name, f"unsupported file type '{extension or name}' (supported: {supported})")
    if extension in CAPTION_EXTENSIONS:
        return parse_caption_bytes(data, name)
    if not data.strip():
        raise ParseError(name, "the file is empty")
    if extension == ".pdf":
        text = _pdf_text(data, name)
    elif extension == ".docx":
        text = _docx_text(data, name)
    else:
        text = decode_text(data, name)
    course = parse_text(text, name)
    course.content_hash = content_hash(data)
    return course


def parse_text(text: str, filename: str) -> Course:
    """Parse course text into a Course; `filename` names errors and supplies a fallback title."""
    name = Path(filename).name
    lines = _normalize(text).split("\n")
    if not any(line.strip() for line in lines):
        raise ParseError(name, "the file is empty")
    header, body_start = _read_header(lines)
    title = header.get("title") or title_from_filename(name)
    intro, sections = _split_lessons(lines, body_start, name)
    lessons = _build_lessons(intro, sections, lines)
    if not any(lesson.text for lesson in lessons):
        raise ParseError(name, "the course has no text")
    return Course(
        title=title,
        link=header.get("link") or None,
        instructor=header.get("instructor") or None,
        lessons=lessons,
        source_file=name,
        content_hash=content_hash(text.encode("utf-8")),
    )


def _normalize(text: str) -> str:
    """Drop a BOM and control characters and unify line endings, so every format parses the same way."""
    return drop_control_chars(text.lstrip("\ufeff")).replace("\r\n", "\n").replace("\r", "\n")


def _read_header(lines: list[str]) -> tuple[dict[str, str], int]:
    """Read the leading `Course ...:` lines; return them and the index of the first body line."""
    header: dict[str, str] = {}
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        match = _HEADER.match(stripped)
        if stripped and not match:
            break
        if match:
            header.setdefault(match.group(1).lower(), match.group(2).strip())
        index += 1
    return header, index


def _next_nonblank(lines: list[str], index: int) -> int | None:
    """Return the index of the first non-blank line at or after `index`, if any."""
    while index < len(lines):
        if lines[index].strip():
            return index
        index += 1
    return None


def _reads_as_title(title: str) -> bool:
    """Whether a marker's title is short and does not end like a sentence."""
    title = title.strip()
    return len(title) <= _MAX_HEADER_TITLE and not (title and title[-1] in ".,;:!")


def _looks_like_header(lines: list[str], index: int, body_start: int, title: str) -> bool:
    """Whether an unlinked marker reads as a lesson header rather than a sentence of prose."""
    after_break = index == body_start or not lines[index - 1].strip()
    return after_break and bool(title.strip()) and _reads_as_title(title)


def _linked_marker_lines(lines: list[str], body_start: int) -> dict[int, int]:
    """Map each lesson number that has a linked marker to the line of its last such marker."""
    linked: dict[int, int] = {}
    for index in range(body_start, len(lines)):
        match = _MARKER.match(lines[index].strip())
        link_index = _next_nonblank(lines, index + 1) if match else None
        if match and link_index is not None and _LESSON_LINK.match(lines[link_index].strip()):
            linked[int(match.group(1))] = index
    return linked


def _split_lessons(lines: list[str], body_start: int, name: str) -> tuple[tuple[int, int], list[_Section]]:
    """Find the lesson headers; return the intro's line range and one section per lesson."""
    sections: list[_Section] = []
    # Kept as the sections grow (not rebuilt per marker), so parsing stays linear in the markers.
    taken: set[int] = set()
    max_taken = -1
    linked = _linked_marker_lines(lines, body_start)
    index = body_start
    while index < len(lines):
        match = _MARKER.match(lines[index].strip())
        if not match:
            index += 1
            continue
        number, lesson_title = int(match.group(1)), match.group(2).strip()
        link_index = _next_nonblank(lines, index + 1)
        link_match = _LESSON_LINK.match(lines[link_index].strip()) if link_index is not None else None
        expected = {max_taken + 1} if taken else {0, 1}
        if number in taken and (link_match or _looks_like_header(lines, index, body_start, lesson_title)):
            raise ParseError(name, f"duplicate lesson number {number}", line=index + 1)
        # An unlinked marker is prose when it reads as a sentence, or when the real, linked header for
        # that number comes later ("Lesson 2: we will look at sorting next time." inside lesson 1).
        prose = not link_match and (
            number not in expected or not _reads_as_title(lesson_title) or linked.get(number, -1) > index
        )
        if prose:
            index += 1
            continue
        link = link_match.group(1).strip() if link_match else ""
        start = link_index + 1 if link_match and link_index is not None else index + 1
        sections.append(_Section(number, lesson_title or f"Lesson {number}", link or None, index, start))
        taken.add(number)
        max_taken = max(max_taken, number)
        index = start
    for section, following in zip(sections, sections[1:], strict=False):
        section.end = following.header_line
    if sections:
        sections[-1].end = len(lines)
    return (body_start, sections[0].header_line if sections else len(lines)), sections


def _build_lessons(intro: tuple[int, int], sections: list[_Section], lines: list[str]) -> list[Lesson]:
    """Make the Lesson list, turning text before the first lesson into an introduction."""
    intro_text = _join(lines[intro[0] : intro[1]])
    lessons = [
        Lesson(number=s.number, title=s.title, link=s.link, text=_join(lines[s.start : s.end]))
        for s in sections
    ]
    if not lessons:
        # No markers at all: the whole body is one lesson.
        return [Lesson(number=1, title="Overview", text=intro_text)]
    if intro_text:
        explicit_zero = next((lesson for lesson in lessons if lesson.number == 0), None)
        if explicit_zero is None:
            lessons.insert(0, Lesson(number=0, title="Introduction", text=intro_text))
        else:
            # Keep the text rather than lose it: it belongs with the course's own lesson 0.
            explicit_zero.text = f"{intro_text}\n\n{explicit_zero.text}".strip()
    return lessons


def _join(lines: list[str]) -> str:
    """Join lines into text: trailing spaces off, at most one blank line between paragraphs."""
    text = "\n".join(line.rstrip() for line in lines).strip()
    return re.sub(r"\n{3,}", "\n\n", text)


def _pdf_text(data: bytes, name: str) -> str:
    """Extract the text of every page of a PDF, joined by newlines."""
    # The PDF spec lets the header sit anywhere in the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        kind = sniff(data)
        raise ParseError(name, f"not a PDF ({f'the file is {kind}' if kind else 'no %PDF header'})")
    # Imported on first use: a serving worker never parses, and pypdf with python-docx weigh 26 MB.
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ParseError(name, "the PDF is encrypted with a password")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise ParseError(
                name, f"the PDF has {len(reader.pages):,} pages; at most {MAX_PDF_PAGES:,} are read"
            )
        pages = [page.extract_text() or "" for page in reader.pages]
    except ParseError:
        raise
    except (PyPdfError, *_PDF_DAMAGE) as exc:
        raise ParseError(name, f"the PDF is damaged or unreadable ({type(exc).__name__})") from exc
    text = "\n".join(pages)
    if not text.strip():
        raise ParseError(name, "the PDF has no extractable text (is it scanned images?)")
    return text


def _refuse_zip_bomb(members: list[zipfile.ZipInfo], name: str) -> None:
    """Refuse a ZIP whose declared sizes unpack too far, judged from its directory without inflating."""
    unpacked = sum(member.file_size for member in members)
    if unpacked > MAX_DOCX_UNPACKED_BYTES:
        limit = MAX_DOCX_UNPACKED_BYTES // (1024 * 1024)
        raise ParseError(
            name, f"the Word document unpacks to {unpacked // (1024 * 1024):,} MB (limit {limit} MB)"
        )
    for member in members:
        # Small parts compress unevenly; only a large part with an extreme ratio is suspicious.
        if member.file_size > 1024 * 1024 and member.file_size > MAX_DOCX_RATIO * max(
            member.compress_size, 1
        ):
            raise ParseError(name, f"the Word document's {member.filename} is compressed suspiciously far")
    xml = sum(member.file_size for member in members if member.filename.endswith((".xml", ".rels")))
    if xml > MAX_DOCX_XML_BYTES:
        limit = MAX_DOCX_XML_BYTES // (1024 * 1024)
        raise ParseError(
            name, f"the Word document's text unpacks to {xml // (1024 * 1024):,} MB (limit {limit} MB)"
        )


def _docx_text(data: bytes, name: str) -> str:
    """Extract a Word document's paragraphs (and table rows) in order, one per line."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "word/document.xml" not in archive.namelist():
                raise ParseError(name, "not a Word document (a ZIP archive without word/document.xml)")
            _refuse_zip_bomb(archive.infolist(), name)
    except zipfile.BadZipFile as exc:
        kind = sniff(data)
        detail = f"the file is {kind}" if kind else "not a ZIP archive"
        raise ParseError(name, f"not a Word document ({detail})") from exc
    import docx  # on first use, as pypdf
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
        lines: list[str] = []
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                lines.extend(" | ".join(cell.text.strip() for cell in row.cells) for row in block.rows)
            else:
                lines.append(block.text)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, SyntaxError) as exc:
        # lxml's XMLSyntaxError derives from SyntaxError.
        raise ParseError(name, f"the Word document is damaged ({type(exc).__name__})") from exc
    return "\n".join(lines)
