"""Select the sentences to quote, the pipeline's third step: from every sentence of the passages found,
scored against the topic (scoring.py), a lead of consecutive sentences and a few more from the other relevant
passages."""

from __future__ import annotations

from app.assistant.extractive.definitions import definitions, describes
from app.assistant.extractive.next_chunk import next_chunk
from app.assistant.extractive.replies import answers
from app.assistant.extractive.scoring import LEAD_SENTENCES, Quote
from app.assistant.extractive.sentences import announces, calls_on, continues, is_filler, repeats
from app.language.tokens import content_words, tokens
from app.search.models import Passage

# The lead: LEAD_SENTENCES consecutive sentences of the best passage (scoring.py), so the answer reads as
# an explanation rather than a keyword hit. Then up to MAX_MORE further sentences from the other relevant
# passages.
# A lead that ends on a short sentence usually introduces what comes next; follow it up to this many.
SHORT_SENTENCE_WORDS = 6
MAX_FOLLOW_ON = 2
# A lead's sentences that announce or say nothing give their place to what follows, up to this many.
MAX_SAYING = 3
MAX_MORE = 3
# Each half of a comparison: its lead and up to this many more sentences of its lesson.
MAX_MORE_HALF = 3
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


def second_lead(
    quotes: list[Quote], second: list[Quote], first: list[Quote], own: set[str]
) -> list[Quote] | None:
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
    "Yes, the woman at the front. Um." before a student's reply)."""
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
