"""List questions: "which <things> have <a property>" asks for several things, each often in its own lesson.

A search ranks the passages of the lesson that says the property most, so its top k fill up with that one
lesson, and a lesson that says the same property in other words ("where it gives way" for "a weak spot")
ranks far down. A lecture that says the property often points to the other things that have it ("we already
saw a weak spot on the rope bridge, the third plank"). So the sentences of the best passage that say the
property are searched again, and the best passage of each other lesson they find takes one of the last
places of the top k (at most a third of them, as `parts.keep_more` gives them: the whole question's first
two thirds keep their places).
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.courses.chunking import split_sentences
from app.language.lexicon import AUXILIARIES
from app.language.tokens import content_words
from app.search.models import Passage
from app.search.searcher import Searcher, SearchRequest

# "which bridges ...", "rope bridges: which knots ...": "which" and a plural noun (not a verb agreeing with
# "which"), opening the question or its clause after a topic and a colon or dash.
LIST_RE = re.compile(r"(?:^|[:\u2013\u2014]|\s-)\W*which\s+([a-z]{3,}s)\b", re.IGNORECASE)
# Endings of a singular word that ends in "s" ("class", "focus", "analysis").
SINGULAR_ENDS = ("ss", "us", "is")
# A sentence says the property when it says this many of the question's other words (or all, when fewer).
PROPERTY_WORDS = 2


def listed_noun(question: str) -> str | None:
    """The plural noun a list question asks for ("bridges" of "which bridges have ..."), or None."""
    match = LIST_RE.search(question)
    if match is None:
        return None
    noun = match.group(1).lower()
    if noun in AUXILIARIES or noun.endswith(SINGULAR_ENDS):
        return None
    return noun


def property_sentences(question: str, noun: str, passages: list[Passage]) -> tuple[Passage, list[str]] | None:
    """The first passage that says the property, and its sentences saying the most of the question's words
    other than the listed noun (at least `PROPERTY_WORDS`); None if no passage says it."""
    listed = set(content_words(noun))
    words = {word for word in content_words(question) if word not in listed}
    need = min(PROPERTY_WORDS, len(words))
    if need == 0:
        return None
    for found in passages:
        sentences = split_sentences(found.text)
        said = [len(words & set(content_words(sentence))) for sentence in sentences]
        most = max(said, default=0)
        if most >= need:
            return found, [sentence for sentence, count in zip(sentences, said, strict=True) if count == most]
    return None


def other_lessons(source: Passage, found: list[Passage], kept: list[Passage]) -> list[Passage]:
    """The best passage of each lesson in `found` other than the source's, best first, unless it is kept
    already."""
    seen = {(source.course_title, source.lesson_number)}
    places = {one.place for one in kept}
    firsts = []
    for one in found:
        lesson = (one.course_title, one.lesson_number)
        if lesson in seen:
            continue
        seen.add(lesson)
        if one.place not in places:
            firsts.append(one)
    return firsts


def listed_passages(searcher: Searcher, request: SearchRequest, kept: list[Passage]) -> list[Passage]:
    """For a list question, the best passage of each other lesson found by the sentences of the kept passage
    that says the property, best first (none for any other question, or when no kept passage says it)."""
    query = request.query
    noun = listed_noun(query)
    said = property_sentences(query, noun, kept) if noun is not None and request.lesson is None else None
    if said is None:
        return []
    source, sentences = said
    found = searcher.search(replace(request, query=" ".join(sentences)))
    return other_lessons(source, found, kept)
