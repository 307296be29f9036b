"""A sentence embedding model run by onnxruntime and tokenizers: no torch in the serving process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.search.embedding.layout import INPUTS, MANIFEST, MODEL_FILE, TOKENIZER_FILE


class OnnxSentenceModel:
    """Tokenize, run the exported transformer, mean-pool over the attention mask, normalize to length 1."""

    def __init__(self, folder: Path, model_file: str = MODEL_FILE):
        """Load an export's served graph (or, by `model_file`, its float one: FLOAT_MODEL_FILE)."""
        # Imported here so that importing the app stays light until the first embedding.
        import onnxruntime
        from tokenizers import Tokenizer

        manifest = json.loads((folder / MANIFEST).read_text())
        self.dimension = int(manifest["dimension"])
        # Dynamic quantization scales each MatMul's input by the range of the whole batch (padding included),
        # so in a batch a text's vector would depend on its neighbours (cosine down to 0.983 to its own
        # vector alone). One text per run keeps every vector a function of its text, a query's equal to the
        # same text's as a passage, at no measurable cost (17.9 against 18.6 passages per CPU-second).
        self.batch_limit = 1 if manifest.get("quantization") and model_file == MODEL_FILE else None
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        # Set once here, never per call: a tokenizer is then safe to share between threads.
        self.tokenizer.enable_truncation(max_length=int(manifest["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(manifest["pad_token_id"]), pad_token=manifest["pad_token"])
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # warnings about the graph are for the exporter, not the server log
        # InferenceSession.run is thread-safe: chat searches and a sync's batches run side by side.
        self._onnxruntime = onnxruntime
        self.session = onnxruntime.InferenceSession(
            str(folder / model_file), options, providers=["CPUExecutionProvider"]
        )

    def _run_options(self, shrink: bool):
        """Run options: a call's last batch gives the working memory back to the system; a query keeps it.

        onnxruntime's memory arena only grows: one sync-sized batch (16 passages of 256 tokens) left a
        worker at 528 MB for good. Shrinking the arena after a call's last batch keeps it at 286 MB between
        calls, while the batches of one call reuse it rather than ask the system for it again each time,
        and a single query, the common request, keeps the arena's speed.
        """
        if not shrink:
            return None
        options = self._onnxruntime.RunOptions()
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return options

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """One vector per text, in order; batched by token length, so a batch pads only to its own longest
        text (pooling over the attention mask makes each vector independent of the padding)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        batch_size = min(batch_size, self.batch_limit or batch_size)
        # Tokenized once for the whole call (padded to its longest text), then cut to each batch's length.
        encodings = self.tokenizer.encode_batch(texts)
        arrays = {
            "input_ids": np.array([encoding.ids for encoding in encodings], dtype=np.int64),
            "attention_mask": np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64),
            "token_type_ids": np.array([encoding.type_ids for encoding in encodings], dtype=np.int64),
        }
        lengths = arrays["attention_mask"].sum(axis=1)
        order = np.argsort(lengths, kind="stable")
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            width = int(lengths[rows].max())
            batch = {name: np.ascontiguousarray(arrays[name][rows, :width]) for name in INPUTS}
            last = start + batch_size >= len(order)
            vectors[rows] = self._run_batch(batch, shrink=last and len(texts) > 1)
        return vectors

    def _run_batch(self, feed: dict[str, np.ndarray], shrink: bool) -> np.ndarray:
        """Vectors of one padded batch: run the transformer, mean-pool over the mask, normalize."""
        (hidden,) = self.session.run(["last_hidden_state"], feed, self._run_options(shrink))
        mask = feed["attention_mask"][:, :, None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)
