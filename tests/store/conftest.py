"""A store on each database the app supports: a SQLite file, and a real PostgreSQL server on loopback."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest

from app.store.store import Store
from tests.servers import PostgresServer, start_postgres

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres(tmp_path_factory) -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session; each test gets its own database on it."""
    server = start_postgres(tmp_path_factory.mktemp("postgres"))
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    """The URL of an empty database: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database(f"test_{next(_databases)}")


@pytest.fixture
def make_store(database_url) -> Iterator[Callable[..., Store]]:
    """Build migrated stores on the test's database (several: as several workers or hosts would)."""
    stores: list[Store] = []

    def make(**options) -> Store:
        store = Store(database_url, **options)
        if not stores:
            store.upgrade()
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def store(make_store) -> Store:
    """A migrated store that keeps conversations."""
    return make_store()
