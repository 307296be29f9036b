"""Vectors of short texts (sentences, windows of them), embedded once and kept: the same passages return."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from app.search.embedding.protocol import Embedder


class KeptVectors:
    """Text vectors, embedded once and kept, `size` of them (least recently used first out).

    Kept as float32 arrays (~1.5 KB each): 5,000 take 8 MB, where lists of Python floats would take 60 MB.
    """

    def __init__(self, embedder: Embedder, size: int):
        self.embedder = embedder
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sentences: list[str]) -> list[np.ndarray]:
        """The vector of each text, embedding only those not seen before, in one batch."""
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
