"""Campus sign-in (OIDC, with Authlib): the provider vouches for a user, a claim puts them in spaces.

Authlib checks the state, exchanges the code, and checks the id token against the provider's JWKS
(signature, issuer, audience, expiry, nonce). A refusal is logged, shown as a page, and stores nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Flask, current_app, redirect, render_template, session, url_for

from app.config import Settings
from app.errors import NotFound
from app.services import services, settings
from app.store.spaces import Identity, SignedIn
from app.web.session import BROWSER_KEY, CSRF_KEY, USER_KEY

log = logging.getLogger(__name__)
bp = Blueprint("signin", __name__)
PROVIDER = "campus"
WELL_KNOWN = "/.well-known/openid-configuration"
REFUSED = "The sign-in could not be verified, so you are not signed in. Please try again."
NO_SPACE = "You are signed in, but your account is not in any course space here. Ask your course's staff."


def register(app: Flask, config: Settings) -> None:
    """Attach the sign-in routes, and the OIDC client when an identity provider is configured."""
    app.register_blueprint(bp)
    if not config.oidc_enabled:
        return
    from authlib.integrations.flask_client import OAuth  # only where sign-in is set up

    issuer = (config.oidc_issuer or "").rstrip("/")
    OAuth(app).register(
        PROVIDER,
        client_id=config.oidc_client_id,
        client_secret=config.oidc_client_secret,
        server_metadata_url=config.oidc_metadata_url or issuer + WELL_KNOWN,
        client_kwargs={"scope": config.oidc_scopes},
    )


def _failures() -> tuple[type[Exception], ...]:
    """What a sign-in that cannot be verified raises: Authlib's and joserfc's errors, HTTP failures, and
    ValueError for a token without the claims we need."""
    from authlib.common.errors import AuthlibBaseError
    from joserfc.errors import JoseError
    from requests import RequestException

    return (AuthlibBaseError, JoseError, RequestException, ValueError)


def _client() -> Any:
    """The registered OIDC client; 404 when no identity provider is configured."""
    if not settings().oidc_enabled:
        raise NotFound("Sign-in is not set up on this deployment.")
    return current_app.extensions["authlib.integrations.flask_client"].create_client(PROVIDER)


def grants(claims: dict[str, Any], config: Settings) -> dict[str, str]:
    """Role by space name from the configured claim's values (staff wins when values give both)."""
    values = claims.get(config.oidc_space_claim)
    if isinstance(values, str):
        values = [values]
    granted: dict[str, str] = {}
    for value in values if isinstance(values, list) else []:
        space, role = config.space_roles.get(str(value), (None, None))
        if space is not None and role is not None and granted.get(space) != "staff":
            granted[space] = role
    return granted


@bp.get("/signin")
def start():
    """Send the browser to the identity provider, with a fresh state and nonce kept in the session."""
    try:
        return _client().authorize_redirect(url_for(".callback", _external=True))
    except _failures() as exc:
        log.warning("sign-in could not start: %s", exc)
        return render_template("signin/refused.html", message=REFUSED), 502


@bp.get("/signin/callback")
def callback():
    """Finish the sign-in: a verified id token signs the user in to their first space, else a refusal."""
    client = _client()
    try:
        token = client.authorize_access_token()
        claims = token.get("userinfo")
        if not claims or not claims.get("sub"):
            raise ValueError("no verified id token")
    except _failures() as exc:
        log.warning("sign-in refused: %s: %s", type(exc).__name__, exc)
        return render_template("signin/refused.html", message=REFUSED), 401
    config = settings()
    identity = Identity(
        issuer=str(claims.get("iss") or config.oidc_issuer),
        subject=str(claims["sub"]),
        name=claims.get("name") if isinstance(claims.get("name"), str) else None,
        email=claims.get("email") if isinstance(claims.get("email"), str) else None,
    )
    signed = services().store.spaces.sign_in(identity, grants(dict(claims), config))
    if not signed.roles:
        log.info("sign-in of a user in no course space")
        return render_template("signin/refused.html", message=NO_SPACE), 403
    _enter(signed)
    return redirect(url_for("chat.index"), 303)


def _enter(signed: SignedIn) -> None:
    """Put the user in the session: their first space (staff spaces first), a fresh CSRF token, and
    conversations owned by the user in that space rather than by the browser."""
    space_id = min(signed.roles, key=lambda space: (signed.roles[space] != "staff", space))
    session.pop(CSRF_KEY, None)
    session[USER_KEY] = {"user": signed.user_id, "space": space_id}
    session[BROWSER_KEY] = f"space{space_id}.user{signed.user_id}"
    session.permanent = True


@bp.post("/signout")
def sign_out():
    """Sign out: forget the user and their conversations' owner id in this browser."""
    for key in (USER_KEY, BROWSER_KEY, CSRF_KEY):
        session.pop(key, None)
    return redirect(url_for("chat.index"), 303)
