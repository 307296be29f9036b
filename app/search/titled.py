"""A lesson named by a word of its title: "from the Skinner lecture", "the lecture on Skinner".

One rule for search (a comparison's part naming a lesson is searched within it, `parts.part_scope`) and
the extractive answerer (a question naming a lesson is answered from it), so both read a lesson's name
alike.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from app.search.models import CourseRecord
from app.search.names import content_words

# "the lecture on Skinner", "the Skinner lecture": one word naming a lesson by its title. "The lecture on"
# is tried first, so that "the lecture" is not read as a lesson named "the".
TITLE_WORD_RE = re.compile(
    r"\b(?:the\s+)?(?:lecture|lesson)\s+(?:on|about)\s+([A-Za-z][\w'-]+)"
    r"|\b(?:the\s+)?([A-Za-z][\w'-]+)\s+(?:lecture|lesson)\b",
    re.IGNORECASE,
)


class TitledLesson(NamedTuple):
    """The lesson a text names, its course, the words that named it, and the text without them."""

    course: CourseRecord
    lesson: int
    named_by: str
    rest: str


def lesson_by_title_word(text: str, courses: list[CourseRecord]) -> TitledLesson | None:
    """The lesson of `courses` a text names by one word of its title next to "lecture" or "lesson" ("from
    the Skinner lecture"); None when the word is in no lesson title, in several, or in a course title ("the
    MIT lesson" names a course, not a lesson)."""
    in_course_titles = {word for course in courses for word in content_words(course.title)}
    for match in TITLE_WORD_RE.finditer(text):
        word = content_words(match.group(1) or match.group(2))
        if len(word) != 1 or word[0] in in_course_titles:
            continue
        places = [
            (course, lesson.number)
            for course in courses
            for lesson in course.lessons
            if word[0] in content_words(lesson.title)
        ]
        if len(places) == 1:
            rest = " ".join(text.replace(match.group(0), " ").split())
            return TitledLesson(places[0][0], places[0][1], match.group(0), rest)
    return None
