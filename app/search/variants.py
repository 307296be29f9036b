"""Other spellings a transcript uses for a question's word: a number in digits or in words ("5 subfields":
"five"), the base word a stem lost its silent e from ("grading": "grade")."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.search.names import silent_e

# Numbers a speaker says and a captioner writes either way. "one" is left out: mostly a pronoun ("the one
# that"), and "zero" too ("lesson 0" names a lesson, not the number said in it).
NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
_OTHER_FORM = {word: str(number) for number, word in enumerate(NUMBER_WORDS, 2)}
_OTHER_FORM.update({digits: word for word, digits in _OTHER_FORM.items()})


def variants(terms: Iterable[str], said: Callable[[str], bool]) -> set[str]:
    """The other forms of the stemmed query terms that the library says: a number's digits or its word,
    and for a term it never says, the base word with its silent e."""
    found: set[str] = set()
    for term in terms:
        other = _OTHER_FORM.get(term) or silent_e(term, said)
        if other is not None and said(other):
            found.add(other)
    return found
