"""Export a sentence-transformers model to ONNX once, so serving processes embed without importing torch.

`python -m app.search.embedding.export [EMBEDDING_MODEL]` writes the export into the cache folder (`make
install` runs it); the app runs the same export in a subprocess when it finds none. Only this export imports
torch. The folder layout is layout.py's.

The served graph has int8 weights in its matrix products (dynamic quantization: activations are scaled per
batch at run time), which embeds passages about 1.7x as fast as the float graph on a CPU with VNNI; its
vectors stay within cosine 0.98 of the float ones (README, "Figures", has what that does to search).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from app.config import load_settings
from app.search.embedding.layout import (
    FLOAT_MODEL_FILE,
    INPUTS,
    MANIFEST,
    MODEL_FILE,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    cache_dir_for,
    export_folder,
    is_exported,
    resolve_model_path,
    weights_apart,
)

# The exporter's opset; onnxruntime runs every opset up to its own.
OPSET = 17
# How the served graph is quantized. Only MatMul: the rest (embeddings, LayerNorm, softmax) is a small share
# of the work and the most sensitive to rounding. One scale per output channel keeps the vectors at mean
# cosine 0.993 to the float ones (0.945 with one scale per matrix); weights in 7 bits ("reduce range") leave
# room in the 16-bit sums of CPUs without VNNI, which int8 products can otherwise saturate.
QUANTIZATION = {"op_types": ["MatMul"], "weights": "int8", "per_channel": True, "reduce_range": True}


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
                str(staging / FLOAT_MODEL_FILE),
                input_names=list(INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        quantize(staging / FLOAT_MODEL_FILE, staging / MODEL_FILE)
        separate_weights(staging / MODEL_FILE)
        tokenizer.backend_tokenizer.save(str(staging / TOKENIZER_FILE))
        manifest = {
            "model": model_path,
            "max_seq_length": model.max_seq_length,
            "pad_token_id": tokenizer.pad_token_id,
            "pad_token": tokenizer.pad_token,
            "dimension": model.get_sentence_embedding_dimension(),
            "quantization": QUANTIZATION,
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


def quantize(source: Path, target: Path) -> None:
    """Write `source`'s graph with int8 MatMul weights (QUANTIZATION) to `target`."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # The quantizer advises pre-processing on the root logger every time; that advice is for static
    # quantization of convolutional graphs, so it is kept out of `make install`'s output.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            op_types_to_quantize=QUANTIZATION["op_types"],
            weight_type=QuantType.QInt8,
            per_channel=QUANTIZATION["per_channel"],
            reduce_range=QUANTIZATION["reduce_range"],
        )
    finally:
        root.setLevel(level)


def separate_weights(graph: Path) -> None:
    """Move `graph`'s weights into WEIGHTS_FILE beside it, in place: the same graph, the same vectors.

    The weights file is replaced first and the graph last, so a process loading the export meanwhile reads
    either the old graph with its weights inline or the new one with its weights beside it.
    """
    import onnx

    model = onnx.load(str(graph))
    staging = Path(tempfile.mkdtemp(prefix=".weights.", dir=graph.parent))
    try:
        onnx.save_model(
            model,
            str(staging / graph.name),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=WEIGHTS_FILE,
        )
        (staging / WEIGHTS_FILE).chmod(graph.stat().st_mode & 0o777)  # readable by whoever reads the graph
        os.replace(staging / WEIGHTS_FILE, graph.parent / WEIGHTS_FILE)
        os.replace(staging / graph.name, graph)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main() -> None:
    """Export EMBEDDING_MODEL (or the argument, or the packaged default) into EMBEDDING_CACHE_DIR."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    settings = load_settings()
    name = sys.argv[1] if len(sys.argv) > 1 else settings.embedding_model
    model_path = resolve_model_path(name)
    folder = export_folder(model_path, cache_dir_for(settings.embedding_cache_dir))
    if not is_exported(folder):
        export(model_path, folder)
        print(f"Exported {model_path} to {folder}")
    elif not weights_apart(folder):  # an export made before the weights were kept apart
        separate_weights(folder / MODEL_FILE)
        print(f"ONNX export in {folder}: its weights moved into {WEIGHTS_FILE}")
    else:
        print(f"ONNX export already in {folder}")


if __name__ == "__main__":
    main()
