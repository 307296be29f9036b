"""A fact asked about what a follow-up points back to ("who thought of it?", "when was it built?"): the
sentence holding a person, a time or a number that is said just after the lecturer names that topic.

The sentence that answers such a question shares nothing with it ("It was dreamt up by Marlowe." after
"bell conditioning is ..."): what ties it to the topic is where it is said, not its words.
"""

from __future__ import annotations

import numpy as np

from app.assistant.extractive.answer_types import holds
from app.assistant.extractive.definitions import defines
from app.assistant.extractive.referents import said_before
from app.assistant.extractive.scoring import Quote, SentenceScorer
from app.assistant.extractive.sentences import is_filler
from app.language.tokens import content_words

# How many sentences after the topic's naming sentence its fact may be said: what comes before a topic is
# named belongs to the one before it.
NEAR = 2
# How close (cosine) the naming sentence must be to the topic: saying its word in passing is not naming it.
MIN_NAMING = 0.5


def fact_near_topic(
    scorer: SentenceScorer, kind: str, question: str, topic: str, quotes: list[Quote]
) -> Quote | None:
    """The sentence holding a fact of `kind` closest to a sentence naming `topic` (what the `question`'s
    pronoun stands for); None when no sentence names it closely enough or none near it holds such a fact.

    The naming sentence may close the chunk before the fact's (the lesson's text is read, `said_before`)."""
    words = set(content_words(topic))
    if not words:
        return None
    by_place = {quote.passage.place: quote.passage for quote in quotes}
    naming: dict[int, list[str]] = {}
    for quote in quotes:
        if quote.asks or is_filler(quote.sentence):
            continue
        around = [*said_before(quote.passage, quote.position, by_place)[-NEAR:], quote.sentence]
        named = [sentence for sentence in around if words & set(content_words(sentence))]
        if named:
            naming[id(quote)] = named
    texts = list(dict.fromkeys(sentence for named in naming.values() for sentence in named))
    if not texts:
        return None
    query = scorer.embedder.embed_query(topic)
    closeness = {
        text: float(np.dot(query, vector))
        for text, vector in zip(texts, scorer.vectors.get(texts), strict=True)
    }
    known = set(content_words(f"{question} {topic}"))  # the question's words name what is asked about
    term = list(dict.fromkeys(content_words(topic)))
    best: tuple[tuple[bool, float], Quote] | None = None
    for quote in quotes:
        close = [sentence for sentence in naming.get(id(quote), []) if closeness[sentence] >= MIN_NAMING]
        if not close:
            continue
        titles = f"{quote.passage.course_title} {quote.passage.lesson_title}"
        if not holds(kind, quote.sentence, known | set(content_words(titles))):
            continue
        # Who made something, and when, is said where the lecturer introduces it ("… is known as X"), not
        # where it comes up again ("It's X, again.").
        rank = (any(defines(sentence, term) for sentence in close), max(closeness[s] for s in close))
        if best is None or rank > best[0]:
            best = (rank, quote)
    return best[1] if best else None
