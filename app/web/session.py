"""Everything this app keeps in Flask's signed session cookie: every key, and the one budget they share.

The cookie lives in the browser and goes with every request, so all of it counts against one size limit;
the conversation history (the only part that grows) is trimmed to keep the whole cookie under the budget.
"""

from __future__ import annotations

import secrets

from flask import current_app, session
from werkzeug.http import dump_cookie

HISTORY_KEY = "chat"  # the model's memory of the conversation: chat/history.py
# The stored conversation that memory belongs to (absent: the cookie-only conversation): chat/history.py
MEMORY_OF_KEY = "chat_of"
# A random id that owns this browser's stored conversations; signed with the cookie, so it cannot be forged.
BROWSER_KEY = "browser"
BROWSER_ID_BYTES = 18  # 144 random bits, 24 characters
TURN_KEY = "chat_turn"  # exchanges committed so far, which spends old commit tokens: chat/tokens.py
THEME_KEY = "theme"  # auto, light or dark: templating.py and the chat's theme switch
ADMIN_KEY = "admin"  # the admin sign-in and its proof: admin/auth.py
USER_KEY = "user"  # a course space member's user id and space id: viewer.py, signin.py
SIGNIN_KEY = "signin"  # an OIDC sign-in under way (state, nonce): signin.py
# Flask-WTF keeps the raw CSRF token under this key; dropping it makes the next form get a new one.
CSRF_KEY = "csrf_token"
# Flask's flash() keeps the admin's notices under "_flashes" until the next page shows them.

# Browsers drop cookies over 4,096 bytes; stay clearly below, measured on the whole Set-Cookie value.
COOKIE_BUDGET = 4000


def cookie_size() -> int:
    """The byte length of the Set-Cookie value the current session would produce."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # the proxy's real app
    interface = app.session_interface
    value = interface.get_signing_serializer(app).dumps(dict(session))
    header = dump_cookie(
        interface.get_cookie_name(app),
        value,
        expires=interface.get_expiration_time(app, session),
        path=interface.get_cookie_path(app),
        domain=interface.get_cookie_domain(app),
        secure=interface.get_cookie_secure(app),
        httponly=interface.get_cookie_httponly(app),
        samesite=interface.get_cookie_samesite(app),
        partitioned=interface.get_cookie_partitioned(app),
        max_size=0,  # measuring oversized candidates is the point; no warning for them
    )
    return len(header.encode("latin-1"))


def fits() -> bool:
    """True when the current session's cookie is within the budget."""
    return cookie_size() < COOKIE_BUDGET


def browser_id(create: bool = True) -> str | None:
    """This browser's id (made on first use when `create`); None when it has none and none is made."""
    value = session.get(BROWSER_KEY)
    if isinstance(value, str) and value:
        return value
    if not create:
        return None
    value = secrets.token_urlsafe(BROWSER_ID_BYTES)
    session[BROWSER_KEY] = value
    session.permanent = True
    return value
