"""Security on every response: a strict Content-Security-Policy and friends, JSON without bidi controls."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response as BaseResponse

from app.bidi import neutralize

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
# htmx reads this from <meta name="htmx-config">: no eval, no injected <style>, no <script> from fragments,
# requests only to this origin, and no copy of the conversation in localStorage.
HTMX_CONFIG = {
    "allowEval": False,
    "includeIndicatorStyles": False,
    "allowScriptTags": False,
    "selfRequestsOnly": True,
    "historyCacheSize": 0,
}


class NeutralJSON(DefaultJSONProvider):
    """Flask's JSON responses, every string in them without bidi controls (see app.bidi.neutralize).

    Only responses (jsonify): the session cookie is serialized by the same provider and keeps its data as is.
    """

    def response(self, *args: Any, **kwargs: Any) -> BaseResponse:
        """A JSON response of the neutralized data."""
        return super().response(*neutralize(list(args)), **neutralize(kwargs))


def register(app: Flask) -> None:
    """Add the headers to every response, neutralize bidi controls in JSON, expose the htmx config."""
    app.json = NeutralJSON(app)
    app.after_request(add_headers)
    app.jinja_env.globals["htmx_config"] = HTMX_CONFIG


def add_headers(response: Response) -> Response:
    """Set each security header unless the view chose its own."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if response.mimetype == "text/html":
        # Pages carry a conversation or the admin's view: no shared or back-button cache may keep them.
        response.headers.setdefault("Cache-Control", "no-store")
    return response
