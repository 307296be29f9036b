"""A fake OpenID Connect provider on 127.0.0.1: discovery, JWKS, authorization and token endpoints, with a
real RSA key and real signed id tokens; a test can make it misbehave the ways a forger would."""

from __future__ import annotations

import base64
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.loopback import JsonHandler, LoopbackServer

CLIENT_ID = "course-assistant"
CLIENT_SECRET = "test-client-secret"
# The ways an id token can be wrong: signed by another key, expired, for another client, another nonce.
TAMPERS = ("forged", "expired", "audience", "nonce")


class FakeIdentityProvider(LoopbackServer):
    """Signs in `user` (its claims) at /authorize, and issues its id token at /token, `tamper`ed if set."""

    name = "fake-idp"

    def __init__(self) -> None:
        super().__init__()
        self.key = RSAKey.generate_key(2048, parameters={"kid": "idp-key-1"})
        self.user: dict[str, Any] = {"sub": "subject-1"}
        self.tamper: str | None = None
        self.token_requests: list[dict[str, Any]] = []
        self._codes: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler bound to this provider."""
        return _handler_for(self)

    @property
    def url(self) -> str:
        """The issuer: this server's base URL."""
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def discovery(self) -> dict[str, Any]:
        """The discovery document."""
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def authorize(self, query: dict[str, str]) -> str:
        """A code for the current user, bound to the request's nonce; the redirect back to the client."""
        assert query.get("client_id") == CLIENT_ID and query.get("response_type") == "code"
        code = secrets.token_urlsafe(16)
        with self._lock:
            self._codes[code] = {"nonce": query.get("nonce"), "user": dict(self.user)}
        back = {"code": code, "state": query.get("state", "")}
        return f"{query['redirect_uri']}?{urlencode(back)}"

    def token(self, form: dict[str, str], authorization: str) -> tuple[int, dict[str, Any]]:
        """Exchange a code (once) for an access token and the id token."""
        self.token_requests.append(form)
        client = _basic_client(authorization) or (form.get("client_id"), form.get("client_secret"))
        if client != (CLIENT_ID, CLIENT_SECRET):
            return 401, {"error": "invalid_client"}
        with self._lock:
            granted = self._codes.pop(form.get("code", ""), None)
        if granted is None:
            return 400, {"error": "invalid_grant"}
        return 200, {
            "access_token": secrets.token_urlsafe(16),
            "token_type": "Bearer",
            "expires_in": 3600,
            "id_token": self.id_token(granted["user"], granted["nonce"]),
        }

    def id_token(self, user: dict[str, Any], nonce: str | None) -> str:
        """The signed id token, wrong in the way `tamper` says."""
        moment = int(time.time())
        claims = {"iss": self.url, "aud": CLIENT_ID, "iat": moment, "exp": moment + 600, "nonce": nonce}
        claims.update(user)
        key = self.key
        if self.tamper == "forged":
            key = RSAKey.generate_key(2048, parameters={"kid": "idp-key-1"})
        elif self.tamper == "expired":
            claims.update(iat=moment - 7200, exp=moment - 3600)
        elif self.tamper == "audience":
            claims["aud"] = "another-client"
        elif self.tamper == "nonce":
            claims["nonce"] = secrets.token_urlsafe(16)
        return jwt.encode({"alg": "RS256", "kid": "idp-key-1"}, claims, key)


def _basic_client(authorization: str) -> tuple[str, str] | None:
    """The client id and secret of an HTTP Basic authorization header."""
    if not authorization.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(authorization[6:]).decode().partition(":")
    return user, password


def _handler_for(idp: FakeIdentityProvider) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one provider."""

    class Handler(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            if parts.path == "/.well-known/openid-configuration":
                self._send(200, idp.discovery())
            elif parts.path == "/jwks":
                self._send(200, {"keys": [idp.key.as_dict(private=False)]})
            elif parts.path == "/authorize":
                query = {key: values[0] for key, values in parse_qs(parts.query).items()}
                self.send_response(302)
                self.send_header("location", idp.authorize(query))
                self.send_header("content-length", "0")
                self.end_headers()
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length", 0))
            form = {key: values[0] for key, values in parse_qs(self.rfile.read(length).decode()).items()}
            if urlsplit(self.path).path != "/token":
                self._send(404, {"error": "not_found"})
                return
            status, body = idp.token(form, self.headers.get("authorization", ""))
            self._send(status, body)

    return Handler
