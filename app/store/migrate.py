"""Schema migrations, shipped in the package and run in code: `flask --app wsgi db upgrade`, `make run`."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from app.store.database import IMMEDIATE, Database

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Any constant: PostgreSQL's advisory lock, so hosts starting together migrate one at a time.
LOCK_KEY = 18_2026


def _config() -> Config:
    """An Alembic config pointing at the packaged migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head() -> str | None:
    """The newest revision the package ships."""
    return ScriptDirectory.from_config(_config()).get_current_head()


def current(db: Database) -> str | None:
    """The revision the database is at (None: never migrated)."""
    with db.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(db: Database, revision: str = "head") -> None:
    """Migrate the database to `revision`, one process at a time, in one transaction."""
    config = _config()
    with db.engine.connect().execution_options(**{IMMEDIATE: True}) as connection, connection.begin():
        if not db.is_sqlite:
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
