"""The signed token that commits a streamed answer to the cookie's memory (a stream cannot set cookies).

It is signed with the app's SECRET_KEY, so any gunicorn worker can check it. It names the browser, the
conversation and the turn it belongs to; committing moves the session's turn on, so the same token (or a
copy of it) is refused the second time. (The question reaches its stream through the store: pending.py.)
"""

from __future__ import annotations

from typing import Any

from flask import current_app, session
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.assistant.base import Exchange
from app.web.exchanges import decode_exchanges, encode_exchanges
from app.web.session import TURN_KEY

COMMIT_SALT = "chat-commit"
# The commit follows the end of the stream at once; the margin covers a slow network, not a later visit.
COMMIT_MAX_AGE = 300


class TokenRefused(Exception):
    """A token that is forged, tampered with, expired or already used."""


def _serializer(salt: str) -> URLSafeTimedSerializer:
    """A timestamped signer with the app's secret, one salt per purpose so tokens cannot be swapped."""
    return URLSafeTimedSerializer(str(current_app.config["SECRET_KEY"]), salt=salt)


def current_turn() -> int:
    """How many exchanges this browser has committed (never reset, so an old token stays refused)."""
    turn = session.get(TURN_KEY, 0)
    return turn if isinstance(turn, int) and turn >= 0 else 0


def advance_turn() -> None:
    """Mark one more exchange committed: every commit token issued before is spent."""
    session[TURN_KEY] = current_turn() + 1


def commit_token(exchange: Exchange, turn: int, owner: str | None, conversation_id: str | None) -> str:
    """A token carrying the finished exchange for the commit request that follows the stream."""
    payload = {"x": encode_exchanges([exchange])[0], "t": turn, "b": owner, "c": conversation_id}
    return _serializer(COMMIT_SALT).dumps(payload)


def read_commit_token(token: Any, owner: str | None, any_turn: bool = False) -> tuple[Exchange, str | None]:
    """The exchange and conversation of `owner`'s commit token for the current turn (for any turn with
    `any_turn`); raises TokenRefused otherwise (replayed, another browser's, forged)."""
    if not isinstance(token, str) or not token:
        raise TokenRefused("no token")
    data = _loads(COMMIT_SALT, token, COMMIT_MAX_AGE)
    if not isinstance(data, dict) or data.get("b") != owner:
        raise TokenRefused("not this browser's answer")
    if data.get("t") != current_turn() and not any_turn:
        raise TokenRefused("this exchange was already saved, or belongs to another turn")
    conversation = data.get("c")
    try:
        return decode_exchanges([data.get("x")])[0], conversation if isinstance(conversation, str) else None
    except ValueError as exc:
        raise TokenRefused("not an exchange") from exc


def _loads(salt: str, token: str, max_age: int) -> Any:
    """The signed payload, or TokenRefused (expiry is a bad signature too: itsdangerous says why)."""
    try:
        return _serializer(salt).loads(token, max_age=max_age)
    except BadSignature as exc:
        raise TokenRefused(str(exc)) from exc
