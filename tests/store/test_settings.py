"""The database settings: SQLite in the instance folder by default, PostgreSQL by URL, bad URLs refused."""

from __future__ import annotations

import pytest

from app.config import ConfigError, load_settings
from app.store.store import Store


def test_without_a_database_url_the_database_is_a_file_in_the_instance(tmp_path):
    settings = load_settings({"INSTANCE_PATH": str(tmp_path / "instance")})
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'instance' / 'assistant.sqlite3'}"
    assert (settings.store_conversations, settings.conversation_retention_days) == (True, 90)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
def test_a_postgresql_url_uses_psycopg_3(scheme):
    settings = load_settings({"DATABASE_URL": f"{scheme}://app:pw@db:5432/assistant"})
    assert settings.resolved_database_url == "postgresql+psycopg://app:pw@db:5432/assistant"


def test_the_store_follows_the_settings(tmp_path):
    settings = load_settings(
        {"INSTANCE_PATH": str(tmp_path), "STORE_CONVERSATIONS": "false", "CONVERSATION_RETENTION_DAYS": "30"}
    )
    store = Store.from_settings(settings)
    try:
        assert (store.store_conversations, store.retention_days) == (False, 30)
        assert store.db.is_sqlite
    finally:
        store.close()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DATABASE_URL", "mysql://root:hunter2@db/app"),
        ("DATABASE_URL", "sqlite://"),
        ("CONVERSATION_RETENTION_DAYS", "0"),
        ("STORE_CONVERSATIONS", "perhaps"),
    ],
)
def test_a_bad_database_setting_stops_the_app_in_one_line_without_the_password(name, value):
    with pytest.raises(ConfigError) as caught:
        load_settings({name: value})
    assert str(caught.value).startswith(f"Invalid setting {name}:")
    assert "hunter2" not in str(caught.value)


def test_the_app_builds_one_store_per_process_lazily(tmp_path):
    from app import create_app

    app = create_app({"SECRET_KEY": "test", "INSTANCE_PATH": str(tmp_path / "instance")})
    services = app.extensions["services"]
    assert "store" not in services._built  # nothing opened at start, nor in a gunicorn master

    store = services.store

    assert store is services.store and isinstance(store, Store)
    assert store.db.url.database == str(tmp_path / "instance" / "assistant.sqlite3")
    store.close()
