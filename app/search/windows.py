"""Small-to-big within one lesson: passages ranked by the best window of sentences they hold.

A spoken passage mixes topics ("...so the dough may lose its ability to hold gas. Now, oven spring..."),
so its one vector can sit far from a question that one of its sentences answers. Ranked by its nearest
window of `WINDOW` sentences, the passage that says the answer in passing comes up. Embedding windows costs a
model call per search, so it is only done for the few passages of a search within one lesson
(`parts.search_with_parts`, a compared part naming a lesson).
"""

from __future__ import annotations

import numpy as np

from app.courses.chunking import split_sentences
from app.search.embedding.kept import KeptVectors
from app.search.models import Passage

# Two sentences: one alone is often a fragment of speech ("Right."); three dilute as a passage does.
WINDOW = 2
# Window vectors kept between searches (`Searcher.window_vectors`, about 6 MB): a lesson's passages come back.
WINDOW_CACHE_SIZE = 4096


def windows(text: str, size: int = WINDOW) -> list[str]:
    """A text cut into runs of `size` consecutive sentences, side by side (the last may be shorter)."""
    sentences = split_sentences(text)
    if len(sentences) <= size:
        return [" ".join(sentences)] if sentences else []
    # Side by side, not overlapping: each window is one more model call.
    return [" ".join(sentences[start : start + size]) for start in range(0, len(sentences), size)]


def by_best_window(vectors: KeptVectors, query: str, passages: list[Passage]) -> list[Passage]:
    """The passages by the cosine of their window nearest the query, best first (ties keep their order);
    `vectors` embeds each window once and keeps it."""
    texts: list[str] = []
    owners: list[int] = []
    for position, found in enumerate(passages):
        own = windows(found.text)
        texts += own
        owners += [position] * len(own)
    if not texts:
        return list(passages)
    cosines = np.stack(vectors.get(texts)) @ vectors.embedder.embed_query(query)
    best = np.full(len(passages), -np.inf)
    np.maximum.at(best, np.asarray(owners), cosines)
    order = sorted(range(len(passages)), key=lambda position: -best[position])
    return [passages[position] for position in order]
