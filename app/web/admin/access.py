"""Who gets into the admin: the blueprint's gate (admin on, body size, signed in) and signing in and out."""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import RequestEntityTooLarge

from app.errors import NotFound, PayloadTooLarge, Unauthorized
from app.extensions import limiter
from app.services import settings
from app.web.admin.auth import forget_stale_sign_in, sign_in, sign_out, signed_in
from app.web.errors import handle_error, wants_json
from app.web.htmx import client_redirect, is_htmx
from app.web.redirects import safe_local_path
from app.web.uploads import megabytes

bp = Blueprint("admin", __name__, url_prefix="/admin")

PUBLIC_ENDPOINTS = {"admin.login", "admin.logout"}


class AdminDisabled(NotFound):
    """The admin is off because ADMIN_PASSWORD is not set."""

    title = "The admin page is off"


@bp.url_value_preprocessor
def _gate(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Answer 404 while the admin is off, and 413 for an oversized body, before the CSRF check reads it."""
    # URL value preprocessors run before every before_request hook, the app-wide CSRF check included.
    config = settings()
    if not config.admin_password:
        raise AdminDisabled(
            "The admin page is turned off. Set ADMIN_PASSWORD in the environment (or .env), then restart."
        )
    limit = config.max_upload_bytes
    if limit and request.content_length and request.content_length > limit:
        raise PayloadTooLarge(
            f"The upload is larger than the {megabytes(limit)} limit (MAX_UPLOAD_MB). "
            "Upload fewer or smaller files."
        )


@bp.errorhandler(AdminDisabled)
def _disabled(error: AdminDisabled):
    """Explain how to turn the admin on (JSON for JSON clients)."""
    if wants_json():
        return jsonify(error=error.message, detail=error.detail), 404
    return render_template("admin/disabled.html", message=error.message), 404


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge):
    """Say what the limit is when a body without a declared length runs over it."""
    return handle_error(
        PayloadTooLarge(f"The upload is larger than the {megabytes(settings().max_upload_bytes)} limit.")
    )


@bp.before_request
def _require_login() -> ResponseReturnValue | None:
    """Send anyone not signed in to the login page (401 for JSON and htmx requests)."""
    if request.endpoint in PUBLIC_ENDPOINTS or signed_in():
        return None
    # Only a real sign-out rotates the CSRF token: a visitor who just opened /admin keeps their chat working.
    forget_stale_sign_in()
    login = url_for("admin.login", next=_next_target())
    if is_htmx():
        return client_redirect(login, "Sign in to continue.", 401)
    if wants_json():
        raise Unauthorized("Sign in to the admin page first.")
    return redirect(login, 302 if request.method == "GET" else 303)


def _next_target() -> str:
    """Where to come back to after signing in: this page for a GET, the admin page otherwise."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    return url_for("admin.index")


def _safe_next(target: str | None) -> str:
    """A local admin path to go to after signing in; anything else goes to the admin page."""
    return safe_local_path(target, url_for("admin.index"), prefix="/admin")


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(
    lambda: settings().ratelimit_login,
    methods=["POST"],
    error_message="Too many sign-in attempts. Wait a minute, then try again.",
)
def login():
    """Show the sign-in form; check the password in constant time and set the session flag."""
    target = _safe_next(request.values.get("next"))
    if request.method == "GET":
        if signed_in():
            return redirect(target, 303)
        return render_template("admin/login.html", next=target, error=None)
    password = request.form.get("password", "")
    expected = settings().admin_password or ""
    if not hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8")):
        return render_template("admin/login.html", next=target, error="Wrong password."), 401
    sign_in()
    return redirect(target, 303)


@bp.post("/logout")
def logout():
    """Sign out here and end every other admin session (a copied cookie too), then show the sign-in page."""
    sign_out()
    return redirect(url_for("admin.login"), 303)
