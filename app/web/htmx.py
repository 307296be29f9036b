"""HTMX on the server side: detecting its requests and the responses that steer it."""

from __future__ import annotations

from flask import Request, Response, make_response
from flask import request as current_request

# htmx stops polling an element when a poll answers with this status.
STOP_POLLING = 286


def is_htmx(request: Request | None = None) -> bool:
    """True when htmx sent the request (and it is not a history restore, which wants a whole page)."""
    req = request or current_request
    return req.headers.get("HX-Request") == "true" and req.headers.get("HX-History-Restore-Request") != "true"


def stop_polling(body: str) -> Response:
    """A polling fragment's last answer: htmx swaps `body` in and polls no more."""
    return make_response(body, STOP_POLLING)


def client_redirect(url: str, body: str = "", status: int = 200) -> Response:
    """Make htmx load `url` as a whole page (HX-Redirect) instead of swapping this response in."""
    response = make_response(body, status)
    response.headers["HX-Redirect"] = url
    return response


def retarget(response: Response, selector: str) -> Response:
    """Swap this response into `selector` instead of the element's own target (HX-Retarget)."""
    response.headers["HX-Retarget"] = selector
    return response


def reswap(response: Response, swap: str) -> Response:
    """Swap this response the `swap` way (an hx-swap value) instead of the element's own (HX-Reswap)."""
    response.headers["HX-Reswap"] = swap
    return response
