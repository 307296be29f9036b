"""Admin sign-in that really ends: bound to the password and to a per-install generation that logout bumps.

The session cookie is signed but lives in the browser, so dropping the flag from one copy of it (logout) or
changing ADMIN_PASSWORD would not stop another copy. Each sign-in therefore carries a proof, a keyed hash of
the password and the install's current session generation (a file in the instance folder, shared by every
worker); a new password or a logout (which writes a new generation) makes every earlier proof wrong.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from pathlib import Path

from flask import current_app, session

from app.config import shared_token
from app.files import write_atomically
from app.library.state import StatePaths
from app.services import settings
from app.web.session import ADMIN_KEY, CSRF_KEY


def _generation_file() -> Path:
    """The file holding the current session generation."""
    return StatePaths.of(settings()).admin_session_generation


def _proof() -> str:
    """The keyed hash that a session signed in under the current password and generation carries."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    generation = shared_token(_generation_file())
    message = f"{generation}\0{settings().admin_password or ''}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def sign_in() -> None:
    """Mark the session signed in until ADMIN_SESSION_HOURS from now, with a fresh CSRF token."""
    session.pop(CSRF_KEY, None)  # a token seen before signing in is not one after it
    session[ADMIN_KEY] = {"until": time.time() + settings().admin_session_hours * 3600, "proof": _proof()}
    session.permanent = True


def signed_in() -> bool:
    """True when the session carries an unexpired sign-in for the current password and generation."""
    state = session.get(ADMIN_KEY)
    if not isinstance(state, dict):
        return False
    until, proof = state.get("until"), state.get("proof")
    if not isinstance(until, int | float) or until <= time.time() or not isinstance(proof, str):
        return False
    return hmac.compare_digest(proof, _proof())


def sign_out(everywhere: bool = True) -> None:
    """Drop this session's sign-in; with `everywhere`, end every other copy and session too."""
    session.pop(ADMIN_KEY, None)
    session.pop(CSRF_KEY, None)
    if everywhere:
        write_atomically(_generation_file(), secrets.token_hex(16))
