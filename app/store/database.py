"""The engine and sessions: SQLite tuned for short answers-path writes, PostgreSQL with bounded waits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

# Seconds: a database that does not answer must not hold a student's answer for long.
CONNECT_TIMEOUT = 3
SQLITE_BUSY_MS = 5000
IMMEDIATE = "store_immediate"


class Database:
    """One engine per process, with read and write sessions."""

    def __init__(self, url: str):
        self.url = make_url(url)
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        self.engine = self._sqlite_engine() if self.is_sqlite else self._server_engine()
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        # On SQLite a write takes the write lock at BEGIN, so it never fails upgrading a read lock.
        self._writer = self.engine.execution_options(**{IMMEDIATE: True})
        self._write = sessionmaker(self._writer, expire_on_commit=False)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    def _sqlite_engine(self) -> Engine:
        """A SQLite file in WAL mode: readers never wait for the writer, and commits skip most fsyncs."""
        if self.url.database and self.url.database != ":memory:":
            Path(self.url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(self.url, connect_args={"timeout": SQLITE_BUSY_MS / 1000})

        @event.listens_for(engine, "connect")
        def _on_connect(connection: Any, _record: Any) -> None:
            connection.isolation_level = None  # we issue BEGIN ourselves, below
            cursor = connection.cursor()
            for pragma in (
                "journal_mode=WAL",
                "synchronous=NORMAL",
                "foreign_keys=ON",
                f"busy_timeout={SQLITE_BUSY_MS}",
            ):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            immediate = connection.get_execution_options().get(IMMEDIATE)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def _server_engine(self) -> Engine:
        """PostgreSQL with bounded waits; a dropped connection renews the pool, and soft() retries once."""
        return create_engine(
            self.url,
            pool_size=5,
            max_overflow=10,
            pool_timeout=CONNECT_TIMEOUT,
            # Records need not wait for the disk: a server crash may lose the last few, never corrupt any.
            connect_args={"connect_timeout": CONNECT_TIMEOUT, "options": "-c synchronous_commit=off"},
        )

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for reads; nothing is committed."""
        with self._read() as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A session committed at the end of the block, rolled back on an error."""
        with self._write() as session, session.begin():
            yield session

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A Core connection in a write transaction: the answer path's writes, without the ORM's cost."""
        with self._writer.begin() as connection:
            yield connection

    @contextmanager
    def statements(self) -> Iterator[Connection]:
        """A connection whose statements each commit alone: the answer path's writes, one round trip each.

        Every answer-path write is a statement (or a sequence) that leaves consistent data at any point, so
        PostgreSQL runs them without BEGIN and COMMIT round trips; SQLite, in process, wraps them in one.
        """
        if self.is_sqlite:
            with self.transaction() as connection:
                yield connection
        else:
            with self._autocommit.connect() as connection:
                yield connection

    def ping(self) -> bool:
        """True when the database answers a trivial query."""
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception:  # any driver error means "not ready", which is all /readyz needs
            return False
        return True

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
