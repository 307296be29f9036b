"""A sentence embedding model run by onnxruntime and tokenizers: no torch in the serving process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.search.embedding.layout import INPUTS, MANIFEST, MODEL_FILE, TOKENIZER_FILE


class OnnxSentenceModel:
    """Tokenize, run the exported transformer, mean-pool over the attention mask, normalize to length 1."""

    def __init__(self, folder: Path):
        # Imported here so that importing the app stays light until the first embedding.
        import onnxruntime
        from tokenizers import Tokenizer

        manifest = json.loads((folder / MANIFEST).read_text())
        self.dimension = int(manifest["dimension"])
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        # Set once here, never per call: a tokenizer is then safe to share between threads.
        self.tokenizer.enable_truncation(max_length=int(manifest["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(manifest["pad_token_id"]), pad_token=manifest["pad_token"])
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # warnings about the graph are for the exporter, not the server log
        # InferenceSession.run is thread-safe: chat searches and a sync's batches run side by side.
        self._onnxruntime = onnxruntime
        self.session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )

    def _run_options(self, batch: int):
        """Run options: a batch gives its working memory back to the system afterwards; a query keeps it.

        onnxruntime's memory arena only grows: one sync-sized batch (16 passages of 256 tokens) left a
        worker at 528 MB for good. Shrinking the arena after each batch keeps it at 286 MB, while a
        single query, the common request, keeps the arena's speed (a query embeds in about 2.8 ms either way).
        """
        if batch == 1:
            return None
        options = self._onnxruntime.RunOptions()
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return options

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """One vector per text, in order, batch by batch."""
        batches = [
            self._encode_batch(texts[start : start + batch_size])
            for start in range(0, len(texts), batch_size)
        ]
        return np.concatenate(batches) if batches else np.zeros((0, self.dimension), dtype=np.float32)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        """Vectors of one batch."""
        encodings = self.tokenizer.encode_batch(texts)
        arrays = {
            "input_ids": np.array([encoding.ids for encoding in encodings], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64),
            "token_type_ids": np.array([encoding.type_ids for encoding in encodings], dtype=np.int64),
        }
        feed = {name: arrays[name] for name in INPUTS}
        (hidden,) = self.session.run(["last_hidden_state"], feed, self._run_options(len(texts)))
        mask = arrays["attention_mask"][:, :, None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)
