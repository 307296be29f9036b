"""HTMX request detection."""

from __future__ import annotations

from flask import Request
from flask import request as current_request


def is_htmx(request: Request | None = None) -> bool:
    """True when htmx sent the request (and it is not a history restore, which wants a whole page)."""
    req = request or current_request
    return req.headers.get("HX-Request") == "true" and req.headers.get("HX-History-Restore-Request") != "true"
