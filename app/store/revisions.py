"""The schema revisions, read without Alembic (30 MB of imports a serving worker need not carry): the
revision the package ships, from its migration files, and the one a database is at."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from sqlalchemy import inspect, text

from app.store.database import Database

VERSIONS = Path(__file__).resolve().parent / "migrations" / "versions"
VERSION_TABLE = "alembic_version"


def _names(path: Path) -> dict[str, object]:
    """The constants a migration file assigns at its top level (`revision`, `down_revision`)."""
    found: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None:
            try:
                found[target.id] = ast.literal_eval(value)
            except ValueError:
                continue
    return found


@functools.cache
def shipped_heads() -> frozenset[str]:
    """The revisions no other revision builds on: one, unless two branches await a merge."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in VERSIONS.glob("*.py"):
        names = _names(path)
        revision, down = names.get("revision"), names.get("down_revision")
        if isinstance(revision, str):
            revisions.add(revision)
            parents.update([down] if isinstance(down, str) else list(down) if isinstance(down, tuple) else [])
    return frozenset(revisions - parents)


def database_revisions(db: Database) -> frozenset[str]:
    """The revisions the database is at (none: never migrated)."""
    with db.engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return frozenset()
        return frozenset(connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars())


def is_current(db: Database) -> bool:
    """True when the database is at the revision the package ships."""
    return database_revisions(db) == shipped_heads()
