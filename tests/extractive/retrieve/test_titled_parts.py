"""A comparison's part that names a lesson by a word of its title is searched within that lesson."""

from __future__ import annotations

import pytest

from app.search.parts import part_scope
from app.search.searcher import SearchRequest
from app.search.titled import lesson_by_title_word
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
ASKED = "What do the hardware lecture and the camera lecture say about recognising faces?"


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


def test_a_part_naming_a_lesson_by_its_title_is_searched_in_it_for_its_other_words(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    part = "What does the hardware lecture say about recognising faces?"
    # Searched anywhere, the part finds the camera lesson's faces.
    found = index.searcher.search(SearchRequest(part, snapshot, snapshot.entries, None, None, 1))
    assert found[0].lesson_number == 2

    other = "What does the camera lecture say about recognising faces?"

    where = part_scope(index.searcher, part, other, snapshot, snapshot.entries, None)

    assert (where.lesson, where.query) == (1, "What does say about recognising faces?")
    assert [entry.record.title for entry in where.entries] == ["Mind and Machine"]


def test_the_named_lessons_passage_is_among_the_first(library):
    found = library.index.search(ASKED, k=3)
    assert any("unable to recognise faces" in p.text for p in found)


def test_a_search_within_a_lesson_keeps_it(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    part = "What does the hardware lecture say about recognising faces?"
    assert part_scope(index.searcher, part, "", snapshot, snapshot.entries, None, lesson=2).lesson == 2


def test_a_title_word_names_a_lesson_only_when_one_lesson_and_no_course_title_has_it(library):
    courses = library.index.courses()
    assert lesson_by_title_word("in the camera lesson", courses).lesson == 2
    assert lesson_by_title_word("the lecture on hardware", courses).rest == ""
    assert lesson_by_title_word("the machine lecture", courses) is None  # a word of the course's title
    assert lesson_by_title_word("the privacy lecture", courses) is None  # in no title


CAMERAS_PART = "What do Cameras say about faces?"


@pytest.mark.parametrize(
    ("part", "other", "lesson", "query"),
    [
        # "Hardware" tells the part apart and is most of its own words: the lesson it names, searched for
        # the part's other words.
        ("What does Hardware say about faces?", CAMERAS_PART, 1, "What does say about faces?"),
        # Most of the part's own words are no title's: "Hardware" is one topic word of many.
        ("How do neurons fire bursts in Hardware?", "How do networks learn?", None, None),
        # A part naming a course spends its words on the course.
        ("What does the Hardware course say about faces?", CAMERAS_PART, None, None),
    ],
)
def test_a_part_names_a_lesson_by_its_title_words_alone_only_when_they_are_its_own(
    library, part, other, lesson, query
):
    index = library.index
    snapshot = index.catalog.snapshot()

    where = part_scope(index.searcher, part, other, snapshot, snapshot.entries, None)

    assert (where.lesson, where.query) == (lesson, query or part)


def test_a_question_naming_a_lesson_by_its_title_is_searched_in_it(library):
    found = library.index.search("What does the hardware lecture say about recognising faces?", k=3)
    assert {p.lesson_number for p in found} == {1}
    assert "unable to recognise faces" in found[0].text
    # A lesson the search names already wins over the one the question names.
    within = library.index.search("What does the hardware lecture say about faces?", lesson=2, k=3)
    assert {p.lesson_number for p in within} == {2}


def test_a_comparison_naming_two_lessons_is_not_searched_within_one(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    whole = index.searcher.search(SearchRequest(ASKED, snapshot, snapshot.entries, None, None, 1))
    assert [p.text for p in index.search(ASKED, k=1)] == [p.text for p in whole]
