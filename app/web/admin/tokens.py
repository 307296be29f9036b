"""MCP access on the admin page: make a bearer token (shown once), list the tokens, revoke one."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from app.errors import AppError
from app.services import services, settings
from app.store.tokens import IssuedToken
from app.web.admin.access import bp


@bp.get("/mcp")
def mcp_tokens() -> ResponseReturnValue:
    """The tokens, the form to make one, and how to connect."""
    return _page()


@bp.post("/mcp/tokens")
def issue_token() -> ResponseReturnValue:
    """Make a token and show it this once (the response is never cached); a bad label is said on the page."""
    try:
        issued = services().store.tokens.issue(request.form.get("label", ""))
    except AppError as exc:
        return _page(error=exc.message, label=request.form.get("label", ""), status=exc.status)
    return _page(issued=issued, status=201)


@bp.post("/mcp/tokens/<int:token_id>/revoke")
def revoke_token(token_id: int) -> ResponseReturnValue:
    """Revoke a token: the next request that carries it is refused."""
    if services().store.tokens.revoke(token_id):
        flash(f"Revoked token #{token_id}: clients using it are refused from now on.")
    else:
        flash(f"Token #{token_id} was already revoked or does not exist.")
    return redirect(url_for("admin.mcp_tokens"), 303)


def _page(
    issued: IssuedToken | None = None, error: str | None = None, label: str = "", status: int = 200
) -> ResponseReturnValue:
    """The MCP access page."""
    return (
        render_template(
            "admin/mcp.html",
            tokens=services().store.tokens.all(),
            issued=issued,
            error=error,
            label=label,
            rate_limit=settings().ratelimit_mcp,
        ),
        status,
    )
