"""Gaps: declined, low-confidence and down-voted questions grouped by meaning, with their closest lesson."""

from __future__ import annotations

import logging
import threading
import weakref
from collections import Counter, OrderedDict
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from app.errors import AppError
from app.insights.clustering import THRESHOLD, cluster, course_words, medoid, topic
from app.links import safe_url
from app.search.embedding import Embedder
from app.search.index import CourseIndex
from app.store.records import GapCandidate, GapReason

log = logging.getLogger(__name__)

# The newest questions grouped at most: clustering costs the square of their number.
MAX_QUESTIONS = 500
EXAMPLES = 5
COMMENTS = 3
# Vectors of the gap questions seen lately, so a page view embeds only the questions new since the last one
# (embedding 500 questions costs seconds of CPU; the chat's query cache is left to the chat).
CACHED_VECTORS = 2000
_caches: weakref.WeakKeyDictionary[Embedder, OrderedDict[str, np.ndarray]] = weakref.WeakKeyDictionary()
_vectors_lock = threading.Lock()


@dataclass(frozen=True)
class ClosestLesson:
    """The lesson nearest a group's questions; `searched` when the index found it, not the answer log."""

    course: str
    lesson: int
    title: str | None
    link: str | None
    searched: bool


@dataclass(frozen=True)
class GapGroup:
    """Questions that mean the same thing and that the course materials may fail."""

    question: str  # the question nearest the group's centre
    count: int
    examples: list[str]
    reasons: dict[GapReason, int]
    comments: list[str]
    closest: ClosestLesson | None
    latest: datetime


def _key(question: str) -> str:
    """A question with case and spacing ignored, so repeats are embedded once."""
    return " ".join(question.lower().split())


def group_gaps(
    candidates: list[GapCandidate], index: CourseIndex, threshold: float = THRESHOLD
) -> list[GapGroup]:
    """Group the gap questions by meaning, most asked first, each with the lesson that came closest."""
    candidates = candidates[:MAX_QUESTIONS]
    by_key: dict[str, list[GapCandidate]] = {}
    for candidate in candidates:
        by_key.setdefault(_key(candidate.question), []).append(candidate)
    if not by_key:
        return []
    keys = list(by_key)
    # The newest wording of each question stands for its repeats.
    texts = [by_key[key][0].question for key in keys]
    lessons = _lessons(index)
    names = course_words({course for course, _ in lessons})
    vectors = _embed(index.embedder, [topic(text, names) for text in texts])
    groups = []
    for members in cluster(vectors, threshold):
        entries = [entry for number in members for entry in by_key[keys[number]]]
        groups.append(
            _group(texts[medoid(vectors, members)], entries, [texts[n] for n in members], index, lessons)
        )
    return sorted(groups, key=lambda group: (-group.count, -group.latest.timestamp()))


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The texts' vectors, embedding only those not seen lately."""
    with _vectors_lock:
        # One cache per model: two embedders (a test's, the app's) never share vectors.
        _vectors = _caches.setdefault(embedder, OrderedDict())
        missing = [text for text in dict.fromkeys(texts) if text not in _vectors]
    fresh = embedder.embed_documents(missing) if missing else []
    with _vectors_lock:
        for text, vector in zip(missing, fresh, strict=True):
            _vectors[text] = np.asarray(vector, dtype=np.float64)
        for text in texts:
            _vectors.move_to_end(text)
        found = np.stack([_vectors[text] for text in texts])
        while len(_vectors) > max(CACHED_VECTORS, len(texts)):
            _vectors.popitem(last=False)
    return found


def _group(
    question: str,
    entries: list[GapCandidate],
    texts: list[str],
    index: CourseIndex,
    lessons: dict[tuple[str, int], tuple[str, str | None]],
) -> GapGroup:
    """One group: its counts, examples, reasons, comments and closest lesson."""
    reasons: Counter[GapReason] = Counter(reason for entry in entries for reason in entry.reasons)
    comments = [entry.comment for entry in entries if entry.comment][:COMMENTS]
    logged = Counter(entry.closest for entry in entries if entry.closest is not None)
    closest = None
    if logged:
        # The lesson most of the group's answers came closest to (ties: the first in name order).
        course, lesson = min(logged, key=lambda place: (-logged[place], place))
        closest = _closest(course, lesson, lessons, searched=False)
    else:
        closest = _search_closest(question, index, lessons)
    examples = [question] + [text for text in texts if text != question]
    return GapGroup(
        question=question,
        count=len(entries),
        examples=examples[:EXAMPLES],
        reasons={
            reason: reasons[reason]
            for reason in ("declined", "low_confidence", "down_voted")
            if reasons[reason]
        },
        comments=comments,
        closest=closest,
        latest=max(entry.created_at for entry in entries),
    )


def _lessons(index: CourseIndex) -> dict[tuple[str, int], tuple[str, str | None]]:
    """Every indexed lesson's title and link, by (course title, lesson number)."""
    try:
        records = index.courses()
    except AppError as exc:  # the index is down: the groups still show, without lesson titles
        log.warning("insights: courses unavailable: %s", exc)
        return {}
    return {
        (record.title, lesson.number): (lesson.title, safe_url(lesson.link))
        for record in records
        for lesson in record.lessons
    }


def _closest(
    course: str, lesson: int, lessons: dict[tuple[str, int], tuple[str, str | None]], searched: bool
) -> ClosestLesson:
    """A lesson with its title and link, when the index still has it."""
    title, link = lessons.get((course, lesson), (None, None))
    return ClosestLesson(course, lesson, title, link, searched)


def _search_closest(
    question: str, index: CourseIndex, lessons: dict[tuple[str, int], tuple[str, str | None]]
) -> ClosestLesson | None:
    """The lesson of the best passage for the group's central question, or None."""
    try:
        found = index.search(question, k=1)
    except AppError as exc:
        log.warning("insights: closest lesson search failed: %s", exc)
        return None
    if not found:
        return None
    return _closest(found[0].course_title, found[0].lesson_number, lessons, searched=True)
