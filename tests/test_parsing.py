"""Parsing course files: the TXT format and its variants, real PDF and DOCX files, files we refuse."""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

import pytest

from app.courses.parsing import (
    SUPPORTED_EXTENSIONS,
    ParseError,
    content_hash,
    parse_bytes,
    parse_file,
    parse_text,
)
from tests.helpers import make_docx, make_pdf

COURSES = Path(__file__).resolve().parent / "data" / "courses"

BASIC = """Course Title: Cooking with Cast Iron
Course Link: https://example.com/courses/cast-iron
Course Instructor: Julia Child

Lesson 1: Seasoning
Lesson Link: https://example.com/courses/cast-iron/lesson-1
Seasoning is a layer of polymerised oil. Apply it thinly and bake the pan upside down.

Lesson 2: Cleaning
Lesson Link: https://example.com/courses/cast-iron/lesson-2
Clean the pan while it is warm. Dry it on the hob so it never rusts.
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write a file under tmp_path and return its path."""
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return path


def flat(text: str) -> str:
    """Collapse all whitespace, so text extracted from a PDF compares with the source."""
    return re.sub(r"\s+", " ", text).strip()


def lesson_table(course) -> list[tuple[int, str, str | None]]:
    """The (number, title, link) of every lesson."""
    return [(lesson.number, lesson.title, lesson.link) for lesson in course.lessons]


# --- the TXT format -------------------------------------------------------------------------------


def test_basic_file_gives_header_lessons_and_links(tmp_path):
    course = parse_file(write(tmp_path, "cast_iron.txt", BASIC))
    assert course.title == "Cooking with Cast Iron"
    assert course.id == "cooking-with-cast-iron"
    assert course.link == "https://example.com/courses/cast-iron"
    assert course.instructor == "Julia Child"
    assert lesson_table(course) == [
        (1, "Seasoning", "https://example.com/courses/cast-iron/lesson-1"),
        (2, "Cleaning", "https://example.com/courses/cast-iron/lesson-2"),
    ]
    assert course.lessons[0].text == (
        "Seasoning is a layer of polymerised oil. Apply it thinly and bake the pan upside down."
    )
    assert course.lessons[1].text.startswith("Clean the pan while it is warm.")
    assert course.source_file == "cast_iron.txt"


def test_content_hash_is_sha256_of_the_bytes(tmp_path):
    path = write(tmp_path, "cast_iron.txt", BASIC)
    course = parse_file(path)
    expected = hashlib.sha256(path.read_bytes()).hexdigest()
    assert content_hash(path.read_bytes()) == expected
    assert course.content_hash == expected
    assert parse_file(write(tmp_path, "other.txt", BASIC + "One more line.")).content_hash != expected


def test_parse_bytes_uses_the_base_name_of_the_file(tmp_path):
    course = parse_bytes(BASIC.encode(), "some/folder/cast_iron.txt")
    assert course.source_file == "cast_iron.txt"


def test_crlf_and_bom_parse_like_plain_text(tmp_path):
    plain = parse_file(write(tmp_path, "plain.txt", BASIC))
    windows = parse_file(
        write(tmp_path, "windows.txt", b"\xef\xbb\xbf" + BASIC.replace("\n", "\r\n").encode())
    )
    assert windows.title == plain.title == "Cooking with Cast Iron"
    assert lesson_table(windows) == lesson_table(plain)
    assert [lesson.text for lesson in windows.lessons] == [lesson.text for lesson in plain.lessons]
    assert all("\r" not in lesson.text for lesson in windows.lessons)


def test_blank_lines_and_whitespace_around_markers_are_tolerated(tmp_path):
    text = (
        "  Course Title:   Spaced Out  \n\n\n"
        "   Lesson 1 :  First Steps   \n\n\n"
        "  Lesson Link:   https://example.com/l1  \n\n"
        "Body of lesson one.\n\n"
        "\tLesson 2:Second\n"
        "Lesson Link: https://example.com/l2\n"
        "Body of lesson two.\n"
    )
    course = parse_text(text, "spaced.txt")
    assert course.title == "Spaced Out"
    assert lesson_table(course) == [
        (1, "First Steps", "https://example.com/l1"),
        (2, "Second", "https://example.com/l2"),
    ]
    assert course.lessons[0].text == "Body of lesson one."
    assert course.lessons[1].text == "Body of lesson two."


def test_missing_link_and_instructor_are_none(tmp_path):
    text = "Course Title: Bare Course\n\nLesson 1: Only\nJust some text.\n\nLesson 2: Next\nMore text.\n"
    course = parse_file(write(tmp_path, "bare.txt", text))
    assert course.link is None
    assert course.instructor is None
    assert lesson_table(course) == [(1, "Only", None), (2, "Next", None)]
    assert course.lessons[1].text == "More text."


def test_empty_lesson_link_means_no_link():
    course = parse_text("Course Title: T\nLesson 1: A\nLesson Link:\nText here.\n", "t.txt")
    assert lesson_table(course) == [(1, "A", None)]
    assert course.lessons[0].text == "Text here."


def test_missing_header_takes_the_title_from_the_file_name(tmp_path):
    course = parse_file(write(tmp_path, "intro_to_sql.txt", "Lesson 1: Select\nSELECT picks columns.\n"))
    assert course.title == "Intro To Sql"
    assert course.link is None and course.instructor is None
    assert lesson_table(course) == [(1, "Select", None)]


def test_title_from_file_name_keeps_capitals_and_splits_dashes():
    assert parse_text("Some text.", "advanced-SQL_tuning.txt").title == "Advanced SQL Tuning"


def test_empty_course_title_falls_back_to_the_file_name():
    assert parse_text("Course Title:\nLesson 1: A\nText.\n", "git_basics.txt").title == "Git Basics"


def test_text_before_the_first_lesson_becomes_lesson_zero_introduction():
    text = "Course Title: T\nWelcome to the course. It is short.\n\nLesson 1: First\nLesson text.\n"
    course = parse_text(text, "t.txt")
    assert lesson_table(course) == [(0, "Introduction", None), (1, "First", None)]
    assert course.lessons[0].text == "Welcome to the course. It is short."


def test_no_introduction_lesson_when_there_is_no_text_before_the_first_lesson():
    course = parse_text("Course Title: T\n\n\nLesson 1: First\nLesson text.\n", "t.txt")
    assert [lesson.number for lesson in course.lessons] == [1]


def test_explicit_lesson_zero_is_kept_and_absorbs_stray_intro_text():
    text = "Course Title: T\nA stray welcome.\nLesson 0: Start Here\nZero text.\nLesson 1: Next\nOne text.\n"
    course = parse_text(text, "t.txt")
    assert lesson_table(course) == [(0, "Start Here", None), (1, "Next", None)]
    assert course.lessons[0].text == "A stray welcome.\n\nZero text."


def test_file_without_lesson_markers_is_one_lesson():
    text = "Course Title: Notes\nCourse Instructor: Someone\n\nFirst paragraph.\n\nSecond paragraph.\n"
    course = parse_text(text, "notes.txt")
    assert lesson_table(course) == [(1, "Overview", None)]
    assert course.lessons[0].text == "First paragraph.\n\nSecond paragraph."
    assert course.instructor == "Someone"


def test_plain_prose_without_header_or_markers_is_one_lesson_named_after_the_file():
    course = parse_text("Just a transcript of a talk.\nIt has two lines.", "keynote_2024.txt")
    assert course.title == "Keynote 2024"
    assert lesson_table(course) == [(1, "Overview", None)]


def test_lesson_title_defaults_to_lesson_n_when_empty():
    course = parse_text("Lesson 1:\nText one.\nLesson 2:\nText two.\n", "t.txt")
    assert lesson_table(course) == [(1, "Lesson 1", None), (2, "Lesson 2", None)]


def test_blank_runs_inside_a_lesson_collapse_to_one_blank_line():
    course = parse_text("Lesson 1: A\nPara one.   \n\n\n\n\nPara two.\n\n\n", "t.txt")
    assert course.lessons[0].text == "Para one.\n\nPara two."


def test_empty_lesson_is_kept_for_the_outline():
    course = parse_text(
        "Lesson 1: Empty\nLesson Link: https://x.example/1\nLesson 2: Full\nSome text.\n", "t.txt"
    )
    assert lesson_table(course) == [(1, "Empty", "https://x.example/1"), (2, "Full", None)]
    assert course.lessons[0].text == ""


# --- the lesson-marker rule -----------------------------------------------------------------------


def test_prose_line_starting_with_an_earlier_lesson_number_stays_text():
    text = (
        "Lesson 1: Basics\nLesson Link: https://x.example/1\nBasics text.\n\n"
        "Lesson 2: Review\nLesson Link: https://x.example/2\n"
        "As we said before,\nLesson 1: taught us that small steps work, and we build on it.\nMore review.\n"
    )
    course = parse_text(text, "t.txt")
    assert [lesson.number for lesson in course.lessons] == [1, 2]
    assert "Lesson 1: taught us that small steps work" in course.lessons[1].text
    assert course.lessons[1].text.endswith("More review.")


def test_prose_marker_that_skips_ahead_stays_text():
    text = "Lesson 1: Start\nWe will get to it in\nLesson 5: the advanced part, much later.\nEnd.\n"
    course = parse_text(text, "t.txt")
    assert [lesson.number for lesson in course.lessons] == [1]
    assert "Lesson 5: the advanced part" in course.lessons[0].text


def test_unlinked_markers_in_sequence_open_lessons():
    course = parse_text("Lesson 0: Zero\nA.\nLesson 1: One\nB.\nLesson 2: Two\nC.\n", "t.txt")
    assert lesson_table(course) == [(0, "Zero", None), (1, "One", None), (2, "Two", None)]


def test_linked_marker_opens_a_lesson_even_out_of_sequence():
    text = "Lesson 1: One\nLesson Link: https://x.example/1\nA.\nLesson 3: Three\nLesson Link: https://x.example/3\nC.\n"
    course = parse_text(text, "t.txt")
    assert [lesson.number for lesson in course.lessons] == [1, 3]
    assert course.lessons[1].text == "C."


def test_marker_case_is_ignored():
    course = parse_text(
        "COURSE TITLE: Loud\nLESSON 1: Shouting\nlesson link: https://x.example/1\nText.\n", "t.txt"
    )
    assert course.title == "Loud"
    assert lesson_table(course) == [(1, "Shouting", "https://x.example/1")]


def test_duplicate_linked_lesson_numbers_are_an_error_with_line_number(tmp_path):
    text = (
        "Course Title: Dupes\n"
        "Lesson 1: One\nLesson Link: https://x.example/1\nText.\n"
        "Lesson 2: Two\nLesson Link: https://x.example/2\nText.\n"
        "Lesson 2: Two Again\nLesson Link: https://x.example/2b\nText.\n"
    )
    with pytest.raises(ParseError) as caught:
        parse_file(write(tmp_path, "dupes.txt", text))
    error = caught.value
    assert error.file == "dupes.txt"
    assert error.reason == "duplicate lesson number 2"
    assert error.line == 8
    assert str(error) == "dupes.txt: duplicate lesson number 2 (line 8)"
    assert error.status == 422


def test_duplicate_unlinked_header_after_a_blank_line_is_an_error():
    text = "Lesson 1: One\nText one.\n\nLesson 2: Two\nText two.\n\nLesson 2: Two Again\nText three.\n"
    with pytest.raises(ParseError, match=r"duplicate lesson number 2 \(line 7\)"):
        parse_text(text, "t.txt")


def test_repeated_number_inside_a_sentence_is_text_not_a_duplicate():
    # Not after a blank line, and it ends like a sentence: prose, even though lesson 1 exists.
    text = "Lesson 1: One\nText one.\n\nLesson 2: Two\nRemember\nLesson 1: fixtures are functions.\n"
    course = parse_text(text, "t.txt")
    assert [lesson.number for lesson in course.lessons] == [1, 2]
    assert course.lessons[1].text == "Remember\nLesson 1: fixtures are functions."


# --- files we refuse ------------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"   \n\r\n\t  \n", "\ufeff\n\n".encode()])
def test_empty_or_blank_file_is_refused(tmp_path, content):
    with pytest.raises(ParseError) as caught:
        parse_file(write(tmp_path, "empty.txt", content))
    assert caught.value.file == "empty.txt"
    assert caught.value.reason == "the file is empty"


def test_header_without_any_text_is_refused():
    with pytest.raises(ParseError, match="t.txt: the course has no text"):
        parse_text("Course Title: Hollow\nCourse Link: https://x.example\nLesson 1: Nothing\n", "t.txt")


def test_nul_bytes_in_a_text_file_are_refused_with_the_line(tmp_path):
    with pytest.raises(ParseError) as caught:
        parse_file(write(tmp_path, "bin.txt", b"Course Title: X\nLesson 1: A\nbad\x00byte\n"))
    assert caught.value.reason == "not a text file (contains NUL bytes)"
    assert caught.value.line == 3


def test_invalid_utf8_is_refused_with_the_line(tmp_path):
    with pytest.raises(ParseError) as caught:
        parse_file(
            write(tmp_path, "latin.txt", "Course Title: Café\nLesson 1: A\nna\xefve\n".encode("latin-1"))
        )
    assert caught.value.reason.startswith("not valid UTF-8 text")
    assert caught.value.line == 1


def test_executable_renamed_to_txt_is_refused(tmp_path):
    with pytest.raises(ParseError, match="prog.txt: the file is an ELF executable, not plain text"):
        parse_file(write(tmp_path, "prog.txt", b"\x7fELF\x02\x01\x01" + b"\x00" * 64))


def test_pdf_renamed_to_txt_is_refused(tmp_path):
    pdf = make_pdf(tmp_path / "real.pdf", BASIC)
    with pytest.raises(ParseError, match="real.txt: the file is a PDF document, not plain text"):
        parse_bytes(pdf.read_bytes(), "real.txt")


@pytest.mark.parametrize("name", ["notes.md", "slides.pptx", "README"])
def test_unsupported_extension_is_refused(tmp_path, name):
    with pytest.raises(ParseError) as caught:
        parse_file(write(tmp_path, name, BASIC))
    assert caught.value.file == name
    assert "unsupported file type" in caught.value.reason
    assert all(extension in caught.value.reason for extension in SUPPORTED_EXTENSIONS)


def test_extension_is_matched_case_insensitively(tmp_path):
    assert parse_file(write(tmp_path, "SHOUTY.TXT", BASIC)).title == "Cooking with Cast Iron"


def test_unreadable_path_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError, match="missing.txt: cannot read the file"):
        parse_file(tmp_path / "missing.txt")


# --- PDF ------------------------------------------------------------------------------------------


def test_pdf_round_trip_keeps_header_lessons_and_text(tmp_path):
    source = (COURSES / "rag_in_practice.txt").read_text(encoding="utf-8")
    from_txt = parse_text(source, "rag_in_practice.txt")
    course = parse_file(make_pdf(tmp_path / "rag_in_practice.pdf", source))
    assert course.title == "Retrieval-Augmented Generation in Practice"
    assert course.instructor == "Ada Lovelace"
    assert course.link == "https://example.com/courses/rag"
    assert lesson_table(course) == lesson_table(from_txt)
    for pdf_lesson, txt_lesson in zip(course.lessons, from_txt.lessons, strict=True):
        assert flat(pdf_lesson.text) == flat(txt_lesson.text)
    assert course.source_file == "rag_in_practice.pdf"


def test_pdf_spanning_several_pages_joins_the_pages(tmp_path):
    paragraphs = [f"Paragraph {n} talks about topic number {n} in some detail." for n in range(120)]
    text = "Course Title: Long PDF\nLesson 1: Everything\n" + "\n".join(paragraphs)
    path = make_pdf(tmp_path / "long.pdf", text)
    from pypdf import PdfReader

    assert len(PdfReader(path).pages) > 1
    course = parse_file(path)
    assert lesson_table(course) == [(1, "Everything", None)]
    assert flat(course.lessons[0].text) == flat("\n".join(paragraphs))


def test_executable_renamed_to_pdf_is_refused(tmp_path):
    with pytest.raises(ParseError) as caught:
        parse_file(write(tmp_path, "fake.pdf", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4))
    assert caught.value.file == "fake.pdf"
    assert caught.value.reason == "not a PDF (the file is an ELF executable)"


def test_text_renamed_to_pdf_is_refused(tmp_path):
    with pytest.raises(ParseError, match=r"notes.pdf: not a PDF \(no %PDF header\)"):
        parse_file(write(tmp_path, "notes.pdf", BASIC))


def test_truncated_pdf_is_refused(tmp_path):
    data = make_pdf(tmp_path / "good.pdf", BASIC).read_bytes()
    with pytest.raises(ParseError) as caught:
        parse_bytes(data[: len(data) // 3], "broken.pdf")
    assert caught.value.file == "broken.pdf"
    assert caught.value.reason.startswith("the PDF is damaged or unreadable")


def test_pdf_header_followed_by_garbage_is_refused():
    with pytest.raises(ParseError, match="garbage.pdf: the PDF is damaged or unreadable"):
        parse_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8, "garbage.pdf")


def test_password_protected_pdf_is_refused(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(make_pdf(tmp_path / "plain.pdf", BASIC)))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    with pytest.raises(ParseError, match="locked.pdf: the PDF is encrypted with a password"):
        parse_bytes(buffer.getvalue(), "locked.pdf")


def test_pdf_without_text_is_refused(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 50, 50)
    path = tmp_path / "drawing.pdf"
    pdf.output(str(path))
    with pytest.raises(ParseError, match="drawing.pdf: the PDF has no extractable text"):
        parse_file(path)


# --- DOCX -----------------------------------------------------------------------------------------


def test_docx_round_trip_matches_the_txt_parse(tmp_path):
    source = (COURSES / "vector_databases.txt").read_text(encoding="utf-8")
    from_txt = parse_text(source, "vector_databases.txt")
    course = parse_file(make_docx(tmp_path / "vector_databases.docx", source))
    assert course.title == "Vector Databases from Scratch"
    assert course.instructor == "Grace Hopper"
    assert lesson_table(course) == lesson_table(from_txt)
    assert [lesson.text for lesson in course.lessons] == [lesson.text for lesson in from_txt.lessons]
    assert course.source_file == "vector_databases.docx"


def test_docx_tables_are_read_in_document_order(tmp_path):
    import docx

    document = docx.Document()
    document.add_paragraph("Course Title: Tables")
    document.add_paragraph("Lesson 1: Comparison")
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=2, cols=2)
    for row, (left, right) in zip(table.rows, [("Index", "Recall"), ("HNSW", "0.98")], strict=True):
        row.cells[0].text, row.cells[1].text = left, right
    document.add_paragraph("After the table.")
    path = tmp_path / "tables.docx"
    document.save(str(path))
    course = parse_file(path)
    assert course.lessons[0].text == "Before the table.\nIndex | Recall\nHNSW | 0.98\nAfter the table."


def test_zip_without_word_document_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "not a word file")
    with pytest.raises(
        ParseError, match=r"archive.docx: not a Word document \(a ZIP archive without word/document.xml\)"
    ):
        parse_bytes(buffer.getvalue(), "archive.docx")


def test_text_renamed_to_docx_is_refused(tmp_path):
    with pytest.raises(ParseError, match=r"notes.docx: not a Word document \(not a ZIP archive\)"):
        parse_file(write(tmp_path, "notes.docx", BASIC))


def test_pdf_renamed_to_docx_is_refused(tmp_path):
    data = make_pdf(tmp_path / "real.pdf", BASIC).read_bytes()
    with pytest.raises(ParseError, match=r"real.docx: not a Word document \(the file is a PDF document\)"):
        parse_bytes(data, "real.docx")


def test_docx_with_broken_xml_is_refused(tmp_path):
    good = make_docx(tmp_path / "good.docx", BASIC).read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as source, zipfile.ZipFile(buffer, "w") as target:
        for item in source.infolist():
            data = b"<w:document><unclosed" if item.filename == "word/document.xml" else source.read(item)
            target.writestr(item, data)
    with pytest.raises(ParseError) as caught:
        parse_bytes(buffer.getvalue(), "broken.docx")
    assert caught.value.file == "broken.docx"
    assert caught.value.reason.startswith("the Word document is damaged")


def test_empty_docx_is_refused(tmp_path):
    import docx

    path = tmp_path / "blank.docx"
    docx.Document().save(str(path))
    with pytest.raises(ParseError, match="blank.docx: the file is empty"):
        parse_file(path)


# --- the shared test library ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title", "instructor", "numbers", "lesson", "phrase"),
    [
        (
            "rag_in_practice.txt",
            "Retrieval-Augmented Generation in Practice",
            "Ada Lovelace",
            [1, 2, 3, 4],
            2,
            "sentence-aware chunking",
        ),
        (
            "rag_in_practice.txt",
            "Retrieval-Augmented Generation in Practice",
            "Ada Lovelace",
            [1, 2, 3, 4],
            3,
            "cosine similarity",
        ),
        (
            "vector_databases.txt",
            "Vector Databases from Scratch",
            "Grace Hopper",
            [0, 1, 2, 3],
            2,
            "hierarchical navigable small world",
        ),
        ("pytest_testing.txt", "Python Testing with Pytest", "Kent Beck", [1, 2, 3], 2, "fixture scope"),
    ],
)
def test_test_library_courses_parse_with_their_promised_phrases(
    name, title, instructor, numbers, lesson, phrase
):
    course = parse_file(COURSES / name)
    assert course.title == title
    assert course.instructor == instructor
    assert [item.number for item in course.lessons] == numbers
    base = course.link
    assert all(item.link == f"{base}/lesson-{item.number}" for item in course.lessons)
    assert phrase in next(item for item in course.lessons if item.number == lesson).text
    assert all(item.text for item in course.lessons)


def test_test_library_is_exactly_three_txt_courses():
    assert sorted(path.name for path in COURSES.iterdir()) == [
        "pytest_testing.txt",
        "rag_in_practice.txt",
        "vector_databases.txt",
    ]


def test_prose_line_with_the_next_number_does_not_steal_the_linked_header():
    text = (
        "Course Title: Sorting\n\n"
        "Lesson 1: Basics\nLesson Link: https://example.com/1\n"
        "Comparisons decide the order of elements.\n"
        "Lesson 2: we will look at sorting next time, so read ahead.\n"
        "Lesson 2: Merge Sort\nLesson Link: https://example.com/2\n"
        "Merge sort splits the list in halves.\n"
    )
    course = parse_text(text, "sorting.txt")
    assert [(lesson.number, lesson.title) for lesson in course.lessons] == [(1, "Basics"), (2, "Merge Sort")]
    assert "we will look at sorting next time" in course.lessons[0].text


def test_unlinked_marker_that_reads_as_a_sentence_is_prose():
    text = (
        "Course Title: Sorting\n\nLesson 1: Basics\nOrder matters.\n"
        "Lesson 2: is where we stop, for now.\nEnd.\n"
    )
    course = parse_text(text, "sorting.txt")
    assert [lesson.number for lesson in course.lessons] == [1]
    assert "Lesson 2: is where we stop" in course.lessons[0].text


def _padded_docx(tmp_path, padding_mb: int, filler: bytes = b" " * (1024 * 1024)) -> bytes:
    """A real Word document whose document.xml carries `padding_mb` copies of `filler` (by default 1 MB of
    whitespace, which compresses ~1000:1)."""
    good = make_docx(tmp_path / "good.docx", BASIC).read_bytes()
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(good)) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            if item.filename != "word/document.xml":
                target.writestr(item, source.read(item))
                continue
            xml = source.read(item)
            head, tail = xml.split(b"<w:body>", 1)
            with target.open("word/document.xml", "w", force_zip64=True) as part:
                part.write(head + b"<w:body>")
                for _ in range(padding_mb):
                    part.write(filler)
                part.write(tail)
    return buffer.getvalue()


def test_a_docx_zip_bomb_is_refused_from_its_directory_before_inflating(tmp_path, monkeypatch):
    bomb = _padded_docx(tmp_path, padding_mb=64)
    assert len(bomb) < 1024 * 1024  # 64 MB of XML in well under 1 MB
    inflated: list[str] = []
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda self, name, pwd=None: inflated.append(name) or b"")
    with pytest.raises(ParseError) as caught:
        parse_bytes(bomb, "bomb.docx")
    assert caught.value.reason == "the Word document's word/document.xml is compressed suspiciously far"
    assert inflated == []


def test_a_docx_that_unpacks_past_the_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("app.courses.parsing.MAX_DOCX_UNPACKED_BYTES", 1024 * 1024)
    with pytest.raises(ParseError) as caught:
        parse_bytes(_padded_docx(tmp_path, padding_mb=2), "big.docx")
    assert caught.value.reason == "the Word document unpacks to 2 MB (limit 1 MB)"


def test_a_pdf_with_more_pages_than_any_course_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("app.courses.parsing.MAX_PDF_PAGES", 2)
    pages = "\n".join(f"Lesson {n}: Part {n}\n" + "A line of text.\n" * 60 for n in range(1, 5))
    data = make_pdf(tmp_path / "long.pdf", "Course Title: Long\n\n" + pages).read_bytes()
    with pytest.raises(ParseError) as caught:
        parse_bytes(data, "long.pdf")
    assert caught.value.reason.startswith("the PDF has ") and caught.value.reason.endswith(
        "at most 2 are read"
    )


@pytest.mark.timeout(60)
def test_lesson_parsing_is_linear_in_the_number_of_markers():
    # 100,000 markers: linear parsing takes a second or two; the old per-marker rescan took many minutes.
    body = "\n\n".join(
        f"Lesson {number}: Part {number}\nText of part {number}." for number in range(1, 100_001)
    )
    course = parse_text(f"Course Title: Many Parts\n\n{body}\n", "many.txt")
    assert len(course.lessons) == 100_000 and course.lessons[-1].title == "Part 100000"


def test_a_docx_whose_text_unpacks_past_the_xml_limit_is_refused(tmp_path):
    # Ordinary paragraphs compress about 10:1, under the ratio check; the XML cap still bounds the parse.
    paragraphs, number = io.BytesIO(), 0
    while paragraphs.tell() < 1024 * 1024:  # whole paragraphs, so the XML stays well formed
        number += 1
        paragraphs.write(
            f"<w:p><w:r><w:t>Paragraph {number} of a very long course.</w:t></w:r></w:p>".encode()
        )
    data = _padded_docx(tmp_path, padding_mb=33, filler=paragraphs.getvalue())
    assert len(data) < 8 * 1024 * 1024
    with pytest.raises(ParseError) as caught:
        parse_bytes(data, "long.docx")
    assert caught.value.reason == "the Word document's text unpacks to 33 MB (limit 32 MB)"
