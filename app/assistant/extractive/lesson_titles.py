"""A lesson named by a word of its title: "from the Pasteur lecture", "the lecture on Pasteur".

A half of a comparison names a lesson by a word of its title that the other half lacks ("in Cournot",
"HNSW graphs") when the half is mostly that title's words (`named_lesson`).

The extractive answerer's rule: such a question, or half, is searched and answered within that lesson.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from app.language.lexicon import COURSE_RE, PUNCTUATION
from app.language.tokens import content_words
from app.search.models import CourseRecord

# "the lecture on Pasteur", "the Pasteur lecture": one word naming a lesson by its title. "The lecture on"
# is tried first, so that "the lecture" is not read as a lesson named "the".
TITLE_WORD_RE = re.compile(
    r"\b(?:the\s+)?(?:lecture|lesson)\s+(?:on|about)\s+([A-Za-z][\w'-]+)"
    r"|\b(?:the\s+)?([A-Za-z][\w'-]+)\s+(?:lecture|lesson)\b",
    re.IGNORECASE,
)

# A half of a comparison names a lesson when at least this share of its own words are the lesson title's.
TITLE_SHARE = 0.5


class TitledLesson(NamedTuple):
    """The lesson a text names, its course, the words that named it, and the text without them."""

    course: CourseRecord
    lesson: int
    named_by: str
    rest: str


def lesson_by_title_word(text: str, courses: list[CourseRecord]) -> TitledLesson | None:
    """The lesson of `courses` a text names by one word of its title next to "lecture" or "lesson" ("from
    the Pasteur lecture"); None when the word is in no lesson title, in several, or in a course title ("the
    MIT lesson" names a course, not a lesson)."""
    for match in TITLE_WORD_RE.finditer(text):
        place = _titled_place(match.group(1) or match.group(2), courses)
        if place is not None:
            rest = " ".join(text.replace(match.group(0), " ").split())
            return TitledLesson(*place, match.group(0), rest)
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


def distinctive(topic: str, other: str) -> set[str]:
    """The stemmed content words of one half that the other half lacks (or has fewer times: "the brain
    lecture … in the brain" against "the CNN lecture … in the brain"): what tells the halves apart."""
    return set(Counter(content_words(topic)) - Counter(content_words(other)))


def named_lesson(topic: str, other: str, courses: list[CourseRecord]) -> tuple[CourseRecord, int] | None:
    """The course and lesson one half of a comparison names by a word of its title ("the Pasteur lecture",
    "HNSW graphs"); None when it names none or several.

    The word must tell the halves apart (the other half lacks it), be in exactly one lesson title of the
    library and in no course title: "deep" or "psychology" name no lesson.
    """
    holders: dict[str, set[tuple[str, int]]] = {}
    for course in courses:
        for lesson in course.lessons:
            for word in content_words(lesson.title):
                holders.setdefault(word, set()).add((course.title, lesson.number))
    in_titles = {word for course in courses for word in content_words(course.title)}
    naming = {word for word in distinctive(topic, other) - in_titles if len(holders.get(word, ())) == 1}
    places = {place for word in naming for place in holders[word]}
    if len(places) != 1:
        return None
    ((course_title, number),) = places
    course = next(course for course in courses if course.title == course_title)
    lesson_title = next(lesson.title for lesson in course.lessons if lesson.number == number)
    # A topic word that happens to be in a title ("neural networks") names no lesson: the half must say
    # "lecture" or "lesson", or be mostly the title's words.
    own = distinctive(topic, other)
    if not COURSE_RE.search(topic) and len(own & set(content_words(lesson_title))) < TITLE_SHARE * len(own):
        return None
    return course, number


def without_title(topic: str, title: str) -> str:
    """The topic without the words that named its lesson ("the brain lecture"): inside the lesson they tell
    no passage apart, and they pull the search toward any passage that says them."""
    naming = set(content_words(title))
    kept = [word for word in topic.split() if not COURSE_RE.fullmatch(word.strip(PUNCTUATION))]
    kept = [word for word in kept if not naming & set(content_words(word))]
    return " ".join(kept) if content_words(" ".join(kept)) else topic
