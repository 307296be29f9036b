"""An acronym a lecture says only in full ("VAE": "variational auto encoder") is searched in full.

Captions write what the lecturer says, and a lecturer says an acronym's words as often as its letters: the
letters alone find nothing by keyword, and the name rule would decline what the lecture explains ("what is a
VAE?"). The words are looked for in the lessons the question's first passages come from; a chance run of
initials there adds a few words to the search, while missing the words declines a covered question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.language.acronyms import letters_of, spelled_out
from app.language.tokens import stem, tokens
from app.search.models import Passage

if TYPE_CHECKING:
    from app.search.index import CourseIndex

# The lessons read: those of the first passages found (a question's answer is rarely further down).
FIRST = 3
# More chunks than a lesson holds: the whole lesson is read.
LESSON_CHUNKS = 200


def in_full(index: CourseIndex, text: str, passages: list[Passage]) -> dict[str, str]:
    """Each acronym of the text that no course writes, with the words a lesson of the first passages says
    for it ("VAE": "variational auto encoder")."""
    acronyms = [word for word in dict.fromkeys(tokens(text)) if letters_of(word)]
    unwritten = [word for word in acronyms if stem(word) not in index.held([stem(word)])]
    lessons = dict.fromkeys((passage.course_title, passage.lesson_number) for passage in passages[:FIRST])
    found: dict[str, str] = {}
    for course, lesson in lessons if unwritten else ():
        read = index.search_question(" ".join(unwritten), course=course, lesson=lesson, k=LESSON_CHUNKS)
        for acronym in [word for word in unwritten if word not in found]:
            words = next(filter(None, (spelled_out(acronym, passage.text) for passage in read)), None)
            if words is not None:
                found[acronym] = words
    return found
