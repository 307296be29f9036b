"""Why a search ranked its passages: each passage's meaning rank, keyword rank, fused rank and cosine.

For the retrieval playground. The passages and their order are exactly the search's (a test holds the two
together); only the ranks each passage had in the two candidate rankings are added.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.search.models import Passage
from app.search.searcher import Searcher, SearchRequest


@dataclass(frozen=True)
class RankedPassage:
    """A search result with the ranks behind it (None: not among that ranking's candidates)."""

    passage: Passage
    fused_rank: int
    dense_rank: int | None
    lexical_rank: int | None

    @property
    def cosine(self) -> float:
        """The passage's cosine similarity to the question."""
        return self.passage.score


def explain_ranking(searcher: Searcher, request: SearchRequest) -> list[RankedPassage]:
    """The request's k best passages, as `Searcher.search` ranks them, with the ranks behind them."""
    candidates = searcher.candidates(request)
    dense, lexical = candidates.dense, candidates.lexical[: candidates.offered]
    titles = {entry.record.id: entry.record.title for entry in request.library.entries}
    dense_ranks = {
        (hit.metadata["course_title"], hit.metadata["lesson_number"], hit.metadata["chunk_index"]): rank
        for rank, hit in enumerate(dense, 1)
    }
    lexical_ranks = {
        (titles.get(found.course_id, ""), *found.key): rank for rank, found in enumerate(lexical, 1)
    }
    passages = searcher.fuse(candidates, request.scope, request.k)
    return [
        RankedPassage(passage, fused, dense_ranks.get(passage.place), lexical_ranks.get(passage.place))
        for fused, passage in enumerate(passages, 1)
    ]
