"""The meaning check of a decline: when the word a question is about is one the courses never say.

Keyword search cannot match a word the courses never say, so the hybrid ranking's first passage is then found
by the question's other, generic words ("install" and "labs" of "how do I install blender for the labs?"),
and it holds them: its share of the question looks covered. The passage nearest the question in meaning
alone still looks for the topic. On a covered question worded unlike the courses (a name the captions spell
another way) that passage is about it and holds the rest of the question; on a question no course covers it
is about a neighbouring subject and holds little of it. So, only then, the answer is as sure as the lesser
of the two passages' shares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from app.assistant.extractive.confidence import signals
from app.language.tokens import compound_parts, silent_e
from app.search.models import Passage


class Library(Protocol):
    """What the check reads of the index."""

    def held(self, terms: list[str], course: str | None = None) -> set[str]: ...

    def rarity(self, terms: list[str]) -> dict[str, float]: ...

    def nearest(self, query: str, course: str | None = None, lesson: int | None = None) -> Passage | None: ...


def unsaid_topic(
    text: str,
    words: list[str],
    said: Callable[[list[str]], set[str]],
    weights: Callable[[list[str]], dict[str, float]],
) -> str | None:
    """The word carrying most of the question (`weights`: rarity times meaning, as the share weighs it),
    when the courses never say it (`said`: the stemmed words they say); None when they say it.

    A hyphenated compound's joined form is not a word of its own here (its parts are: "zero-sum" is said
    by "zero sum"), and a stem that lost a silent e is said by its base word ("grad" by "grade").
    """
    every = list(dict.fromkeys(words))
    joined = set(compound_parts(text))
    unique = [word for word in every if word not in joined]
    held = said([*unique, *(f"{word}e" for word in unique)])
    unsaid = {word for word in unique if word not in held and silent_e(word, held.__contains__) is None}
    if not unsaid:
        return None
    weight = weights(every)  # the whole question's words, as the share weighs them (kept per question)
    heaviest = max(unique, key=lambda word: weight.get(word, 0.0))
    return heaviest if heaviest in unsaid else None


def nearest_share(
    library: Library,
    meaning: Callable[[str, list[str]], dict[str, float]],
    text: str,
    words: Iterable[str],
    course: str | None,
    lesson: int | None,
) -> float | None:
    """The share of the question that the passage nearest it in meaning holds, when the word it is about is
    one the `course` (or any course) never says; None otherwise (the first passage's share stands)."""
    unique = list(dict.fromkeys(words))

    def weights(terms: list[str]) -> dict[str, float]:
        rare, moved = library.rarity(terms), meaning(text, terms)
        return {term: rare.get(term, 0.0) * moved.get(term, 0.0) for term in terms}

    if not unique or unsaid_topic(text, unique, lambda terms: library.held(terms, course), weights) is None:
        return None
    closest = library.nearest(text, course, lesson)
    if closest is None:
        return None
    return signals(text, unique, [closest], library.rarity, meaning).coverage
