"""Select the sentences to quote, the pipeline's third step: every sentence of the passages found, scored
against the topic, then a lead of consecutive sentences and a few more from the other relevant passages."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from app.assistant.extractive.intent import QUESTION_WORDS
from app.courses.chunking import split_sentences
from app.search.embedding.protocol import Embedder
from app.search.models import Passage
from app.search.names import content_words, stem, tokens

MIN_WORDS = 4
# Sentences whose vectors are kept between questions: ~1.5 KB each, so about 8 MB.
SENTENCE_CACHE_SIZE = 5000
# The lead: a few consecutive sentences of the best passage, so the answer reads as an explanation rather
# than a keyword hit. Then up to MAX_MORE further sentences from the other relevant passages.
LEAD_SENTENCES = 3
# A lead that ends on a short sentence usually introduces what comes next; follow it up to this many.
SHORT_SENTENCE_WORDS = 6
MAX_FOLLOW_ON = 2
MAX_MORE = 3
# A sentence is ranked by how close it is to the question and how close its passage is: a short sentence
# that repeats the question's keyword ("Three parameters control HNSW.") must not beat the passage that
# explains it. Cosine similarities (all-MiniLM-L6-v2).
# The question's own words count too: the model knows little of terms such as "HNSW" or "CSRF".
SENTENCE_WEIGHT = 0.4
PASSAGE_WEIGHT = 0.4
KEYWORD_WEIGHT = 0.2
# Below MIN_RELEVANCE the best sentence is not about the question; further sentences must be on topic
# (MIN_SCORE) and close to the lead (MAX_GAP), from a passage close to the best one or the lead's lesson.
MIN_RELEVANCE = 0.3
MIN_SCORE = 0.25
MAX_GAP = 0.12
# How far below the best run a run opening on the asked term's definition may score and still lead.
DEFINITION_GAP = 0.1
MIN_SHARED = 0.5
# Stemmed, as the sentence's words are compared: "stands for", "means", "refers to", "describes".
DEFINING_VERBS = frozenset({"is", "are", "stand", "mean", "refer", "describe"})
# The term comes early (a definition starts with it), its verb right after (", or RAG," may come between).
TERM_WITHIN = 12
VERB_WITHIN = 5


@dataclass(frozen=True)
class Quote:
    """One candidate sentence: where it is, how close it is to the question, and its rank score."""

    passage: Passage
    position: int
    sentence: str
    similarity: float
    score: float
    shared: float = 0.0

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


class SentenceVectors:
    """Sentence vectors, embedded once and kept (most recent first out): the same passages come back.

    Kept as float32 arrays: a full cache is 8 MB, where lists of Python floats would take 60 MB.
    """

    def __init__(self, embedder: Embedder, size: int = SENTENCE_CACHE_SIZE):
        self.embedder = embedder
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sentences: list[str]) -> list[np.ndarray]:
        """The vector of each sentence, embedding only those not seen before, in one batch."""
        with self._lock:
            known = {sentence: self._vectors[sentence] for sentence in sentences if sentence in self._vectors}
            for sentence in known:
                self._vectors.move_to_end(sentence)
        missing = [sentence for sentence in dict.fromkeys(sentences) if sentence not in known]
        if missing:
            vectors = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            known.update(zip(missing, vectors, strict=True))
            with self._lock:
                for sentence in missing:
                    self._vectors[sentence] = known[sentence]
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return [known[sentence] for sentence in sentences]


class SentenceScorer:
    """Scores the sentences of passages against a topic; keeps their vectors between questions."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self.vectors = SentenceVectors(embedder)

    def quotes(self, topic: str, passages: list[Passage]) -> list[Quote]:
        """Every sentence of the passages once (overlapping chunks repeat some), scored against the topic."""
        candidates = _unique_sentences(passages)
        if not candidates:
            return []
        query = self.embedder.embed_query(topic)
        vectors = self.vectors.get([sentence for _, _, sentence in candidates])
        keywords = set(content_words(topic, QUESTION_WORDS))
        quotes = []
        for (passage, position, sentence), vector in zip(candidates, vectors, strict=True):
            similarity = float(np.dot(query, vector))
            shared = _keyword_share(keywords, passage, sentence)
            score = SENTENCE_WEIGHT * similarity + PASSAGE_WEIGHT * passage.score + KEYWORD_WEIGHT * shared
            quotes.append(Quote(passage, position, sentence, similarity, score, shared))
        return quotes


def lead(
    quotes: list[Quote], overview: bool, term: list[str] | None = None, floor: float = MIN_RELEVANCE
) -> list[Quote]:
    """Consecutive sentences of one passage: the best-scoring run, or for an overview a lesson's opening.

    Runs are scored as a whole, so a short sentence that merely repeats the question's keyword ("Three
    parameters control HNSW.") cannot carry the lead alone. A "what is X" question (its `term`) leads with
    the run that opens on X's definition ("X is …") when one scores nearly as well as the best run. A run
    scoring below `floor` is no lead: nothing relevant was found.
    """
    if not quotes:
        return []
    if overview:
        first = min(quotes, key=lambda quote: quote.order)
        return [quote for quote in quotes if quote.passage is first.passage][:LEAD_SENTENCES]
    windows = _windows(quotes)
    best = max(windows, key=_mean, default=[])
    if not best or max(quote.score for quote in best) < floor:
        return []
    if term is not None:
        defining = [window for window in windows if defines(window[0].sentence, term)]
        definition = max(defining, key=_mean, default=[])
        if definition and _mean(definition) >= _mean(best) - DEFINITION_GAP:
            best = definition
    return _complete(best, quotes)


def more(quotes: list[Quote], lead: list[Quote], term: list[str] | None = None) -> list[Quote]:
    """The best other sentences: on topic, close to the lead's score, from passages near the best one.

    After a lead that defines the asked term, nothing of its lesson that comes before the definition.
    """
    top = _mean(lead)
    best_passage = max(quote.passage.score for quote in quotes)
    rest = [
        quote
        for quote in quotes
        if quote not in lead
        and len(tokens(quote.sentence)) >= MIN_WORDS
        and quote.similarity >= MIN_SCORE
        and quote.score >= top - MAX_GAP
        and (
            quote.lesson == lead[0].lesson
            # Another lesson must also share most telling keywords: closeness alone let in sentences
            # that merely sound alike (a distance formula under a question about rank fusion).
            or (quote.passage.score >= best_passage - MAX_GAP and quote.shared >= MIN_SHARED)
        )
    ]
    chosen = sorted(rest, key=_score, reverse=True)[:MAX_MORE]
    if term is not None and defines(lead[0].sentence, term):
        # Quotes render in reading order: nothing of the lesson may come before its definition.
        chosen = [quote for quote in chosen if quote.lesson != lead[0].lesson or quote.order > lead[0].order]
    return chosen


def defines(sentence: str, term: list[str]) -> bool:
    """True when the sentence opens with the term and says what it is ("A fixture is a function …")."""
    words = [stem(word) for word in tokens(sentence)]
    last = next(
        (position for position, word in enumerate(words[:TERM_WITHIN]) if word == term[-1]),
        None,
    )
    if last is None or not set(term) <= set(words[: last + 1]):
        return False
    if DEFINING_VERBS & set(words[:last]):  # "The idea is that a fixture …": the term is not the subject
        return False
    return bool(DEFINING_VERBS & set(words[last + 1 : last + 1 + VERB_WITHIN]))


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


def _keyword_share(keywords: set[str], passage: Passage, sentence: str) -> float:
    """Return the share of the topic's telling keywords that the sentence contains."""
    # A word of the passage's own course title ("flask" in the Flask course) tells nothing apart.
    telling = keywords - set(content_words(passage.course_title))
    return len(telling & set(content_words(sentence))) / len(telling) if telling else 0.0


def _complete(lead: list[Quote], quotes: list[Quote]) -> list[Quote]:
    """Extend a lead that ends on a short sentence with what follows it ("Three parameters control X.")."""
    own = sorted((quote for quote in quotes if quote.passage is lead[-1].passage), key=lambda q: q.position)
    following = {quote.position: quote for quote in own}
    lead = list(lead)
    for _ in range(MAX_FOLLOW_ON):
        after = following.get(lead[-1].position + 1)
        if after is None or len(tokens(lead[-1].sentence)) > SHORT_SENTENCE_WORDS:
            break
        lead.append(after)
    return lead


def _windows(quotes: list[Quote]) -> list[list[Quote]]:
    """List each run of LEAD_SENTENCES consecutive sentences of a passage that has a sentence of substance."""
    windows = []
    for passage in {id(quote.passage): quote.passage for quote in quotes}.values():
        own = [quote for quote in quotes if quote.passage is passage]
        for start in range(max(1, len(own) - LEAD_SENTENCES + 1)):
            window = own[start : start + LEAD_SENTENCES]
            if any(len(tokens(quote.sentence)) >= MIN_WORDS for quote in window):
                windows.append(window)
    return windows


def _score(quote: Quote) -> float:
    """A quote's rank score (for sorting)."""
    return quote.score


def _mean(quotes: list[Quote]) -> float:
    """The mean rank score of a run of sentences."""
    return sum(quote.score for quote in quotes) / len(quotes)
