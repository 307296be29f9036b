"""Select the sentences to quote, the pipeline's third step: every sentence of the passages found, scored
against the topic, then a lead of consecutive sentences and a few more from the other relevant passages."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from app.assistant.extractive.answer_types import asked_type, bonus
from app.assistant.extractive.asked_before import Candidate, Fetch, chunks_before, inherited, opening_replies
from app.assistant.extractive.budget import MAX_EMBEDDED, worth_reading
from app.assistant.extractive.definitions import definitions, describes, subject
from app.assistant.extractive.intent import QUESTION_WORDS
from app.assistant.extractive.keywords import keyword_share, said_share
from app.assistant.extractive.onward import next_chunk
from app.assistant.extractive.referents import closer, stand_ins
from app.assistant.extractive.replies import INHERIT_GAP, answers
from app.assistant.extractive.sentences import announces, calls_on, continues, is_filler, is_question, repeats
from app.courses.chunking import split_sentences
from app.search.embedding.kept import KeptVectors
from app.search.embedding.protocol import Embedder
from app.search.models import Passage
from app.search.names import content_words, tokens

# Sentences whose vectors are kept between questions (about 8 MB).
SENTENCE_CACHE_SIZE = 5000

# The lead: a few consecutive sentences of the best passage, so the answer reads as an explanation rather
# than a keyword hit. Then up to MAX_MORE further sentences from the other relevant passages.
LEAD_SENTENCES = 3
# A lead that ends on a short sentence usually introduces what comes next; follow it up to this many.
SHORT_SENTENCE_WORDS = 6
MAX_FOLLOW_ON = 2
# A lead's sentences that announce or say nothing give their place to what follows, up to this many.
MAX_SAYING = 3
MAX_MORE = 3
# Each half of a comparison: its lead and up to this many more sentences of its lesson.
MAX_MORE_HALF = 3
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
# How far below the best run a run opening on the asked term's definition may score and still lead, and the
# fewest sentences such a run is judged by.
MIN_RUN = 2
DEFINITION_GAP = 0.1
# A question about X that asks more than what X is ("How does X work?") is answered by the definition and
# the explanation after it: this many sentences.
EXPLANATION_SENTENCES = 5
MIN_SHARED = 0.5
# The lead is the best answering sentence with its neighbours. It is chosen by its own score and, a little,
# by its neighbours' (CONTEXT_WEIGHT), so one stray sentence does not beat a passage that explains.
CONTEXT_WEIGHT = 0.3


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
        keywords = set(content_words(topic, QUESTION_WORDS))
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


def lead(
    quotes: list[Quote], overview: bool, term: list[str] | None = None, floor: float = MIN_RELEVANCE
) -> list[Quote]:
    """The sentence that answers best, with its neighbours; for an overview a lesson's opening.

    A question the lecturer asks is never the answer, but the sentence after it often is; filler never is.
    The answer is ranked with its neighbours a little, so a short sentence that merely repeats the
    question's keyword ("Three parameters control HNSW.") cannot carry the lead alone. A "what is X"
    question (its `term`) leads with X's definition ("X is …") when that scores nearly as well, and so does
    any question about X alone ("How does X work?"): what explains X follows its definition, where a later
    run that repeats X ("Three parameters control X.") is about one part of it. A lead scoring below
    `floor` is no lead: nothing relevant was found.
    """
    if not quotes:
        return []
    if overview:
        first = min(quotes, key=lambda quote: quote.order)
        return [quote for quote in quotes if quote.passage is first.passage][:LEAD_SENTENCES]
    answering = answers(quotes)
    if not answering:
        return []
    ranked = [(_rank(quote, _window(quotes, quote), score), quote, score) for quote, score, _ in answering]
    _, best, answered = max(ranked, key=lambda item: item[0])
    window = _window(quotes, best)
    if max(answered, *(quote.score for quote in window)) < floor:  # a reply scores as its question
        return []
    if term is not None or any(quote.defining for quote, _, _ in answering):
        # Run against run, as a definition reads: the sentence and what follows it.
        marks = _definitions([quote for quote, _, _ in answering], term)
        runs = [
            _following(quotes, quote) for (quote, _, _), mark in zip(answering, marks, strict=True) if mark
        ]
        # A run of one sentence (its passage ends there) would be judged by that sentence alone.
        runs = [run for run in runs if len(run) >= min(MIN_RUN, len(_own(quotes, run[0].passage)))]
        definition = max(runs, key=_weighed, default=None)
        if definition is not None and _weighed(definition) >= _weighed(window) - DEFINITION_GAP:
            window = definition  # what comes before a definition is another topic's end
            if term is None:  # asked about X, not what X is: the explanation goes on after the definition
                window = _following(quotes, definition[0], EXPLANATION_SENTENCES)
    return _trimmed(_saying(_complete(_named_first(window, quotes), quotes), quotes))


def lead_at(quotes: list[Quote], anchor: Quote) -> list[Quote]:
    """A lead opening on a sentence chosen by other means, with its neighbours as any lead has them."""
    return _trimmed(_saying(_complete(_window(quotes, anchor), quotes), quotes))


def more(quotes: list[Quote], lead: list[Quote], term: list[str] | None = None) -> list[Quote]:
    """The best other sentences: on topic, close to the lead's score, from passages near the best one.

    After a lead that defines the asked term, nothing of its lesson that comes before the definition.
    """
    top = _mean(lead)
    best_passage = max(quote.passage.score for quote in quotes)
    rest = [
        (quote, score)
        for quote, score, similarity in answers(quotes)
        if quote not in lead
        and similarity >= MIN_SCORE
        and score >= top - MAX_GAP
        and (
            quote.lesson == lead[0].lesson
            # Another lesson must also share most telling keywords: closeness alone let in sentences
            # that merely sound alike (a distance formula under a question about rank fusion).
            or (quote.passage.score >= best_passage - MAX_GAP and quote.shared >= MIN_SHARED)
        )
    ]
    chosen = [quote for quote, _ in sorted(rest, key=lambda pair: pair[1], reverse=True)[:MAX_MORE]]
    if _defines(lead[0], term):
        # Quotes render in reading order: nothing of the lesson may come before its definition.
        chosen = [quote for quote in chosen if quote.lesson != lead[0].lesson or quote.order > lead[0].order]
    # A short sentence introduces what follows it ("Three parameters control X."): it comes with that.
    completed = {id(follow): follow for quote in chosen for follow in _complete([quote], quotes)}
    return [quote for quote in completed.values() if quote not in lead]


def more_of(quotes: list[Quote], lead: list[Quote], limit: int = MAX_MORE_HALF) -> list[Quote]:
    """The best other sentences of the lead's own lesson (one half of a comparison stays in its lesson).

    Fewer than `limit` close to the lead leave their places to the lesson's on-topic sentences that say every
    telling word of the half: a half has few words of its own, so one saying them all is on its subject even
    when the model scores it lower than the lead ("measured by recall at k" under "The best setting …").
    """
    chosen = [quote for quote in more(quotes, lead) if quote.lesson == lead[0].lesson][:limit]
    saying = [
        quote
        for quote, _, similarity in answers(quotes)
        if quote.lesson == lead[0].lesson
        and quote.shared >= 1.0
        and similarity >= MIN_SCORE
        and quote not in lead
        and quote not in chosen
    ]
    return chosen + sorted(saying, key=lambda quote: quote.score, reverse=True)[: limit - len(chosen)]


def apart(quotes: list[Quote], second: list[Quote], first: list[Quote], own: set[str]) -> list[Quote] | None:
    """The second half of a comparison's lead, apart from the first half's; None when there is none.

    When both halves lead with the same sentences (their shared words outweighed what tells them apart),
    the second is led again from its other passages, and it is a second answer only if that lead holds a
    word of its own: otherwise the halves found one thing and are answered once.
    """
    taken = {quote.sentence for quote in first}
    if second[0].sentence not in taken:  # it leads with a sentence of its own (context may be shared)
        return second
    used = {id(quote.passage) for quote in second}
    second = lead([quote for quote in quotes if id(quote.passage) not in used], False, floor=0.0)
    told = any(own & set(content_words(quote.sentence)) for quote in second)
    return second if second and told and not taken & {quote.sentence for quote in second} else None


def _defines(quote: Quote, term: list[str] | None) -> bool:
    """True when the quote defines the asked term, or without one what the question is about."""
    return describes(quote.sentence, term) if term is not None else quote.defining


def _definitions(candidates: list[Quote], term: list[str] | None) -> list[bool]:
    """Which quotes define the asked term (see `definitions`), or without one what the question is about."""
    if term is None:
        return [quote.defining for quote in candidates]
    return definitions([quote.sentence for quote in candidates], term)


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


def _complete(lead: list[Quote], quotes: list[Quote]) -> list[Quote]:
    """Extend a lead with what follows it when its last sentence only introduces it ("Three parameters
    control X.") or the next one picks up its words by a pronoun ("The two ovens are linked. They're
    linked by a shared flue.")."""
    own = sorted((quote for quote in quotes if quote.passage is lead[-1].passage), key=lambda q: q.position)
    following = {quote.position: quote for quote in own}
    lead = list(lead)
    for _ in range(MAX_FOLLOW_ON):
        after, last = following.get(lead[-1].position + 1), lead[-1].sentence
        short = len(tokens(last)) <= SHORT_SENTENCE_WORDS
        if after is None or not (short or continues(last, after.sentence)):
            break
        lead.append(after)
    return lead


def _saying(lead: list[Quote], quotes: list[Quote]) -> list[Quote]:
    """Extend a lead until LEAD_SENTENCES of it say something: a sentence that announces ("I'll give an
    example."), says nothing ("So here's the idea.") or says the one before it again leaves its place to
    what follows it, at most MAX_SAYING more."""
    following = {quote.position: quote for quote in _own(quotes, lead[-1].passage)}
    lead = list(lead)
    for _ in range(MAX_SAYING):
        # A sentence that repeats the one before it says nothing new either.
        saying = [
            quote
            for at, quote in enumerate(lead)
            if not (quote.asks or is_filler(quote.sentence) or announces(quote.sentence))
            and not (at and repeats(quote.sentence, lead[at - 1].sentence))
        ]
        after = following.get(lead[-1].position + 1)
        if len(saying) >= LEAD_SENTENCES or after is None:
            break
        lead.append(after)
    return lead


def _rank(anchor: Quote, window: list[Quote], score: float) -> float:
    """How good a lead the anchor and its window make: mostly the anchor's score, a little its context's."""
    read = [quote.score for quote in window if quote.embedded]
    return (1 - CONTEXT_WEIGHT) * score + CONTEXT_WEIGHT * (sum(read) / len(read) if read else score)


def _own(quotes: list[Quote], passage: Passage) -> list[Quote]:
    """A passage's sentences in reading order."""
    return sorted((quote for quote in quotes if quote.passage is passage), key=lambda quote: quote.position)


def _window(quotes: list[Quote], anchor: Quote) -> list[Quote]:
    """The anchor and what follows it, LEAD_SENTENCES of its passage (what comes before it only at the
    passage's end, and never a question, the lecturer's question is not the answer, nor what says nothing:
    "Yeah, the guy in blue. Um." before a student's reply)."""
    own = _own(quotes, anchor.passage)
    at = own.index(anchor)
    ahead = own[at:] + next_chunk(quotes, anchor.passage) if len(own) - at < LEAD_SENTENCES else []
    if len(ahead) >= LEAD_SENTENCES:  # the lesson goes on in the next chunk, found too (onward.py)
        return _trimmed(ahead[:LEAD_SENTENCES])
    start = at
    while start > 0 and len(own) - start < LEAD_SENTENCES and not _silent(own[start - 1]):
        start -= 1
    return _trimmed(own[start : start + LEAD_SENTENCES])


def _named_first(lead: list[Quote], quotes: list[Quote]) -> list[Quote]:
    """A lead opening on a pronoun for what the sentence before it names ("It is simple but slow." after
    "Post-filtering drops what fails the filter.") opens on that sentence: alone it says of nothing."""
    own = _own(quotes, lead[0].passage)
    at = own.index(lead[0])
    before = own[at - 1] if at else None
    if before is None or _silent(before) or not continues(before.sentence, lead[0].sentence):
        return lead
    return [before, *lead]


def _silent(quote: Quote) -> bool:
    """True for a question, filler or the call on a student: nothing that answers."""
    return quote.asks or is_filler(quote.sentence) or calls_on(quote.sentence)


def _trimmed(run: list[Quote]) -> list[Quote]:
    """The run without the filler or questions it ends on ("Okay, so, um, let's see.")."""
    end = len(run)
    while end > 1 and (run[end - 1].filler or run[end - 1].asks):
        end -= 1
    return run[:end]


def _following(quotes: list[Quote], anchor: Quote, length: int = LEAD_SENTENCES) -> list[Quote]:
    """The anchor and the sentences after it: `length` of its passage."""
    own = _own(quotes, anchor.passage)
    at = own.index(anchor)
    return own[at : at + length]


def _weighed(run: list[Quote]) -> float:
    """A run's rank score per word: a short sentence that repeats the question's keyword scores high for
    saying little ("Three parameters control HNSW."), so it counts by its length."""
    lengths = [max(1, len(tokens(quote.sentence))) for quote in run]
    return sum(quote.score * length for quote, length in zip(run, lengths, strict=True)) / sum(lengths)


def _mean(quotes: list[Quote]) -> float:
    """The mean rank score of a run of sentences."""
    return sum(quote.score for quote in quotes) / len(quotes)
