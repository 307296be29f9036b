"""The embedding model: all-MiniLM-L6-v2 from a local folder, offline, once per process, on first use.

Served with onnxruntime from a one-time ONNX export (no torch in the process: a fast start, a small worker);
sentence-transformers (torch) is the fallback when there is no export and none can be made.
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.search.embedding.layout import (
    DEFAULT_PACKAGE,
    cache_dir_for,
    export_folder,
    is_exported,
    resolve_model_path,
    weights_apart,
)

# Small batches: a chat search waits at most one batch of a sync's embedding, never a whole file's.
BATCH_SIZE = 16
QUERY_CACHE_SIZE = 1024
EXPORT_TIMEOUT = 600
EXPORT_MODULE = "app.search.embedding.export"

log = logging.getLogger(__name__)
_embedders: dict[str, SentenceEmbedder] = {}
_embedders_lock = threading.Lock()


class _Model(Protocol):
    """What either backend (ONNX or torch) offers."""

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (a `tokenizers` or a transformers one)."""
        ...

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray: ...


class SentenceEmbedder:
    """Embed texts into normalized vectors with one model, loaded on the first call (an `Embedder`)."""

    def __init__(self, name: str | None = None, cache_dir: Path | None = None):
        self.name = name or DEFAULT_PACKAGE
        self.cache_dir = cache_dir_for(cache_dir)
        self._model: _Model | None = None
        self.backend: str | None = None  # "onnx" or "torch", once loaded
        self._fingerprint = ""
        self._load_lock = threading.Lock()
        # A question is embedded to search and again to rank sentences, course names and title words on
        # every resolution: the same short texts come back, and their vectors never change.
        self.embed_query = functools.lru_cache(maxsize=QUERY_CACHE_SIZE)(self._embed_one)
        self._vocabulary: frozenset[str] | None = None

    @property
    def loaded(self) -> bool:
        """True once the model has been loaded into this process."""
        return self._model is not None

    @property
    def fingerprint(self) -> str:
        """What makes this embedder's vectors (loads the model): the ONNX export's folder name, which changes
        with the model and the export format, or the model folder's name for the torch fallback."""
        self._load()
        return self._fingerprint

    def _load(self) -> _Model:
        """Load the model once: the ONNX export (made first if missing), else sentence-transformers."""
        with self._load_lock:
            if self._model is None:
                path = resolve_model_path(self.name)
                self._model = self._load_onnx(path) or self._load_torch(path)
            return self._model

    def _load_onnx(self, path: str) -> _Model | None:
        """The ONNX model for `path`, exporting it in a subprocess first if need be; None when that fails."""
        if not (Path(path) / "config.json").is_file():
            return None  # a hub cache name, or no model at all: sentence-transformers says which
        folder = export_folder(path, self.cache_dir)
        try:
            if not is_exported(folder):
                self._export(path)
            elif not weights_apart(folder):
                self._separate_weights(path)
            from app.search.embedding.onnx import OnnxSentenceModel

            model = OnnxSentenceModel(folder)
        except Exception as exc:  # noqa: BLE001 - any failure of the fast path falls back to the slow one
            log.warning("ONNX embedding unavailable (%s); using sentence-transformers with torch", exc)
            return None
        self.backend = "onnx"
        self._fingerprint = f"onnx {folder.name}"
        return model

    def _export(self, path: str) -> None:
        """Run the export in a process of its own, so this one never imports torch."""
        log.info("Exporting the embedding model to ONNX (once) into %s", self.cache_dir)
        result = subprocess.run(
            [sys.executable, "-m", EXPORT_MODULE, path],
            env={**os.environ, "EMBEDDING_CACHE_DIR": str(self.cache_dir)},
            capture_output=True,
            text=True,
            timeout=EXPORT_TIMEOUT,
        )
        if result.returncode != 0:
            raise RuntimeError(f"the export failed: {result.stderr.strip().splitlines()[-1:]}")

    def _separate_weights(self, path: str) -> None:
        """Move an older export's weights into a file of their own (the export command does it, once); when
        that fails the export serves as it is, each process holding its own copy of the weights."""
        try:
            self._export(path)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            log.warning("the ONNX export keeps its weights inline (%s)", exc)

    def _load_torch(self, path: str) -> _Model:
        """The sentence-transformers model (imports torch); ServiceUnavailable when it cannot be loaded."""
        from app.search.embedding.fallback import TorchSentenceModel

        model = TorchSentenceModel(path, self.name)
        self.backend = "torch"
        self._fingerprint = f"torch {Path(path).name}"
        return model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts, in batches; each vector has length 1."""
        if not texts:
            return []
        return self._load().encode(list(texts), BATCH_SIZE).tolist()

    def vocabulary(self) -> frozenset[str]:
        """The whole English words the model's tokenizer knows (about 22,000), lower-cased."""
        if self._vocabulary is None:
            # The same call on a `tokenizers` and a transformers tokenizer.
            tokens = self._load().tokenizer.get_vocab()
            self._vocabulary = frozenset(token for token in tokens if token.isalpha() and token.islower())
        return self._vocabulary

    def _embed_one(self, text: str) -> np.ndarray:
        """Embed one query (callers go through the cached `embed_query`; the vector is shared, not copied).

        A float32 array, read-only because it is shared: 1.6 KB, where a list of Python floats takes 12 KB,
        which a full cache of a thousand questions would feel.
        """
        vector = np.asarray(self.embed_documents([text])[0], dtype=np.float32)
        vector.flags.writeable = False
        return vector


def get_embedder(name: str | None = None, cache_dir: Path | None = None) -> SentenceEmbedder:
    """The process-wide embedder for this model (created on first request, model loaded on first embed).

    `cache_dir` (EMBEDDING_CACHE_DIR) holds the ONNX export; the first caller's choice stands for the process.
    """
    # Keyed by the resolved location, so the package name and its folder share one loaded model.
    key = resolve_model_path(name)
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            embedder = _embedders[key] = SentenceEmbedder(name or DEFAULT_PACKAGE, cache_dir)
        return embedder
