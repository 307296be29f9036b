"""Benchmarks: `make bench` (`python -m bench`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def bench_app(tmp: str, docs: Path = DOCS, **config: Any):
    """An app over `docs` with its instance folder in `tmp`: embedded ChromaDB, no rate limits, no CSRF."""
    from app import create_app

    app = create_app(
        {
            "SECRET_KEY": "bench",
            "INSTANCE_PATH": str(Path(tmp) / "instance"),
            "DOCS_DIR": str(docs),
            "CHROMA_HOST": None,
            "ANTHROPIC_API_KEY": None,
            "RATELIMIT_ENABLED": False,
            **config,
        }
    )
    app.config["WTF_CSRF_ENABLED"] = False
    # Migrated as `make run` does: asks store their questions, and the stream claims them from the database.
    app.extensions["services"].store.upgrade()
    return app
