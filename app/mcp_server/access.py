"""Who may use the MCP server over HTTP: bearer tokens from the admin page, each with its rate limit."""

from __future__ import annotations

import json
import logging
import math
import time

import anyio.to_thread
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Receive, Scope, Send

from app.mcp_server.library import CourseLibrary
from app.store.tokens import token_digest

log = logging.getLogger(__name__)

BEARER = "bearer "


class StoreTokenVerifier:
    """The SDK's TokenVerifier over the store: a token is valid while it exists and is not revoked."""

    def __init__(self, library: CourseLibrary):
        self.library = library

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access a token grants (the tools and resources, all of them), or None."""
        record = await anyio.to_thread.run_sync(self.library.check_token, token)
        if record is None:
            return None
        return AccessToken(token=token, client_id=f"token-{record.id}", scopes=[])


def bearer_token(scope: Scope) -> str | None:
    """The bearer token of a request's Authorization header, if it has one."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            text = value.decode("latin-1")
            if text.lower().startswith(BEARER) and text[len(BEARER) :].strip():
                return text[len(BEARER) :].strip()
    return None


class TokenRateLimit:
    """ASGI middleware: each bearer token gets RATELIMIT_MCP requests, then 429 with Retry-After.

    Requests are counted under the token's SHA-256 (its identity in the store), before it is checked, so a
    token over its limit costs no database read. Requests without a token pass on to be refused (401).
    The counts live in RATELIMIT_STORAGE_URI (Redis shares them between processes); when that store fails
    they are counted in this process's memory until it answers again, as the web app's limits are.
    """

    def __init__(self, app: ASGIApp, limits: str, storage_uri: str):
        self.app = app
        self.limits: list[RateLimitItem] = parse_many(limits)
        self.shared = FixedWindowRateLimiter(storage_from_string(storage_uri))
        self.fallback = FixedWindowRateLimiter(MemoryStorage())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a token over its limit; pass everything else on."""
        token = bearer_token(scope) if scope["type"] == "http" else None
        if token is not None:
            wait = await anyio.to_thread.run_sync(self._hit, token_digest(token))
            if wait is not None:
                await _too_many(send, wait)
                return
        await self.app(scope, receive, send)

    def _hit(self, key: str) -> float | None:
        """Count one request; None when every limit allows it, else the seconds until one allows it again."""
        try:
            return self._count(self.shared, key)
        except Exception as exc:  # noqa: BLE001 - any failure of the store: count here until it is back
            log.warning("MCP rate-limit store failed, counting in memory: %s", exc)
            return self._count(self.fallback, key)

    def _count(self, limiter: FixedWindowRateLimiter, key: str) -> float | None:
        """Hit every limit for the key; the longest wait among those it is over, or None."""
        over = [limit for limit in self.limits if not limiter.hit(limit, "mcp", key)]
        if not over:
            return None
        return max(limiter.get_window_stats(limit, "mcp", key).reset_time for limit in over) - time.time()


async def _too_many(send: Send, wait: float) -> None:
    """Answer 429 with the seconds to wait, in the JSON shape of the SDK's own refusals."""
    body = json.dumps(
        {"error": "rate_limited", "error_description": "Too many requests with this token; wait, then retry."}
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(max(1, math.ceil(wait))).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
