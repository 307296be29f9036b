"""Other spellings a transcript uses for a question's word: a number in digits or in words ("5 subfields":
"five"), a common word a student writes the chat way ("thru": "through"), an irregular verb's past forms
("eat": "ate", "eaten")."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.search.irregular import past_forms

# Numbers a speaker says and a captioner writes either way. "one" is left out: mostly a pronoun ("the one
# that"), and "zero" too ("lesson 0" names a lesson, not the number said in it).
NUMBER_WORDS = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)  # fmt: skip
_OTHER_FORM = {word: str(number) for number, word in enumerate(NUMBER_WORDS, 2)}
_OTHER_FORM.update({digits: word for word, digits in _OTHER_FORM.items()})
# Chat spellings of common words: captions write the word in full.
_OTHER_FORM.update(
    {"thru": "through", "tho": "though", "altho": "although", "cuz": "because", "bc": "because", "w": "with"}
)


def variants(terms: Iterable[str], said: Callable[[str], bool]) -> set[str]:
    """The other form of each number among the stemmed query terms (its digits or its word), the full word
    of a chat spelling, and the past forms of an irregular verb's base word, that the library says.

    Not the base word of a past form ("drove": "drive"): measured, the base is often a course's everyday
    word ("drive" in a lecture on self-driving cars) and outweighed the question's topic.

    Not the base word a stem lost its silent e from ("retrieving": "retrieve"): measured, it let a rare
    spelling of a course's everyday word ("retrieve" beside "retrieval") outweigh the question's topic.
    """
    found = {other for term in terms if (other := _OTHER_FORM.get(term)) is not None and said(other)}
    return found | {other for term in terms for other in past_forms(term) if said(other)}
