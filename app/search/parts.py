"""Two-part questions: each part's best passage is kept among a search's results.

A comparison searched whole ("caching in Redis versus caching after compression", "the sourdough
lecture and the pizza lecture") is ranked by whichever part dominates its words, so the other part's
passages can fall out of the top k. Each half (`split_comparison`) is also searched on its own, within the
course it names when the search names none ("the RAG course"), or else within the one course the whole
question names, as its asker means it, and within the lesson it names by a word of its title ("the pizza
lecture", "in Cournot": the answerer's rule, `app.search.titled`); its first passage follows the whole
question's first. The first place stays the whole question's, so a question the splitter cuts wrongly
("... and with what architecture?") keeps its best passage first. Measured on both libraries (README):
the passages of both lessons of a two-lesson question come sooner; no single-passage question moved.
A part that alone names a lesson also offers that lesson's next best passages, ordered by their best window
of sentences (`windows.by_best_window`): the last third of the top k takes those not kept already (lecture
set: a passage answering in one sentence among small talk, 7th in its lesson, came 10th; nothing moved on
the sample library). It costs a model call per two sentences of those passages not kept in the first two
thirds anyway (about 130 ms at k=10 on a busy 2-core machine, nothing for windows met before), and runs for
no other search.
A question comparing nothing that names a lesson by its title is searched within that lesson.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import zip_longest
from typing import NamedTuple

from app.language.lexicon import COURSE_RE
from app.language.tokens import content_words
from app.search.catalog import CatalogEntry, CatalogSnapshot
from app.search.listed import listed_passages
from app.search.models import CourseRecord, Passage
from app.search.resolver import mentioned_course
from app.search.searcher import Searcher, SearchRequest
from app.search.split import split_comparison
from app.search.titled import lesson_by_title_word, named_lesson, without_title
from app.search.windows import by_best_window

# k=1 asks for the single best passage: no part is searched.
MIN_K = 2
# A part saying "course" or "class" names a course by its other words, as the answerer's naming phrases do.
COURSE_WORD_RE = re.compile(r"\b(?:course|class)\b", re.IGNORECASE)


class PartScope(NamedTuple):
    """Where one part is searched, and for what: the courses, the one course and lesson it names if any, and
    its words without those naming a lesson."""

    entries: list[CatalogEntry]
    course: str | None
    lesson: int | None
    query: str


def part_scope(
    searcher: Searcher,
    part: str,
    other: str,
    library: CatalogSnapshot,
    scope: list[CatalogEntry],
    course: str | None,
    lesson: int | None = None,
    whole: CourseRecord | None = None,
) -> PartScope:
    """Where to search one part of a comparison (`other` is the other part): within the lesson it names by
    a word of its title ("the pizza lecture", `lesson_by_title_word`; "in Cournot", `named_lesson`), for
    its words without those naming it; else as `course_scope` says, within the search's lesson."""
    entries, course = course_scope(searcher, part, library, scope, course, whole)
    if lesson is not None:
        return PartScope(entries, course, lesson, part)
    titled = lesson_by_title_word(part, [entry.record for entry in entries])
    if titled is not None:
        return PartScope(_of(entries, titled.course), titled.course.id, titled.lesson, titled.rest)
    # A part naming a course ("in the RAG course", "a RAG answer") spends its title word on the course.
    names_course = COURSE_WORD_RE.search(part) or mentioned_course(part, library.records)
    named = None if names_course else named_lesson(part, other, library.records)
    if named is None or not _of(entries, named[0]):
        return PartScope(entries, course, None, part)
    title = next(item.title for item in named[0].lessons if item.number == named[1])
    return PartScope(_of(entries, named[0]), named[0].id, named[1], without_title(part, title))


def _of(entries: list[CatalogEntry], record: CourseRecord) -> list[CatalogEntry]:
    """The entries of one course."""
    return [entry for entry in entries if entry.record.id == record.id]


def course_scope(
    searcher: Searcher,
    part: str,
    library: CatalogSnapshot,
    scope: list[CatalogEntry],
    course: str | None,
    whole: CourseRecord | None = None,
) -> tuple[list[CatalogEntry], str | None]:
    """The courses to search one part in when the search names no course: the course the part names, else
    the one course the whole question names ("what MCP servers expose vs what clients expose": clients of
    MCP) when that course says every word of the part that any course says; else every course."""
    if course is not None:
        return scope, course
    named = mentioned_course(part, library.records)
    if named is not None:
        return [entry for entry in scope if entry.record.id == named[0].id], named[0].id
    # A part naming a place of its own ("from the psychology course") is not the other part's course.
    if whole is None or COURSE_RE.search(part):
        return scope, None
    own = [entry for entry in scope if entry.record.id == whole.id]
    words = content_words(part)
    # "in Jinja templates" against "in a RAG answer": a course that never says "Jinja" is not its course.
    return (own, whole.id) if searcher.covers(words, library, own, scope) else (scope, None)


def scored_for(searcher: Searcher, request: SearchRequest, whole: list[Passage], found: Passage) -> Passage:
    """A part's passage scored by its cosine to the whole question, like every other passage returned."""
    same = next((passage for passage in whole if passage.place == found.place), None)
    if same is not None:
        return same
    entry = next((entry for entry in request.scope if entry.record.title == found.course_title), None)
    if entry is None:
        return found
    chunks = searcher.course_vectors.get(entry.record.id, entry.version, entry.record.chunk_count)
    vector = searcher.embedder.embed_query(request.query)
    hits = chunks.hits(vector, [(found.lesson_number, found.chunk_index)])
    return found.model_copy(update={"score": round(1 - hits[0].distance, 4)}) if hits else found


def keep_parts(whole: list[Passage], firsts: list[Passage], k: int) -> list[Passage]:
    """The whole question's first passage, then each part's first, then the rest of the whole's, k in all."""
    head = whole[:1]
    seen = {found.place for found in head}
    lead = []
    for found in firsts:
        if found.place not in seen:
            seen.add(found.place)
            lead.append(found)
    rest = [found for found in whole[1:] if found.place not in seen]
    return (head + lead + rest)[:k]


def keep_more(kept: list[Passage], more: list[list[Passage]], k: int) -> list[Passage]:
    """The kept passages with the parts' `more` ones not kept already (each part in turn) in the last places,
    at most a third of k: each passage the whole question ranks within the first two thirds keeps its
    place."""
    places = {found.place for found in kept}
    tail: dict[tuple[str, int, int], Passage] = {}
    for tier in zip_longest(*more):
        for found in tier:
            if found is not None and found.place not in places:
                tail.setdefault(found.place, found)
    extra = list(tail.values())[: k // 3]
    return kept[: k - len(extra)] + extra


def search_with_parts(searcher: Searcher, request: SearchRequest) -> list[Passage]:
    """The k best passages for the query, keeping each compared part's first passage among them; a query
    comparing nothing that names a lesson by a word of its title ("the Pasteur lecture") is searched within
    that lesson; a list question ("which bridges have ...") offers other lessons' passages (`listed`)."""
    kept = _with_parts(searcher, request)
    if request.k < MIN_K:
        return kept
    listed = listed_passages(searcher, request, kept)
    if not listed:
        return kept
    return [scored_for(searcher, request, kept, one) for one in keep_more(kept, [listed], request.k)]


def _with_parts(searcher: Searcher, request: SearchRequest) -> list[Passage]:
    """The k best passages for the query, with each compared part's (`search_with_parts`)."""
    query, scope, lesson, k = request.query, request.scope, request.lesson, request.k
    halves = split_comparison(query)
    records = [entry.record for entry in scope]
    titled = lesson_by_title_word(query, records) if lesson is None and halves is None else None
    if titled is not None:
        # Its naming words stay in the query: they say what the whole question is about too (dropped, one
        # lecture-set passage ranked 7th in its lesson instead of 5th).
        own = _of(scope, titled.course)
        return searcher.search(replace(request, scope=own, course=titled.course.id, lesson=titled.lesson))
    whole = searcher.search(request)
    if halves is None or k < MIN_K:
        return whole
    firsts: list[Passage] = []
    lessons: list[tuple[str, list[Passage]]] = []
    library, course = request.library, request.course
    named = mentioned_course(query, library.records) if course is None else None
    for half, other in (halves, halves[::-1]):
        if not content_words(half):  # "..., and where is it?": a part with no words of its own finds noise
            continue
        where = part_scope(searcher, half, other, library, scope, course, lesson, named and named[0])
        if not where.entries:
            continue
        # A part alone naming a lesson also offers the lesson's next best passages (`keep_more`).
        within = where.lesson is not None and lesson is None
        found = searcher.search(
            SearchRequest(where.query, library, where.entries, where.course, where.lesson, k if within else 1)
        )
        firsts += [scored_for(searcher, request, whole, first) for first in found[:1]]
        if within:
            lessons.append((where.query, found[1:]))
    kept = keep_parts(whole, firsts, k)
    places = {found.place for found in kept}
    # In a lesson of speech the answer is often one sentence of a passage: its next best passages are
    # ordered by their best window of sentences, and its best few by that order are offered. Those kept in
    # the first two thirds stay anyway, so they are not embedded (each window is a model call).
    stay = {found.place for found in kept[: k - k // 3]}
    more = []
    for part, found in lessons:
        offered = [one for one in found if one.place not in stay]
        more.append(by_best_window(searcher.window_vectors, part, offered)[: k // 3])
    tail = keep_more(kept, more, k)
    return [one if one.place in places else scored_for(searcher, request, whole, one) for one in tail]
