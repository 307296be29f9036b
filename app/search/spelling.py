"""Correct misspelled question words towards the library's own vocabulary ("hypotesis" -> "hypothesis").

A word is corrected only when it is unknown and a library word is one edit away: a letter left out, added,
changed or two swapped. Candidates are found by deleting one letter from each side (a deletion
neighbourhood), which is fast for a vocabulary of any size. Real words the library lacks must not be
"corrected" into library words ("bread" into "break", "React" into "reach"), so a word is known when the
library has it or its stem, when it is an inflection of a library word ("retriever" of "retrieve"), or when
it is a whole word of the embedding model's own vocabulary (about 22,000 English words). A correction also
needs at least MIN_LENGTH letters and the same first letter; the candidate that occurs most often wins.
A hyphenated compound is left whole, and two words written apart are joined where the library writes them
as one word and lacks one of them alone ("re ranker": "reranker").
"""

from __future__ import annotations

import re
from collections import Counter

from app.language.tokens import stem

MIN_LENGTH = 5
# Words with an apostrophe ("shouldn't") or hyphens ("multi-modal") are taken whole and left alone: a
# compound is written on purpose, and correcting one of its parts changes the term ("multi-model").
WORD_RE = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
INFLECTIONS = ("s", "es", "d", "ed", "r", "er", "ers", "ing")


def _deletions(word: str) -> set[str]:
    """The word itself and every string made by deleting one of its letters."""
    return {word, *(word[:position] + word[position + 1 :] for position in range(len(word)))}


class Speller:
    """Corrections towards a vocabulary of lower-case words with their frequencies."""

    def __init__(self, words: Counter[str]):
        self.words = words
        self.stems = {stem(word) for word in words}
        self._neighbours: dict[str, list[str]] = {}
        for word in words:
            if len(word) >= MIN_LENGTH - 1:
                for variant in _deletions(word):
                    self._neighbours.setdefault(variant, []).append(word)

    def correct(self, word: str, dictionary: frozenset[str] = frozenset(), name: bool = False) -> str | None:
        """The library word a misspelled word stands for, or None when it is known or has no close match.

        A `name` is not taken for an inflection of a library word ("Skiner" is no skin-er of "skin").
        """
        lower = word.lower()
        if (
            len(lower) < MIN_LENGTH
            or "'" in lower
            or "-" in lower
            or lower in dictionary
            or self._known(lower, not name)
        ):
            return None
        candidates = {
            candidate
            for variant in _deletions(lower)
            for candidate in self._neighbours.get(variant, [])
            if candidate[0] == lower[0] and candidate != lower
        }
        if not candidates:
            return None
        return max(sorted(candidates), key=lambda candidate: self.words[candidate])

    def _known(self, word: str, inflected: bool = True) -> bool:
        """True for a word of the library: as written, by its stem, or (`inflected`) inflected."""
        if word in self.words or stem(word) in self.stems:
            return True
        endings = INFLECTIONS if inflected else ()
        return any(word.endswith(ending) and word[: -len(ending)] in self.words for ending in endings)

    def corrected(self, text: str, dictionary: frozenset[str] = frozenset(), names: bool = False) -> str:
        """The text with each misspelled word replaced by its library word (the rest left as written), and
        words written apart joined as the library writes them (`joined`); `names`: the text is names, none
        of them an inflection."""
        text = self.joined(text)
        fixed = self.correct
        return WORD_RE.sub(lambda match: fixed(match.group(), dictionary, names) or match.group(), text)

    def joined(self, text: str) -> str:
        """The text with two words written apart joined where the library writes them as one word and does
        not say one of them alone ("re ranker": "reranker", "multi modal": "multimodal")."""
        found = list(WORD_RE.finditer(text))
        pieces, last = [], 0
        for first, second in zip(found, found[1:], strict=False):
            if first.start() < last or text[first.end() : second.start()] != " ":
                continue
            pair = (first.group().lower(), second.group().lower())
            if "".join(pair) in self.words and not all(word in self.words for word in pair):
                pieces += [text[last : first.start()], first.group() + second.group()]
                last = second.end()
        return "".join([*pieces, text[last:]])
