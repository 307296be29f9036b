"""`flask --app wsgi db upgrade | current | purge`: the schema and the retention purge."""

from __future__ import annotations

import sys
import time

import click
from flask.cli import AppGroup

from app.services import services, settings
from app.store.soft import describe
from app.store.store import Store

# Between attempts while the database is still starting (a container beside the app's).
RETRY_SECONDS = 1.0

db_group = AppGroup("db", help="The database: migrate its schema, purge old records.")


def _unprepared() -> Store:
    """The store as the database is: these commands report and migrate it themselves."""
    return Store.from_settings(settings())


@db_group.command("upgrade")
@click.option(
    "--wait", default=0.0, show_default=True, help="Seconds to keep trying while the database starts."
)
def upgrade_command(wait: float) -> None:
    """Migrate the database to the newest schema; exit 1 when it cannot be reached."""
    store = _unprepared()
    deadline = time.monotonic() + wait
    while True:
        try:
            store.upgrade()
            break
        except Exception as exc:  # any driver error: say it in one line, retry until the deadline
            if time.monotonic() >= deadline:
                click.echo(f"Error: the database cannot be migrated: {describe(exc)}", err=True)
                sys.exit(1)
            time.sleep(RETRY_SECONDS)
    from app.store import migrate  # alembic loads only for this command, not at every app start

    click.echo(f"Database at revision {migrate.current(store.db)} ({store.db.url.get_backend_name()}).")


@db_group.command("current")
def current_command() -> None:
    """Print the schema revision; exit 1 when it is behind the code's."""
    from app.store import migrate

    store = _unprepared()
    revision = migrate.current(store.db)
    click.echo(f"{revision or 'empty'} (newest {migrate.head()})")
    sys.exit(0 if store.is_current() else 1)


@db_group.command("purge")
def purge_command() -> None:
    """Delete conversations and logged questions older than CONVERSATION_RETENTION_DAYS."""
    store = services().store
    purged = store.purge_expired()
    click.echo(
        f"Purged {purged.conversations} conversations and {purged.questions} logged questions "
        f"older than {store.retention_days} days, and {purged.pending} stale pending questions."
    )
