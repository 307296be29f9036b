"""Signed tokens for a streamed answer: the question for the stream, the finished exchange for the commit.

Both are signed with the app's SECRET_KEY, so any gunicorn worker can check them: no server-side store.
The commit token names the turn it belongs to; committing moves the session's turn on, so the same token
(or a copy of it) is refused the second time.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, session
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.assistant.base import Exchange
from app.web.exchanges import decode_exchanges, encode_exchanges
from app.web.session import TURN_KEY

ASK_SALT = "chat-ask-stream"
COMMIT_SALT = "chat-commit"
# The page opens the stream right after the question was posted; a stale link asks nothing.
ASK_MAX_AGE = 120
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


def ask_token(question: str) -> str:
    """A token carrying the question to the stream, so the question never sits in a URL as text."""
    return _serializer(ASK_SALT).dumps({"q": question, "t": current_turn()})


def read_ask_token(token: str) -> str:
    """The question of an ask token; raises TokenRefused when it is bad, expired or from another turn."""
    data = _loads(ASK_SALT, token, ASK_MAX_AGE)
    question = data.get("q") if isinstance(data, dict) else None
    if not isinstance(question, str) or data.get("t") != current_turn():
        raise TokenRefused("not an ask token for this conversation")
    return question


def commit_token(exchange: Exchange, turn: int) -> str:
    """A token carrying the finished exchange for the commit request that follows the stream."""
    return _serializer(COMMIT_SALT).dumps({"x": encode_exchanges([exchange])[0], "t": turn})


def read_commit_token(token: Any) -> Exchange:
    """The exchange of a commit token for the current turn; raises TokenRefused otherwise (e.g. replayed)."""
    if not isinstance(token, str) or not token:
        raise TokenRefused("no token")
    data = _loads(COMMIT_SALT, token, COMMIT_MAX_AGE)
    if not isinstance(data, dict) or data.get("t") != current_turn():
        raise TokenRefused("this exchange was already saved, or belongs to another turn")
    try:
        return decode_exchanges([data.get("x")])[0]
    except ValueError as exc:
        raise TokenRefused("not an exchange") from exc


def _loads(salt: str, token: str, max_age: int) -> Any:
    """The signed payload, or TokenRefused (expiry is a bad signature too: itsdangerous says why)."""
    try:
        return _serializer(salt).loads(token, max_age=max_age)
    except BadSignature as exc:
        raise TokenRefused(str(exc)) from exc
