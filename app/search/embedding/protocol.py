"""Embedder: what the index and the answerers need of an embedding model."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Embed texts into unit-length vectors of one model."""

    @property
    def loaded(self) -> bool:
        """True once the model is in memory (a question then pays no start-up cost)."""
        ...

    @property
    def fingerprint(self) -> str:
        """What makes the vectors (model and export): an index never mixes two fingerprints' vectors."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One text's vector (read-only: callers may share it)."""
        ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...

    def vocabulary(self) -> frozenset[str]:
        """The whole words the model knows, lower-cased (spelling correction leaves them alone)."""
        ...
