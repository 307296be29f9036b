"""Admin uploads of captioned courses: a `.zip` course archive and a single caption file."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.web.admin_helpers import PASSWORD, Admin, course_titles, docs_snapshot, index_snapshot

CAPTIONS = Path(__file__).parent.parent / "data" / "captions"
HEADER = """Course Title: Kitchen Science Lectures
Course Instructor: A. Cook

Lesson 1: Welcome
Lesson Link: https://www.youtube.com/watch?v=abcdefghijk
Lesson Captions: welcome.vtt

Lesson 2: Browning
Lesson Link: https://media.example.com/browning.mp4
Lesson Captions: browning.srt
"""


def course_zip(header: str = HEADER) -> bytes:
    """A course archive: course.txt and the two small caption fixtures it names."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("kitchen/course.txt", header)
        archive.write(CAPTIONS / "youtube_rolling.vtt", "kitchen/welcome.vtt")
        archive.write(CAPTIONS / "lecture.srt", "kitchen/browning.srt")
    return buffer.getvalue()


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def test_a_course_archive_is_saved_indexed_timed_and_listed_as_captioned(admin, docs_dir):
    data = course_zip()
    response = admin.upload([(data, "kitchen.zip")])
    assert response.status_code == 200 and "Refused" not in response.get_data(as_text=True)
    assert (docs_dir / "kitchen.zip").read_bytes() == data
    assert admin.wait_for_job()["summary"]["added"] == 1
    assert "Kitchen Science Lectures" in course_titles(admin.client)
    results = admin.client.get("/api/search", query_string={"q": "Maillard reaction", "course": "kitchen"})
    browning = [r for r in results.get_json()["results"] if r["lesson_number"] == 2]
    assert browning and browning[0]["start_seconds"] >= 1
    assert browning[0]["lesson_link"].startswith("https://media.example.com/browning.mp4#t=")
    page = admin.client.get("/admin").get_data(as_text=True)
    row = page.split('id="course-kitchen-science-lectures"', 1)[1].split("</tr>", 1)[0]
    assert "Captioned" in row and "<li>Lesson 1: 0:18</li><li>Lesson 2: 1:05</li>" in row


def test_a_single_caption_file_is_a_course_of_one_lesson(admin, docs_dir):
    data = (CAPTIONS / "lecture.srt").read_bytes()
    response = admin.upload([(data, "maillard_basics.srt")])
    assert response.status_code == 200
    admin.wait_for_job()
    assert any("Maillard" in title for title in course_titles(admin.client))


def test_a_bad_course_archive_is_refused_with_its_reason_and_nothing_changes(admin, docs_dir):
    docs_before, index_before = docs_snapshot(docs_dir), index_snapshot(admin.app)
    broken = course_zip(HEADER.replace("browning.srt", "missing.srt"))
    response = admin.upload([(broken, "kitchen.zip")])
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert (
        "kitchen.zip/kitchen/course.txt: caption file &#39;missing.srt&#39; is not in the archive (line 8)"
        in html
    )
    assert docs_snapshot(docs_dir) == docs_before
    assert index_snapshot(admin.app) == index_before
