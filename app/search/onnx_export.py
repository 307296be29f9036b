"""Export a sentence-transformers model to ONNX once, so serving processes embed without importing torch.

`python -m app.search.onnx_export [EMBEDDING_MODEL]` writes the export into the cache folder (`make install`
runs it); the app runs the same export in a subprocess when it finds none. Only this export imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

# Written last, so a folder with a manifest is a finished export (the folder is renamed into place whole).
MANIFEST = "export.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# The exporter's opset; onnxruntime runs every opset up to its own.
OPSET = 17
# Changing how exports are made makes every earlier export stale.
EXPORT_FORMAT = 1


def default_cache_dir() -> Path:
    """Where exports go: EMBEDDING_CACHE_DIR, else the user's cache folder."""
    configured = os.environ.get("EMBEDDING_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "course-assistant"


def export_folder(model_path: str, cache_dir: Path) -> Path:
    """The export's folder for a model: named by a fingerprint of its configuration and weights."""
    model = Path(model_path)
    digest = hashlib.sha256(f"format {EXPORT_FORMAT}\n".encode())
    for name in ("config.json", "sentence_bert_config.json", "1_Pooling/config.json", "tokenizer.json"):
        if (model / name).is_file():
            digest.update(name.encode() + (model / name).read_bytes())
    for weights in sorted(model.glob("*.safetensors")) + sorted(model.glob("*.bin")):
        digest.update(f"{weights.name} {weights.stat().st_size}".encode())
    return cache_dir / "onnx" / f"{model.name}-{digest.hexdigest()[:16]}"


def is_exported(folder: Path) -> bool:
    """True for a finished export."""
    return (folder / MANIFEST).is_file()


def export(model_path: str, folder: Path) -> Path:
    """Export the model's transformer to ONNX with its tokenizer and pooling settings; return the folder."""
    # Imported here: this is the one place torch is needed, and it runs in a process of its own.
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path, device="cpu")
    transformer: Any = model[0]  # torch's Module indexing is typed loosely
    pooler: Any = model[1] if len(model) > 1 else None
    pooling = pooler.get_config_dict() if pooler is not None else {"pooling_mode": "mean"}
    # sentence-transformers 5+ names the mode; older versions set one flag per mode.
    mode = pooling.get("pooling_mode") or ("mean" if pooling.get("pooling_mode_mean_tokens") else "other")
    if mode != "mean":
        raise ValueError(f"only mean pooling is exported, not {mode}")
    tokenizer: Any = transformer.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("the model has no fast tokenizer (tokenizer.json)")
    sample = tokenizer(["an example", "a second, longer example"], padding=True, return_tensors="pt")

    class LastHiddenState(torch.nn.Module):
        """The transformer with named inputs and its last hidden state as the one output."""

        def __init__(self, network: torch.nn.Module):
            super().__init__()
            self.network = network

        def forward(self, input_ids, attention_mask, token_type_ids):
            """Run the network on one padded batch."""
            return self.network(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUTS, "last_hidden_state")}
        with torch.no_grad():
            torch.onnx.export(
                LastHiddenState(transformer.auto_model.eval()),
                tuple(sample[name] for name in INPUTS),
                str(staging / MODEL_FILE),
                input_names=list(INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        tokenizer.backend_tokenizer.save(str(staging / TOKENIZER_FILE))
        manifest = {
            "model": model_path,
            "max_seq_length": model.max_seq_length,
            "pad_token_id": tokenizer.pad_token_id,
            "pad_token": tokenizer.pad_token,
            "dimension": model.get_sentence_embedding_dimension(),
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2))
        try:
            os.rename(staging, folder)
        except OSError:
            if not is_exported(folder):  # another process finished the same export first: keep theirs
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def main() -> None:
    """Export EMBEDDING_MODEL (or the argument, or the packaged default) into the cache folder."""
    from app.search.embeddings import resolve_model_path

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    name = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("EMBEDDING_MODEL") or None
    model_path = resolve_model_path(name)
    folder = export_folder(model_path, default_cache_dir())
    if is_exported(folder):
        print(f"ONNX export already in {folder}")
        return
    export(model_path, folder)
    print(f"Exported {model_path} to {folder}")


if __name__ == "__main__":
    main()
