"""Gunicorn settings: `gunicorn -c gunicorn.conf.py wsgi:app` (`make serve`)."""

from __future__ import annotations

import os

from app.config import load_settings

_settings = load_settings()

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
# A Claude call is slow I/O: threads, not processes, carry the concurrency.
worker_class = "gthread"
threads = 8
workers = int(os.environ.get("WEB_CONCURRENCY") or 1)
# Above the longest Claude call the SDK may make, retries included.
timeout = int(_settings.anthropic_timeout * (_settings.anthropic_max_retries + 1) + 30)
graceful_timeout = 30
# The embedding model loads lazily in each worker; a master that loaded it would hang forked workers.
preload_app = False
# Nothing here uses gunicornc; a control socket in $HOME would clash between two deployments on one host.
control_socket_disable = True
accesslog = "-"
errorlog = "-"


def on_starting(server) -> None:
    """Warn when several worker processes would share one embedded ChromaDB folder."""
    if server.cfg.workers > 1 and not _settings.uses_chroma_server:
        server.log.warning(
            "%d workers on the embedded ChromaDB folder %s: several processes on one embedded ChromaDB "
            "folder see stale results; set CHROMA_HOST (a `chroma run` server) or WEB_CONCURRENCY=1",
            server.cfg.workers,
            _settings.resolved_chroma_path,
        )
