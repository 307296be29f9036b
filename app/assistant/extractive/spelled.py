"""An acronym a lecture says only in full ("VAE": "variational auto encoder") is searched in full.

Captions write what the lecturer says, and a lecturer says an acronym's words as often as its letters: the
letters alone find nothing by keyword, and the name rule would decline what the lecture explains ("what is a
VAE?"). The words are looked for in the lessons the question's first passages come from; a chance run of
initials there adds a few words to the search, while missing the words declines a covered question.

A student types acronyms in lower case ("how does gbm work"). A lower-case word is read as one only when it
cannot be an English word (no vowel: "gbm", "knn") and no course says it; "lora" or "mesh" are words to
look up, not initials. Its letters find nothing to search by, so the question's first passages are chance:
its words are looked for in the whole library, and taken only when the library says one such run of words
and no other (a chance run of initials is rarely alone in a library).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.courses.chunking import split_sentences
from app.search.models import Passage
from app.search.names import letters_of, spelled_out, stem, tokens

if TYPE_CHECKING:
    from app.search.index import CourseIndex

# The lessons read: those of the first passages found (a question's answer is rarely further down).
FIRST = 3
# More chunks than a lesson holds: the whole lesson is read.
LESSON_CHUNKS = 200
VOWELS = frozenset("aeiouy")
# A lower-case acronym has at least this many letters: two letters ("db") start too many runs of words.
MIN_LETTERS = 3


def in_full(index: CourseIndex, text: str, passages: list[Passage]) -> dict[str, str]:
    """Each acronym of the text that no course writes, with the words a lesson of the first passages says
    for it ("VAE": "variational auto encoder"); a lower-case one with the words the library says for it."""
    written = [word for word in dict.fromkeys(tokens(text)) if letters_of(word) or unspeakable(word)]
    unwritten = [word for word in written if stem(word) not in index.held([stem(word)])]
    capitals = [word for word in unwritten if letters_of(word)]
    lessons = dict.fromkeys((passage.course_title, passage.lesson_number) for passage in passages[:FIRST])
    found: dict[str, str] = {}
    for course, lesson in lessons if capitals else ():
        read = index.search(" ".join(capitals), course=course, lesson=lesson, k=LESSON_CHUNKS)
        for acronym in [word for word in capitals if word not in found]:
            words = next(filter(None, (spelled_out(acronym, passage.text) for passage in read)), None)
            if words is not None:
                found[acronym] = words
    for acronym in [word for word in unwritten if word not in capitals]:
        words = said_once(index, acronym)
        if words is not None:
            found[acronym] = words
    return found


def unspeakable(word: str) -> bool:
    """True for a lower-case word of MIN_LETTERS letters or more with no vowel: no English word, initials."""
    return len(word) >= MIN_LETTERS and word.isalpha() and word.islower() and not VOWELS & set(word)


def said_once(index: CourseIndex, acronym: str) -> str | None:
    """The one run of words, within a sentence, that the library says for a lower-case acronym's letters;
    None when it says none, or several (then any one is likelier chance)."""
    runs: set[str] = set()
    for course in index.courses():
        for passage in index.search(acronym, course=course.title, k=max(course.chunk_count, 1)):
            for sentence in split_sentences(passage.text):
                words = spelled_out(acronym.upper(), sentence)
                if words is not None:
                    runs.add(words)
    return runs.pop() if len(runs) == 1 else None


def given_in_full(words: list[str], text: str) -> set[str]:
    """The lower-case acronyms among the words that the text also says in full ("gbm (gradient boosting
    machine)"): their words stand for them."""
    return {word for word in words if unspeakable(word) and spelled_out(word.upper(), text) is not None}
