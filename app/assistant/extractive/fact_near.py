"""A fact asked about what a follow-up points back to ("who came up with it?", "when was it built?"): the
sentence holding a person, a time or a number that is said just after the lecturer names that topic.

The sentence that answers such a question shares nothing with it ("It was thought up by Pavlov." after
"classical conditioning is ..."): what ties it to the topic is where it is said, not its words.
"""

from __future__ import annotations

import numpy as np

from app.assistant.extractive.answer_types import holds
from app.assistant.extractive.quotes import Quote, SentenceScorer
from app.assistant.extractive.sentences import is_filler
from app.search.names import content_words

# How many sentences after the topic's naming sentence its fact may be said: what comes before a topic is
# named belongs to the one before it.
NEAR = 2
# How close (cosine) the naming sentence must be to the topic: saying its word in passing is not naming it.
MIN_NAMING = 0.5


def fact_near_topic(
    scorer: SentenceScorer, kind: str, question: str, topic: str, quotes: list[Quote]
) -> Quote | None:
    """The sentence holding a fact of `kind` closest to a sentence naming `topic` (what the `question`'s
    pronoun stands for); None when no sentence names it closely enough or none near it holds such a fact."""
    words = set(content_words(topic))
    naming = [quote for quote in quotes if words & set(content_words(quote.sentence))]
    if not words or not naming:
        return None
    query = scorer.embedder.embed_query(topic)
    vectors = scorer.vectors.get([quote.sentence for quote in naming])
    closeness = {
        id(quote): float(np.dot(query, vector)) for quote, vector in zip(naming, vectors, strict=True)
    }
    known = set(content_words(f"{question} {topic}"))  # the question's words name what is asked about
    best: tuple[float, Quote] | None = None
    for quote in quotes:
        if quote.asks or is_filler(quote.sentence):
            continue
        near = [
            closeness[id(other)]
            for other in naming
            if other.passage is quote.passage and 0 <= quote.position - other.position <= NEAR
        ]
        if not near or max(near) < MIN_NAMING:
            continue
        titles = f"{quote.passage.course_title} {quote.passage.lesson_title}"
        if not holds(kind, quote.sentence, known | set(content_words(titles))):
            continue
        if best is None or max(near) > best[0]:
            best = (max(near), quote)
    return best[1] if best else None
