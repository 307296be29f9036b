"""Flask extensions, created unbound and initialised by the app factory."""

from __future__ import annotations

from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

from app.services import settings

csrf = CSRFProtect()
# Keyed by the client address; behind a reverse proxy, TRUSTED_PROXIES makes that the real client's.
client_key = get_remote_address
limiter = Limiter(key_func=client_key, default_limits=[])
# One RATELIMIT_ASK budget per client for /ask and /api/query together, not one each.
ask_limit = limiter.shared_limit(lambda: settings().ratelimit_ask, scope="ask")
