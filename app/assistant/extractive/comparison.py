"""Tell the two halves of a comparison apart, and find the lesson a half names ("the Skinner lecture").

The split itself (`split_comparison`) lives in `app.search.split`, which search uses too.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from app.search.names import content_words
from app.search.split import COURSE_RE, CUE_RE, PUNCTUATION, split_comparison

if TYPE_CHECKING:
    from app.search.models import CourseRecord

__all__ = [
    "COURSE_RE",
    "CUE_RE",
    "distinctive",
    "named_lesson",
    "own_subject",
    "says",
    "split_comparison",
    "without_title",
]

# A half names a lesson when at least this share of its own words are the lesson title's.
TITLE_SHARE = 0.5
# Two stems this long, one the other's start, are one word ("cach" and "cache").
MIN_PREFIX = 4


def distinctive(topic: str, other: str) -> set[str]:
    """The stemmed content words of one half that the other half lacks (or has fewer times: "the brain
    lecture … in the brain" against "the CNN lecture … in the brain"): what tells the halves apart."""
    return set(Counter(content_words(topic)) - Counter(content_words(other)))


def own_subject(topic: str, other: str) -> set[str]:
    """What tells one half apart, without the words that name a lesson ("the CNN lecture"): those say where
    to look, not what the passage must say."""
    words = topic.split()
    naming: set[str] = set()
    for at, word in enumerate(words):
        if not COURSE_RE.fullmatch(word.strip(PUNCTUATION)):
            continue
        before = at - 1
        while before >= 0 and content_words(words[before]) and words[before][-1] not in PUNCTUATION:
            naming.update(content_words(words[before]))
            before -= 1
    return distinctive(topic, other) - naming


def says(own: set[str], words: set[str]) -> bool:
    """True when the words hold one of `own`, or a word it begins or that begins it: the stems are crude
    ("caching" is "cach", "cache" is "cache"; "reranker" against "rerank")."""
    return bool(own & words) or any(
        len(mine) >= MIN_PREFIX
        and len(word) >= MIN_PREFIX
        and (word.startswith(mine) or mine.startswith(word))
        for mine in own
        for word in words
    )


def without_title(topic: str, title: str) -> str:
    """The topic without the words that named its lesson ("the brain lecture"): inside the lesson they tell
    no passage apart, and they pull the search toward any passage that says them."""
    naming = set(content_words(title))
    kept = [word for word in topic.split() if not COURSE_RE.fullmatch(word.strip(PUNCTUATION))]
    kept = [word for word in kept if not naming & set(content_words(word))]
    return " ".join(kept) if content_words(" ".join(kept)) else topic


def named_lesson(topic: str, other: str, courses: list[CourseRecord]) -> tuple[CourseRecord, int] | None:
    """The course and lesson one half names by a word of its title ("the Skinner lecture", "HNSW graphs");
    None when it names none or several.

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
