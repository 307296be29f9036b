"""One error handler: typed errors and HTTP errors become JSON, an HTMX fragment or a page."""

from __future__ import annotations

from flask import Flask, current_app, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from app.errors import AppError
from app.web.htmx import is_htmx

JSON_PATHS = ("/healthz", "/readyz")
FRIENDLY = {
    400: ("Bad request", "The request could not be understood."),
    403: ("Not allowed", "You are not allowed to do that."),
    404: ("Not found", "There is nothing at this address."),
    405: ("Not allowed", "That method is not allowed here."),
    413: ("Too large", "That upload is larger than the limit."),
    429: ("Slow down", "Too many requests in a short time. Please wait a minute, then try again."),
    500: ("Something went wrong", "Something went wrong on our side. Please try again."),
}


def register(app: Flask) -> None:
    """Install the handler for AppError, HTTP errors and anything unexpected."""
    app.register_error_handler(AppError, handle_error)
    app.register_error_handler(HTTPException, handle_error)
    app.register_error_handler(Exception, handle_error)


def wants_json() -> bool:
    """True for the JSON API and health checks, and for requests that speak JSON."""
    return (
        request.path.startswith("/api/")
        or request.path in JSON_PATHS
        or request.is_json
        or request.accept_mimetypes.best == "application/json"
    )


def describe(error: Exception) -> tuple[int, str, str, str]:
    """The status, title, message and detail to show for an error, never a traceback."""
    if isinstance(error, AppError):
        return error.status, error.title, error.message, error.detail
    if isinstance(error, CSRFError):
        return 400, "This form has expired", "Reload the page and try again.", error.description
    if isinstance(error, HTTPException):
        status = error.code or 500
        title, message = FRIENDLY.get(status, (error.name, error.description or error.name))
        return status, title, message, error.description or message
    title, message = FRIENDLY[500]
    return 500, title, message, message


def public_error(error: Exception, where: str) -> tuple[int, str, str, str]:
    """`describe(error)` as a client may see it: a 5xx is logged `where` it happened, its detail withheld."""
    status, title, message, detail = describe(error)
    if status >= 500:
        if isinstance(error, AppError):
            current_app.logger.warning("%s %s: %s", status, where, detail)
        else:
            current_app.logger.error("Unhandled error %s", where, exc_info=error)
        # A 5xx detail names files, hosts and library errors: the log keeps it, clients get the message.
        detail = message
    return status, title, message, detail


def handle_error(error: Exception):
    """Render `error` for whoever asked: JSON, a fragment (status 200 for htmx) or a page."""
    if isinstance(error, HTTPException) and (error.code is None or error.code < 400):
        return error  # routing redirects travel as HTTPExceptions; let them through
    if current_app.debug and not isinstance(error, AppError | HTTPException):
        raise error  # in debug mode the Werkzeug debugger shows the traceback
    status, title, message, detail = public_error(error, f"on {request.method} {request.path}")
    if wants_json():
        response = jsonify(error=message, detail=detail)
        response.status_code = status
        return response
    retry = _retry_question()
    context = {"status": status, "title": title, "message": message, "retry_question": retry}
    if retry:  # asked again in the same stored conversation
        context["conversation_id"] = request.form.get("conversation", "")
    if is_htmx():
        # htmx swaps only 2xx responses by default; the fragment carries the failure itself.
        return render_template("_error.html", **context), 200
    return render_template("error.html", **context), status


def _retry_question() -> str | None:
    """The question to offer again when asking it failed."""
    if request.endpoint != "chat.ask" or request.method != "POST":
        return None
    try:
        question = request.form.get("question", "").strip()
    except HTTPException:  # the body itself was the problem (too large, too many parts): never read it twice
        return None
    return question or None
