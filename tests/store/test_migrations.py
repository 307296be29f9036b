"""The packaged migrations build the schema from nothing, on SQLite and PostgreSQL, and rerun harmlessly."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from app.store import migrate
from app.store.models import Base
from app.store.store import Store
from tests.servers import flask_command


@pytest.fixture
def docs(tmp_path):
    """An empty documents folder: these commands never index."""
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


TABLES = {
    "conversations",
    "exchanges",
    "pending_questions",
    "feedback",
    "question_log",
    "question_lessons",
    "eval_cases",
    "answer_runs",
    "answer_run_events",
    "mcp_tokens",
    "spaces",
    "space_courses",
    "users",
    "space_members",
}


def test_an_empty_database_is_migrated_to_the_newest_schema(database_url):
    store = Store(database_url)
    try:
        assert migrate.current(store.db) is None
        assert not store.is_current()

        store.upgrade()

        assert store.is_current()
        assert set(inspect(store.db.engine).get_table_names()) == TABLES | {"alembic_version"}
        store.upgrade()  # a second start changes nothing
        assert migrate.current(store.db) == migrate.head()
    finally:
        store.close()


def test_the_migrations_build_what_the_models_describe(database_url):
    store = Store(database_url)
    try:
        store.upgrade()
        inspector = inspect(store.db.engine)
        for table in Base.metadata.sorted_tables:
            built = {column["name"] for column in inspector.get_columns(table.name)}
            assert built == set(table.columns.keys()), table.name
    finally:
        store.close()


def test_flask_db_upgrade_migrates_the_database_url(tmp_path, database_url, docs):
    result = flask_command(tmp_path, docs, "db", "upgrade", DATABASE_URL=database_url)

    assert result.returncode == 0, result.stderr
    assert f"revision {migrate.head()}" in result.stdout
    assert flask_command(tmp_path, docs, "db", "current", DATABASE_URL=database_url).returncode == 0


def test_flask_db_upgrade_without_a_database_url_makes_the_sqlite_file_in_the_instance(tmp_path, docs):
    result = flask_command(tmp_path, docs, "db", "upgrade")

    assert result.returncode == 0, result.stderr
    assert (tmp_path / "instance" / "assistant.sqlite3").is_file()


def test_an_unreachable_database_is_one_line_and_exit_1(tmp_path, docs):
    from tests.servers import free_port

    url = f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none"
    result = flask_command(tmp_path, docs, "db", "upgrade", DATABASE_URL=url)

    assert result.returncode == 1
    assert result.stderr.startswith("Error: the database cannot be migrated:")
    assert "Traceback" not in result.stderr


def test_flask_db_purge_deletes_what_the_retention_period_has_passed(tmp_path, database_url, docs):
    from datetime import timedelta

    from sqlalchemy import update

    from app.store.models import Conversation, now

    store = Store(database_url)
    try:
        store.upgrade()
        old = store.conversations.ask("browser", "Old")
        store.conversations.ask("browser", "New")
        with store.db.writing() as session:
            session.execute(
                update(Conversation)
                .where(Conversation.id == old.conversation_id)
                .values(updated_at=now() - timedelta(days=31))
            )

        result = flask_command(
            tmp_path, docs, "db", "purge", DATABASE_URL=database_url, CONVERSATION_RETENTION_DAYS="30"
        )

        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("Purged 1 conversations")
        assert [c.title for c in store.conversations.recent("browser")] == ["New"]
    finally:
        store.close()
