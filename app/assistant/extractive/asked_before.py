"""A reply that opens a passage answers the question the chunk before it closes on.

Chunks end wherever their length runs out, so a lecturer's question and a student's reply to it often fall in
two chunks: "Why does the kettle whistle? Yes, you at the back. Um," closes one, and "the steam escapes
through a narrow hole." opens the next. The reply shares no word with what was asked; read as the reply to
that question (`replies`), it scores as the question does, as it would inside one passage.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from app.assistant.extractive.keywords import keyword_share
from app.assistant.extractive.referents import closer, overlap, stand_ins
from app.assistant.extractive.replies import MAX_BETWEEN, replied
from app.assistant.extractive.sentences import is_question
from app.courses.chunking import split_sentences
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words
from app.search.embedding.kept import KeptVectors
from app.search.models import Passage

Place = tuple[str, int, int]
# A candidate sentence: its passage, its position there, and the sentence.
Candidate = tuple[Passage, int, str]
# The passages at places of the live library, scored against a topic (`CourseIndex.chunks_at`).
Fetch = Callable[[str, list[Place]], list[Passage]]


class Line(NamedTuple):
    """A sentence of the lesson read before a reply: where it is in that run, and whether it asks."""

    sentence: str
    asks: bool
    at: int


def chunks_before(
    passages: list[Passage], fetch: Callable[[list[Place]], list[Passage]]
) -> dict[Place, Passage]:
    """The chunk before each passage in its lesson, by its place: a passage found, or else read (`fetch`)."""
    found = {passage.place: passage for passage in passages}
    wanted = [(title, lesson, chunk - 1) for title, lesson, chunk in found if chunk > 0]
    missing = [place for place in wanted if place not in found]
    fetched = {passage.place: passage for passage in fetch(missing)} if missing else {}
    return {
        place: found.get(place) or fetched[place] for place in wanted if place in found or place in fetched
    }


def opening_replies(candidates: list[Candidate], before: dict[Place, Passage]) -> dict[int, list[Candidate]]:
    """The candidates (by index) that reply to questions only the chunk before their passage says: each with
    those questions, as that chunk's candidates. A question the passage says too is its own (`replies`).

    Only a passage's first sentences can: at most MAX_BETWEEN that say nothing stand before its reply."""
    replies: dict[int, list[Candidate]] = {}
    lessons: dict[int, tuple[int, list[str]]] = {}
    for i, (passage, position, _) in enumerate(candidates):
        title, lesson, chunk = passage.place
        earlier = before.get((title, lesson, chunk - 1))
        if earlier is None or position > MAX_BETWEEN:
            continue
        if id(passage) not in lessons:
            lessons[id(passage)] = _read_on(earlier, passage)
        only_earlier, said = lessons[id(passage)]
        asked = replied(partial(_line, said), only_earlier + position)
        if asked and all(line.at < only_earlier for line in asked):
            replies[i] = [(earlier, line.at, line.sentence) for line in asked]
    return replies


def _read_on(earlier: Passage, passage: Passage) -> tuple[int, list[str]]:
    """The lesson's sentences from the chunk before's first to the passage's last (what the chunks' overlap
    repeats once), and how many of them only the chunk before says."""
    own = [said.strip() for said in split_sentences(passage.text)]
    closing = [said.strip() for said in split_sentences(earlier.text)]
    only_earlier = len(closing) - overlap(closing, own)
    return only_earlier, closing[:only_earlier] + own


def _line(said: list[str], at: int) -> Line | None:
    """The sentence at `at` of the lesson read, and whether it asks; None past either end."""
    return Line(said[at], is_question(said[at]), at) if 0 <= at < len(said) else None


def inherited(
    query: np.ndarray,
    topic: str,
    replies: dict[int, list[Candidate]],
    vectors: KeptVectors,
    scored: Callable[[float, Candidate, float], float],
) -> dict[int, tuple[float, float]]:
    """Each reply's similarity and score as the best of the questions it answers: a question naming its
    subject by a pronoun read as meant (`referents`); `scored` ranks a question by its similarity and the
    share of the topic's words it says."""
    keys = {
        (question[0].place, question[1]): question for questions in replies.values() for question in questions
    }
    asked = list(keys.values())
    if not asked:
        return {}
    keywords = set(content_words(topic, NO_TOPIC_WORDS))
    cosines = [float(np.dot(query, vector)) for vector in vectors.get([question[2] for question in asked])]
    meant = stand_ins(asked, topic)
    resolved = closer(query, meant, vectors)
    read = {}
    for i, (question, cosine) in enumerate(zip(asked, cosines, strict=True)):
        similarity = max(cosine, resolved.get(i, cosine))
        shared = keyword_share(keywords, topic, question[0], meant[i][0] if i in resolved else question[2])
        read[question[0].place, question[1]] = (similarity, scored(similarity, question, shared))
    return {
        i: max((read[question[0].place, question[1]] for question in questions), key=lambda pair: pair[1])
        for i, questions in replies.items()
    }
