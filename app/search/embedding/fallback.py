"""The torch fallback: sentence-transformers, used only when there is no ONNX export and none can be made."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from app.errors import ServiceUnavailable


class TorchSentenceModel:
    """The sentence-transformers model (imports torch); never from the network."""

    def __init__(self, path: str, name: str):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # The weight-loading progress bar would clutter the CLI and server logs on every start.
        transformers_logging.disable_progress_bar()
        try:
            self.model: Any = SentenceTransformer(path, device="cpu")
        except (OSError, ValueError) as exc:
            raise ServiceUnavailable(
                f"The embedding model '{name}' could not be loaded.", detail=str(exc)
            ) from exc
        # Its fast tokenizer is not safe to call from two threads at once (the ONNX model is).
        self._lock = threading.Lock()

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (a transformers tokenizer)."""
        return self.model.tokenizer

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """One unit-length vector per text, in order."""
        with self._lock:
            return self.model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
