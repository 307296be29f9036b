"""An optional cross-encoder stage: the hybrid ranking's best candidates re-scored, each read with the query.

A bi-encoder embeds the question and each chunk apart; a cross-encoder reads the pair together, which ranks
better and costs a model call per candidate, so only the first RERANK_CANDIDATES of the fused ranking are
read. Off unless RERANKER_MODEL names a model (a local folder, or a name sentence-transformers can load from
its cache: the app never downloads one). The model loads on the first search, in the worker that serves it,
never at import time or in the gunicorn master. When it is missing or fails, the fused order stands and the
failure is logged once. A passage's score stays its cosine similarity, which the answerers read as relevance;
among equal cross-encoder scores the fused order decides.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from app.search.models import Passage

log = logging.getLogger(__name__)

# How many of the fused ranking's best passages the cross-encoder reads: a budget of model calls per search
# (at least the k asked for).
RERANK_CANDIDATES = 20
# Tokens of query and passage the cross-encoder reads together; a chunk (800 characters) fits.
MAX_TOKENS = 320


class PairScorer(Protocol):
    """What the stage needs of a cross-encoder: one relevance score per (query, passage) pair."""

    def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> Sequence[float]: ...


def load_cross_encoder(name: str) -> PairScorer:
    """Load a cross-encoder through sentence-transformers, from a local folder or the local cache only."""
    from sentence_transformers import CrossEncoder  # torch: imported only when a reranker is configured

    folder = Path(name).expanduser()
    source = str(folder.resolve()) if folder.is_dir() else name
    return CrossEncoder(source, device="cpu", max_length=MAX_TOKENS, local_files_only=True)


class Reranker:
    """Re-orders a search's best candidates by a cross-encoder's scores; without a model, does nothing."""

    def __init__(self, model: str | None, candidates: int = RERANK_CANDIDATES, loader=load_cross_encoder):
        self.model = model or None
        self.candidates = candidates
        self._loader = loader
        self._scorer: PairScorer | None = None
        self._failed = False
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """True when a model is configured and has not failed."""
        return self.model is not None and not self._failed

    def depth(self, k: int) -> int:
        """How many fused candidates a search of k passages should hand to `rerank`."""
        return max(k, self.candidates) if self.enabled else k

    def rerank(self, query: str, passages: list[Passage], k: int) -> list[Passage]:
        """The k best of `passages` (in fused order) by the cross-encoder; the fused order without one."""
        scorer = self._get() if self.enabled and len(passages) > 1 else None
        if scorer is None:
            return passages[:k]
        try:
            scores = [float(score) for score in scorer.predict([(query, p.text) for p in passages])]
        except Exception:  # a model that loads but cannot score: the fused order, said once
            self._fail("scoring with the reranker %s failed; searches keep the fused order")
            return passages[:k]
        # Best score first; of equal scores the earlier fused rank (sorted is stable).
        ranked = sorted(range(len(passages)), key=lambda at: -scores[at])
        return [passages[at] for at in ranked[:k]]

    def _get(self) -> PairScorer | None:
        """The loaded model, loading it on first use (one thread loads, the others wait)."""
        if self._scorer is None:
            with self._lock:
                if self._scorer is None and not self._failed:
                    try:
                        self._scorer = self._loader(self.model)
                        log.info("Reranking search results with the cross-encoder %s", self.model)
                    except Exception:
                        self._fail("the reranker %s could not be loaded; searches keep the fused order")
        return self._scorer

    def _fail(self, message: str) -> None:
        """Turn the stage off for good and log why, once (called while handling the failure)."""
        if not self._failed:
            self._failed = True
            log.warning(message, self.model, exc_info=True)
