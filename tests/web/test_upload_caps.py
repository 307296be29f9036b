"""An upload the sync would refuse for its chunk count is refused at upload, with the sync's own reason, and
an archive that names one caption file in many lessons parses that file once."""

from __future__ import annotations

import io
import zipfile

import pytest

from app.courses import caption_course
from app.library import limits
from tests.web.admin_helpers import PASSWORD, Admin, docs_snapshot

LESSONS = 60


def one_line_course(words: int) -> bytes:
    """A TXT course whose only lesson is one line of `words` words (no sentence ends)."""
    return ("Course Title: Endless Line\n\nLesson 1: All of it\n" + "dough " * words + "\n").encode()


def stamp(seconds: int) -> str:
    """A WebVTT time stamp."""
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000"


def captions(cues: int) -> str:
    """A WebVTT file of `cues` one-sentence cues."""
    lines = ["WEBVTT", ""]
    for number in range(cues):
        lines += [
            f"{stamp(number * 2)} --> {stamp(number * 2 + 1)}",
            f"Cue number {number} says the bread rises slowly overnight.",
            "",
        ]
    return "\n".join(lines)


def many_lessons_one_caption_zip(cues: int) -> bytes:
    """A small archive whose course.txt names the same caption file in LESSONS lessons."""
    header = ["Course Title: Echo Lectures", ""]
    for number in range(1, LESSONS + 1):
        header += [f"Lesson {number}: Echo {number}", "Lesson Captions: same.vtt", ""]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("echo/course.txt", "\n".join(header))
        archive.writestr("echo/same.vtt", captions(cues))
    return buffer.getvalue()


@pytest.fixture
def admin(make_app):
    """A signed-in admin client."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def refusal(response) -> str:
    """The page's text of an upload's result."""
    return response.get_data(as_text=True)


def test_a_one_line_txt_over_the_chunk_cap_is_refused_at_upload_with_the_syncs_reason(admin, docs_dir):
    before = docs_snapshot(docs_dir)
    data = one_line_course(words=2_000_000)  # 12 MB: under the size limits, about 15,000 chunks

    response = admin.upload([(data, "endless.txt")])

    assert response.status_code == 422
    assert docs_snapshot(docs_dir) == before
    (docs_dir / "endless.txt").write_bytes(data)  # placed by hand instead: the sync refuses it alike
    report = admin.app.extensions["services"].indexer.sync()
    [failed] = [result for result in report.results if result.file == "endless.txt"]
    assert failed.status == "failed"
    reason = failed.error.removeprefix("endless.txt: ")
    assert "chunks" in reason and f"{limits.MAX_CHUNKS_PER_DOCUMENT:,}" in reason
    assert reason in refusal(response).replace("&#39;", "'")


def test_a_course_just_over_the_cap_by_its_overlap_is_refused_alike(admin, docs_dir, monkeypatch):
    monkeypatch.setattr(limits, "MAX_CHUNKS_PER_DOCUMENT", 20)
    sentences = " ".join(f"Sentence {number} tells how the oven heats the stone." for number in range(300))
    data = f"Course Title: Stone Oven\n\nLesson 1: Heat\n{sentences}\n".encode()

    response = admin.upload([(data, "stone.txt")])

    assert response.status_code == 422 and "more than the 20 one course may have" in refusal(response)
    assert not (docs_dir / "stone.txt").exists()


def test_an_archive_naming_one_caption_file_in_many_lessons_parses_it_once(admin, docs_dir, monkeypatch):
    parsed: list[str] = []
    real = caption_course.caption_sentences

    def counted(data: bytes, name: str):
        parsed.append(name)
        return real(data, name)

    monkeypatch.setattr(caption_course, "caption_sentences", counted)
    data = many_lessons_one_caption_zip(cues=4_000)  # a small archive: one ~230 KB caption file
    assert len(data) < 64 * 1024

    response = admin.upload([(data, "echo.zip")])

    assert parsed == ["echo.zip/echo/same.vtt"]  # inflated and parsed once, not once per lesson
    assert response.status_code == 422 and "chunks" in refusal(response)
    assert not (docs_dir / "echo.zip").exists()


def test_an_archive_naming_one_small_caption_file_twice_is_saved(admin, docs_dir):
    header = "Course Title: Twice Told\n\n" + "".join(
        f"Lesson {number}: Told {number}\nLesson Captions: a.vtt\n\n" for number in (1, 2)
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("course.txt", header)
        archive.writestr("a.vtt", captions(5))

    response = admin.upload([(buffer.getvalue(), "twice.zip")])

    assert response.status_code == 200 and (docs_dir / "twice.zip").is_file()
