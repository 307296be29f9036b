"""A lesson named by a word of its title: "from the Skinner lecture", "the lecture on Skinner".

A name alone names a lesson too ("the equilibrium in Cournot"), when one lesson's title holds it and the
library says it mostly in that lesson (`lesson_by_name`); search's parts read it.

One rule for search (a comparison's part naming a lesson is searched within it, `parts.part_scope`) and
the extractive answerer (a question naming a lesson is answered from it), so both read a lesson's name
alike.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from app.search.models import CourseRecord
from app.search.names import content_words, tokens

# "the lecture on Skinner", "the Skinner lecture": one word naming a lesson by its title. "The lecture on"
# is tried first, so that "the lecture" is not read as a lesson named "the".
TITLE_WORD_RE = re.compile(
    r"\b(?:the\s+)?(?:lecture|lesson)\s+(?:on|about)\s+([A-Za-z][\w'-]+)"
    r"|\b(?:the\s+)?([A-Za-z][\w'-]+)\s+(?:lecture|lesson)\b",
    re.IGNORECASE,
)

# A name alone names the lesson whose title holds it when at least this share of the chunks that say it are
# that lesson's (each chunk of a lesson says its title): "Cournot", said nowhere else, names its lesson;
# "Brain", said in a third of the psychology course's other lessons too, does not.
NAME_SHARE = 0.75


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
    for match in TITLE_WORD_RE.finditer(text):
        place = _titled_place(match.group(1) or match.group(2), courses)
        if place is not None:
            rest = " ".join(text.replace(match.group(0), " ").split())
            return TitledLesson(*place, match.group(0), rest)
    return None


def lesson_by_name(
    text: str, courses: list[CourseRecord], lessons_saying: Callable[[str], Counter[tuple[str, int]]]
) -> TitledLesson | None:
    """The lesson of `courses` a text names by a name alone ("the equilibrium in Cournot"): a capitalised
    word, not the text's first, of one lesson's title and no course title, that the library says mostly in
    that lesson (`lessons_saying`: a stemmed word's chunk count per (course id, lesson)). The name stays in
    the text: it is also what the text asks about."""
    for token in tokens(text)[1:]:
        place = _titled_place(token, courses) if token[0].isupper() else None
        if place is None:
            continue
        saying = lessons_saying(content_words(token)[0])
        total = sum(saying.values())
        if total and saying[(place[0].id, place[1])] >= NAME_SHARE * total:
            return TitledLesson(*place, token, text)
    return None


def _titled_place(written: str, courses: list[CourseRecord]) -> tuple[CourseRecord, int] | None:
    """The one lesson of `courses` whose title holds the word; None when none or several do, or a course
    title does ("the MIT lesson" names a course, not a lesson)."""
    word = content_words(written)
    in_course_titles = {each for course in courses for each in content_words(course.title)}
    if len(word) != 1 or word[0] in in_course_titles:
        return None
    places = [
        (course, lesson.number)
        for course in courses
        for lesson in course.lessons
        if word[0] in content_words(lesson.title)
    ]
    return places[0] if len(places) == 1 else None
