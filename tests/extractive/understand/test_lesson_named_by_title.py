"""A question names a lesson by a word of its title only when one lesson, and no course title, has it."""

from __future__ import annotations

import pytest

from app.assistant.extractive.lesson_titles import lesson_by_title_word
from tests.helpers import Library

HARDWARE = (
    "Neurons fire in bursts, and a thought is the pattern of firing across millions of them.",
    "A stroke at the back of the head can leave a patient unable to recognise faces, even a "
    "spouse's, while every other object is still known at a glance.",
    "Split-brain patients name what the left hemisphere sees and draw what the right one sees.",
)
CAMERAS = (
    "A camera network learns to find faces in photos: early layers respond to edges, later layers to "
    "eyes and noses, and the last ones to whole faces.",
    "Face recognition datasets hold millions of labelled faces, and networks trained on them match faces "
    "better than most people do.",
    "Recognising faces in a crowd from a street camera raises questions of privacy and of who is watching.",
)
ART = (
    "Painters drew faces in profile for centuries before the portrait turned to face the viewer.",
    "A caricature exaggerates the features of the faces that differ most from the average face.",
)


def course(title: str, lessons: list[tuple[str, tuple[str, ...]]]) -> str:
    """A TXT course document with titled lessons, one paragraph per passage."""
    lines = [f"Course Title: {title}", "Course Instructor: Test Person"]
    for number, (lesson_title, passages) in enumerate(lessons, start=1):
        lines += [f"Lesson {number}: {lesson_title}", f"Lesson Link: https://example.com/{number}"]
        lines += [f"{passage}\n" for passage in passages]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    """One course whose lessons are named by their titles: the mind's hardware, and seeing with cameras."""
    library = Library(tmp_path_factory.mktemp("titled"), chunk_size=200, chunk_overlap=0)
    lessons = [
        ("Foundations: The Mind's Hardware", HARDWARE),
        ("Seeing with Cameras", CAMERAS),
        ("Faces in Art", ART),
    ]
    (library.docs / "mind.txt").write_text(course("Mind and Machine", lessons))
    return library.synced()


def test_a_title_word_names_a_lesson_only_when_one_lesson_and_no_course_title_has_it(library):
    courses = library.index.courses()
    assert lesson_by_title_word("in the camera lesson", courses).lesson == 2
    assert lesson_by_title_word("the lecture on hardware", courses).rest == ""
    assert lesson_by_title_word("the machine lecture", courses) is None  # a word of the course's title
    assert lesson_by_title_word("the privacy lecture", courses) is None  # in no title
