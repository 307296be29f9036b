"""The embedding model behind an `Embedder` protocol (see ARCHITECTURE.md, "Embedding").

protocol.py (what callers need), model.py (the process-wide model, loaded on first use), onnx.py (the fast
backend), fallback.py (the torch backend), layout.py (the export's folder and files), export.py (the export
itself, `python -m app.search.embedding.export`). Each imports only the ones after it in that order.
kept.py keeps the vectors of short texts a search or an answer embeds at query time.
"""

from app.search.embedding.layout import DEFAULT_PACKAGE, resolve_model_path
from app.search.embedding.model import SentenceEmbedder, get_embedder
from app.search.embedding.protocol import Embedder

__all__ = ["DEFAULT_PACKAGE", "Embedder", "SentenceEmbedder", "get_embedder", "resolve_model_path"]
