"""The MCP server's bearer tokens: made on the admin page, shown once, kept only as their SHA-256."""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError

from app.errors import BadRequest
from app.store.database import Database
from app.store.models import LABEL_CHARS, McpToken, now
from app.store.soft import describe, hard

log = logging.getLogger(__name__)

# Says what a leaked string is (to a person or a secret scanner); the 256 random bits after it are the secret.
TOKEN_PREFIX = "camcp_"
# How stale a token's "last used" may get before a request writes it again: one write a minute at most.
TOUCH_INTERVAL = timedelta(minutes=1)


def token_digest(token: str) -> str:
    """The SHA-256 of a token in hex: what the database keeps, and what requests are counted under."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class TokenRecord:
    """A token as the admin page lists it: never the token itself."""

    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        """Whether the token still opens the MCP server."""
        return self.revoked_at is None


@dataclass(frozen=True)
class IssuedToken:
    """A token just made: the only time its secret exists outside the client that will hold it."""

    record: TokenRecord
    secret: str


def _record(row: McpToken) -> TokenRecord:
    """The plain record of a row."""
    return TokenRecord(row.id, row.label, row.created_at, row.last_used_at, row.revoked_at)


class AccessTokens:
    """Make, list, check and revoke the MCP server's bearer tokens."""

    def __init__(self, db: Database):
        self.db = db

    @hard
    def issue(self, label: str) -> IssuedToken:
        """Make a token labelled for whom it is for; the secret is returned here and never stored."""
        label = " ".join(label.split())
        if not label:
            raise BadRequest("Give the token a label, such as who or what will use it.")
        if len(label) > LABEL_CHARS:
            raise BadRequest(f"A label holds at most {LABEL_CHARS} characters.")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self.db.writing() as session:
            row = McpToken(label=label, digest=token_digest(secret), created_at=now())
            session.add(row)
            session.flush()
            return IssuedToken(_record(row), secret)

    @hard
    def all(self) -> list[TokenRecord]:
        """Every token, newest first, revoked ones included (they say when they were revoked)."""
        with self.db.reading() as session:
            rows = session.scalars(select(McpToken).order_by(McpToken.id.desc()))
            return [_record(row) for row in rows]

    @hard
    def revoke(self, token_id: int) -> bool:
        """Revoke a token for good; False when there is no such token or it was already revoked."""
        with self.db.writing() as session:
            result = session.execute(
                update(McpToken)
                .where(McpToken.id == token_id, McpToken.revoked_at.is_(None))
                .values(revoked_at=now())
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    @hard
    def check(self, token: str) -> TokenRecord | None:
        """The active token this secret is, noting that it was used; None for any other string."""
        digest = token_digest(token)
        with self.db.reading() as session:
            row = session.scalar(select(McpToken).where(McpToken.digest == digest))
            if row is None or row.revoked_at is not None:
                return None
            record = _record(row)
        moment = now()
        if record.last_used_at is None or moment - record.last_used_at > TOUCH_INTERVAL:
            self._note_use(record.id, moment)
        return record

    def _note_use(self, token_id: int, moment: datetime) -> None:
        """Write when a token was last used; a database that takes reads but not writes costs only that."""
        try:
            with self.db.writing() as session:
                session.execute(update(McpToken).where(McpToken.id == token_id).values(last_used_at=moment))
        except SQLAlchemyError as exc:
            log.warning("could not note an MCP token's use: %s", describe(exc))
