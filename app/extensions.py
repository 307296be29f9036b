"""Flask extensions, created unbound and initialised by the app factory."""

from __future__ import annotations

import logging

from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

from app.services import settings

csrf = CSRFProtect()
# Keyed by the client address; behind a reverse proxy, TRUSTED_PROXIES makes that the real client's.
client_key = get_remote_address
limiter = Limiter(key_func=client_key, default_limits=[])


class _CountStoreFailures(logging.Handler):
    """Count the limiter's warnings and errors (its store failing) in a metric; the log keeps the lines."""

    def emit(self, record: logging.LogRecord) -> None:
        from app.metrics import RATELIMIT_STORE_FAILURES

        RATELIMIT_STORE_FAILURES.inc()


# When the store (Redis) fails, the limits count in this process's memory until it is back (a logged warning
# and a metric), instead of every limited request failing: see create_app's RATELIMIT_* settings.
_store_failures = _CountStoreFailures(level=logging.WARNING)
if _store_failures not in logging.getLogger("flask-limiter").handlers:
    logging.getLogger("flask-limiter").addHandler(_store_failures)


def ratelimit_store_ok() -> bool:
    """Whether the rate-limit store answers (memory:// always does)."""
    try:
        return bool(limiter.storage.check())
    except Exception:  # noqa: BLE001 - any failure of the store means it is not answering
        return False


# One RATELIMIT_ASK budget per client for /ask and /api/query together, not one each.
ask_limit = limiter.shared_limit(lambda: settings().ratelimit_ask, scope="ask")
