"""Started without `flask db upgrade`: the embedded SQLite database migrates itself, once, under a lock, in
each worker (never the gunicorn master); a PostgreSQL schema that is behind is reported, never migrated."""

from __future__ import annotations

import http.cookiejar
import logging
import re
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest
from sqlalchemy import inspect, text

from app import create_app
from app.store import migrate, revisions
from app.store.store import Store
from tests.conftest import make_config
from tests.servers import ROOT, ServerProcess, answers, free_port

BEHIND = "database schema is behind: run flask db upgrade"


@pytest.fixture
def fresh_app(tmp_path, library, docs_dir):
    """Build an app over the indexed library whose embedded database was never migrated."""
    import shutil

    shutil.copytree(library / "instance" / "chroma", tmp_path / "instance" / "chroma")
    apps = []

    def build(**overrides):
        app = create_app(make_config(tmp_path, docs_dir, **overrides))
        app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.extensions["services"].store.close()


def tables(url: str) -> set[str]:
    """The tables a database holds."""
    store = Store(url)
    try:
        return set(inspect(store.db.engine).get_table_names())
    finally:
        store.close()


def test_the_app_factory_opens_no_database(fresh_app, tmp_path):
    app = fresh_app()
    assert "store" not in app.extensions["services"]._built  # a gunicorn master builds the app, never this
    assert not (tmp_path / "instance" / "assistant.sqlite3").exists()


def test_a_fresh_embedded_database_is_migrated_on_first_use_and_stores_the_first_conversation(fresh_app):
    app = fresh_app()
    client = app.test_client()

    asked = client.post("/ask", data={"question": "What is a fixture?"})

    assert asked.status_code == 303 and asked.headers["Location"].startswith("/c/")
    store = app.extensions["services"].store
    assert store.is_current()
    with store.db.engine.connect() as connection:
        assert connection.execute(text("SELECT question FROM exchanges")).scalars().all() == [
            "What is a fixture?"
        ]
    assert client.get("/readyz").get_json()["status"] == "ready"


def test_several_workers_starting_together_migrate_the_embedded_database_once(tmp_path):
    database = tmp_path / "shared.sqlite3"
    script = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO)\n"
        "from app.store.store import Store\n"
        "from app.store import schema\n"
        "store = Store(sys.argv[1])\n"
        "schema.prepare(store)\n"
        "print(store.is_current())\n"
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, f"sqlite:///{database}"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [worker.communicate(timeout=120) for worker in workers]

    assert [out.strip() for out, _ in results] == ["True"] * 4, results
    assert sum("migrated the embedded database" in err for _, err in results) == 1, results
    store = Store(f"sqlite:///{database}")
    try:
        assert migrate.current(store.db) == migrate.head()
    finally:
        store.close()


def test_a_worker_on_a_current_database_checks_it_without_loading_alembic(tmp_path):
    url = f"sqlite:///{tmp_path / 'current.sqlite3'}"
    store = Store(url)
    store.upgrade()
    assert revisions.shipped_heads() == {migrate.head()}
    assert revisions.database_revisions(store.db) == {migrate.current(store.db)}
    store.close()
    script = (
        "import sys\n"
        "from app.store.store import Store\n"
        "store = Store(sys.argv[1]).prepared()\n"
        "print(store.schema_current(), any(name.startswith('alembic') for name in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, url], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.split() == ["True", "False"], result.stderr


def test_a_postgresql_schema_behind_is_reported_once_and_by_readyz_never_migrated(
    fresh_app, postgres, caplog
):
    url = postgres.create_database("behind_at_start")
    app = fresh_app(DATABASE_URL=url)
    client = app.test_client()

    with caplog.at_level(logging.WARNING):
        ready = client.get("/readyz")
        for _ in range(3):
            client.post("/api/query", json={"query": "What is a fixture?"})
            client.get("/readyz")

    assert ready.status_code == 503 and BEHIND in ready.get_json()["error"]
    said = [record for record in caplog.records if record.name == "app.store.schema"]
    assert len(said) == 1 and BEHIND in said[0].getMessage()
    assert tables(url) == set()  # an operator's database is migrated by the operator

    app.extensions["services"].store.upgrade()
    assert client.get("/readyz").get_json()["status"] == "ready"


def test_flask_run_on_a_fresh_instance_stores_its_first_conversation(tmp_path, library, docs_dir):
    import os
    import shutil

    shutil.copytree(library / "instance" / "chroma", tmp_path / "instance" / "chroma")
    port = free_port()
    env = {
        **os.environ,
        **{key: str(value) for key, value in make_config(tmp_path, docs_dir).items() if value is not None},
        "RATELIMIT_ENABLED": "false",
    }
    server = ServerProcess(
        [sys.executable, "-m", "flask", "--app", "wsgi", "run", "--port", str(port), "--no-reload"],
        tmp_path / "flask-run",
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        server.wait_until(lambda: answers(f"{base}/healthz"), "flask run answering")
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = opener.open(f"{base}/", timeout=60).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
        form = urllib.parse.urlencode({"question": "What is a fixture?", "csrf_token": token}).encode()
        landed = opener.open(f"{base}/ask", data=form, timeout=120)
        assert "/c/" in landed.url
        assert "What is a fixture?" in landed.read().decode()
    finally:
        server.stop()
    assert "no such table" not in server.output()
