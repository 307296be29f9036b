"""The schema at start: the embedded SQLite database migrates itself; a server's is reported when behind.

An operator who starts the app the way Flask apps start (`flask run`, bare `gunicorn`) without `flask db
upgrade` gets a working embedded database. A shared PostgreSQL is the operator's to migrate (several hosts,
their own release step): a schema that is behind is one log line at start and a 503 from /readyz.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from sqlalchemy.exc import SQLAlchemyError

from app.files import locked
from app.store.database import Database
from app.store.revisions import database_revisions, shipped_heads
from app.store.soft import describe


class Migratable(Protocol):
    """What seeing to the schema reads of the store (`app.store.store.Store`, which calls this module)."""

    db: Database

    def upgrade(self) -> None: ...

    def schema_current(self) -> bool: ...


log = logging.getLogger(__name__)

BEHIND = "The database schema is behind: run flask db upgrade (`flask --app wsgi db upgrade`)."


def prepare(store: Migratable) -> None:
    """Migrate an embedded SQLite database that is behind, or log that a server's schema is behind."""
    try:
        if store.db.is_sqlite:
            _migrate_embedded(store)
        elif not store.schema_current():
            log.error(
                "%s It is at revision %s; this version needs %s.",
                BEHIND,
                _named(database_revisions(store.db)),
                _named(shipped_heads()),
            )
    except SQLAlchemyError as exc:  # unreachable now: /readyz and the soft writes say so as it goes on
        log.warning("the database schema could not be checked: %s", describe(exc))


def _migrate_embedded(store: Migratable) -> None:
    """Migrate the SQLite file once, whichever worker gets there first; the others wait, then find it done."""
    database = store.db.url.database
    if not database or database == ":memory:":
        store.upgrade()
        return
    # A file lock beside the database, so workers starting together wait for one migration.
    with locked(Path(f"{database}.migrate.lock")):
        if store.schema_current():
            return
        before = database_revisions(store.db)
        store.upgrade()
        log.info(
            "migrated the embedded database %s from revision %s to %s",
            database,
            _named(before),
            _named(shipped_heads()),
        )


def _named(revisions: frozenset[str]) -> str:
    """Revisions as a log line names them."""
    return ", ".join(sorted(revisions)) or "none (empty)"
