"""Score every sentence of the passages found against the topic: the candidates the quotes are chosen from.

A sentence ranks by its closeness to the question, its passage's, and the share of the question's words it
says; only the likely sentences are read for meaning (`budget`), and a sentence may be read as meant
(`referents`) or score as the question it replies to (`replies`, `asked_before`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from app.assistant.extractive.answer_types import asked_type, bonus
from app.assistant.extractive.asked_before import Candidate, Fetch, chunks_before, inherited, opening_replies
from app.assistant.extractive.budget import MAX_EMBEDDED, worth_reading
from app.assistant.extractive.definitions import definitions, subject
from app.assistant.extractive.fitted import fitted
from app.assistant.extractive.keywords import keyword_share, said_share
from app.assistant.extractive.referents import closer, stand_ins
from app.assistant.extractive.replies import INHERIT_GAP
from app.assistant.extractive.sentences import is_filler, is_question
from app.courses.chunking import split_sentences
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words
from app.search.embedding.kept import KeptVectors
from app.search.embedding.protocol import Embedder
from app.search.models import Passage

# Sentences whose vectors are kept between questions (about 8 MB).
SENTENCE_CACHE_SIZE = 5000

# A lead quotes this many consecutive sentences (`quotes.lead`); a definition is read with as many after it.
LEAD_SENTENCES = 3
# A sentence is ranked by how close it is to the question and how close its passage is: a short sentence
# that repeats the question's keyword ("Three parameters control HNSW.") must not beat the passage that
# explains it. Cosine similarities (all-MiniLM-L6-v2).
# The question's own words count too: the model knows little of terms such as "HNSW" or "CSRF".
# Fitted by `python -m bench.fit`, summing to 1: the units of the cuts on a score (quotes.py).
SENTENCE_WEIGHT = fitted("SENTENCE_WEIGHT")
PASSAGE_WEIGHT = fitted("PASSAGE_WEIGHT")
KEYWORD_WEIGHT = fitted("KEYWORD_WEIGHT")


@dataclass(frozen=True)
class Quote:
    """One candidate sentence: where it is, how close it is to the question, and its rank score."""

    passage: Passage
    position: int
    sentence: str
    similarity: float
    score: float
    shared: float = 0.0
    embedded: bool = True  # False: not read for meaning, only shown as a neighbour's context
    asks: bool = False  # the sentence is a question
    filler: bool = False  # the sentence says nothing on its own
    defining: bool = False  # the sentence defines what the question is about ("HNSW is …")

    @property
    def order(self) -> tuple[int, int, int]:
        """Reading order within a course: lesson, chunk, sentence."""
        return (self.passage.lesson_number, self.passage.chunk_index, self.position)

    @property
    def lesson(self) -> tuple[str, int]:
        """The course and lesson the quote comes from."""
        return self.passage.course_title, self.passage.lesson_number

    @property
    def place(self) -> tuple[str, int, int, int]:
        """Where the sentence is: course, lesson, chunk and position (the same across searches)."""
        return (self.passage.course_title, *self.order)


class SentenceScorer:
    """Scores the sentences of passages against a topic; keeps their vectors between questions."""

    def __init__(self, embedder: Embedder, fetch: Fetch | None = None):
        self.embedder = embedder
        self.vectors = KeptVectors(embedder, SENTENCE_CACHE_SIZE)
        self.fetch = fetch  # the passages at places, scored against a topic (`CourseIndex.chunks_at`)

    def quotes(self, topic: str, passages: list[Passage], reading: int = MAX_EMBEDDED) -> list[Quote]:
        """Every sentence of the passages once (overlapping chunks repeat some), scored against the topic.

        Only the likely ones are embedded, at most `reading` (`budget.worth_reading`); the others keep their
        place as context.
        """
        candidates = _unique_sentences(passages)
        if not candidates:
            return []
        keywords = set(content_words(topic, NO_TOPIC_WORDS))
        shares = [keyword_share(keywords, topic, passage, sentence) for passage, _, sentence in candidates]
        about = subject(topic)
        defining = definitions([sentence for _, _, sentence in candidates], about)
        # Which to read counts every word of the topic, its course's too: "HTMX is …" defines HTMX even in
        # the HTMX course.
        said = [said_share(keywords, topic, sentence) for _, _, sentence in candidates]
        read = worth_reading(candidates, said, defining, LEAD_SENTENCES, reading)
        query = self.embedder.embed_query(topic)
        # A reply opening a passage scores as the question the chunk before closes on (`asked_before`).
        earlier = chunks_before(passages, partial(self.fetch, topic)) if self.fetch else {}
        replying = inherited(query, topic, opening_replies(candidates, earlier), self.vectors, _score)
        read = sorted({*read, *replying})
        wanted = asked_type(topic)  # a person, time or number: a sentence holding one is a likelier answer
        vectors = dict(zip(read, self.vectors.get([candidates[i][2] for i in read]), strict=True))
        # A sentence naming the subject by a pronoun ("He spent his life in Rome.") is read as meant too, when
        # so it says more of the question than the sentence that names the subject (`referents`).
        meant = {i: pair for i, pair in stand_ins(candidates, topic).items() if i in vectors}
        resolved = closer(query, meant, self.vectors)
        quotes: list[Quote] = []
        for i, ((passage, position, sentence), shared) in enumerate(zip(candidates, shares, strict=True)):
            vector = vectors.get(i)
            similarity = float(np.dot(query, vector)) if vector is not None else 0.0
            if i in resolved:
                similarity = max(similarity, resolved[i])
                shared = max(shared, keyword_share(keywords, topic, passage, meant[i][0]))
            score = _score(similarity, (passage, position, sentence), shared)
            score += bonus(wanted, topic, passage, sentence) if vector is not None else 0.0
            if i in replying:
                similarity, score = max(similarity, replying[i][0]), max(score, replying[i][1] - INHERIT_GAP)
            asks = is_question(sentence)
            # A short reply to a question just asked is its answer ("It's an externality."), not filler.
            before = quotes[-1] if quotes else None
            answering = before is not None and before.passage is passage and before.asks
            answering = answering and before is not None and before.position == position - 1
            filler = not (asks or shared or answering or i in replying) and is_filler(sentence)
            kind = {"embedded": vector is not None, "asks": asks, "filler": filler, "defining": defining[i]}
            quotes.append(Quote(passage, position, sentence, similarity, score, shared, **kind))
        return quotes


def _score(similarity: float, candidate: Candidate, shared: float) -> float:
    """A sentence's rank score: its closeness, its passage's, the share of the question's words it says."""
    return SENTENCE_WEIGHT * similarity + PASSAGE_WEIGHT * candidate[0].score + KEYWORD_WEIGHT * shared


def _unique_sentences(passages: list[Passage]) -> list[tuple[Passage, int, str]]:
    """List each sentence with its passage and position, skipping repeats of a sentence already seen."""
    candidates: list[tuple[Passage, int, str]] = []
    seen: set[str] = set()
    for passage in passages:
        for position, sentence in enumerate(split_sentences(passage.text)):
            key = " ".join(sentence.lower().split())
            if key not in seen:
                seen.add(key)
                candidates.append((passage, position, sentence.strip()))
    return candidates
