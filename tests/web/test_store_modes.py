"""STORE_CONVERSATIONS=false keeps the cookie-only chat; a database that is down never fails an answer."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from app.assistant.base import Answer, DoneEvent
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.servers import start_postgres
from tests.web.support import HX, ask_streamed, send_enabled, sse_events, stream_url_from

FINAL = Answer(markdown="Fixtures give tests **setup**.[^1]", sources=[FIXTURES_SOURCE])


def scripted(app) -> ScriptedAnswerer:
    """Make `app` answer FINAL to every question."""
    answerer = ScriptedAnswerer([DoneEvent(FINAL)])
    use_answerer(app, answerer)
    return answerer


def count_rows(app, table: str) -> int:
    """How many rows a table of the app's database holds."""
    with app.extensions["services"].store.db.engine.connect() as connection:
        return int(connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_cookie_only_chat_stores_no_conversation(cookie_app, cookie_client):
    answerer = scripted(cookie_app)
    client = cookie_client
    pending = client.post("/ask", data={"question": "Cookie only?"}, headers=HX)
    assert "HX-Push-Url" not in pending.headers
    client.get(stream_url_from(pending.get_data(as_text=True))).get_data()
    plain = client.post("/ask", data={"question": "Plain cookie?"})
    assert plain.headers["Location"] == "/#exchange-1"  # the streamed answer was never committed
    page = client.get("/").get_data(as_text=True)
    assert "Plain cookie?" in page and 'class="conversation-list"' not in page
    assert answerer.questions == ["Cookie only?", "Plain cookie?"]
    assert count_rows(cookie_app, "conversations") == count_rows(cookie_app, "exchanges") == 0
    # The pending question went with its claim.
    assert count_rows(cookie_app, "pending_questions") == 0
    for method, url in (
        ("get", "/conversations"),
        ("get", "/c/anything"),
        ("get", "/c/anything/export.md"),
        ("post", "/c/anything/rename"),
        ("post", "/c/anything/delete"),
        ("post", "/feedback/1"),
    ):
        assert getattr(client, method)(url).status_code == 404


def test_a_stream_is_claimed_once_without_stored_conversations_too(cookie_app, cookie_client):
    answerer = scripted(cookie_app)
    url = stream_url_from(
        cookie_client.post("/ask", data={"question": "Once?"}, headers=HX).get_data(as_text=True)
    )
    for _ in range(3):
        cookie_client.get(url).get_data()
    assert answerer.questions == ["Once?"]


def assert_answers_without_the_database(app) -> None:
    """Every way of asking still answers, and the pages say what is missing."""
    answerer = scripted(app)
    client = app.test_client()
    # htmx: no stream to hand the question to, so the answer comes at once, remembered in the cookie.
    inline = client.post("/ask", data={"question": "Down one?"}, headers=HX)
    html = inline.get_data(as_text=True)
    assert inline.status_code == 200 and "sse-connect" not in html and "<strong>setup</strong>" in html
    assert "HX-Push-Url" not in inline.headers
    # Without JavaScript: answered and shown in the cookie's conversation.
    plain = client.post("/ask", data={"question": "Down two?"})
    assert plain.status_code == 303 and plain.headers["Location"] == "/#exchange-2"
    page = client.get("/").get_data(as_text=True)
    assert "Down one?" in page and "Down two?" in page
    assert [exchange.question for exchange in answerer.histories[1]] == ["Down one?"]
    # The API answers too.
    assert client.post("/api/query", json={"query": "Down three?"}).status_code == 200
    # Stored conversations cannot be read: said plainly, never a traceback.
    listing = client.get("/conversations")
    assert listing.status_code == 503 and "Saved conversations" in listing.get_data(as_text=True)
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["database"] == "down"


def test_an_unwritable_sqlite_database_never_fails_an_answer(make_app, tmp_path):
    # A file that is a folder: SQLite cannot open it, whoever runs the tests (root writes anywhere).
    (tmp_path / "not-a-file.sqlite3").mkdir()
    app = make_app(DATABASE_URL=f"sqlite:///{tmp_path / 'not-a-file.sqlite3'}")
    app.config["WTF_CSRF_ENABLED"] = False
    assert_answers_without_the_database(app)


@pytest.fixture
def stopped_postgres(tmp_path):
    """The URL of a migrated PostgreSQL database whose server has been stopped."""
    server = start_postgres(tmp_path)
    try:
        url = server.create_database("gone")
    finally:
        server.stop()
    return url


def test_a_stopped_postgresql_never_fails_an_answer(make_app, stopped_postgres):
    app = make_app(DATABASE_URL=stopped_postgres)
    app.config["WTF_CSRF_ENABLED"] = False
    assert_answers_without_the_database(app)


def test_postgresql_killed_mid_conversation_fails_no_answer(make_app, tmp_path):
    server = start_postgres(tmp_path)
    try:
        app = make_app(DATABASE_URL=server.create_database("live"))
        app.config["WTF_CSRF_ENABLED"] = False
        app.extensions["services"].store.upgrade()
        scripted(app)
        client = app.test_client()
        ask_streamed(client, "Stored before?")
        pending = client.post(
            "/ask", data={"question": "Held before?", "conversation": client.conversation}, headers=HX
        )
        url = stream_url_from(pending.get_data(as_text=True))
    finally:
        server.stop()
    # The answer was under way before the database went: it still arrives, never an error.
    name, data = sse_events(client.get(url).get_data(as_text=True))[-1]
    assert name == "done" and "<strong>setup</strong>" in data and send_enabled(data)
    after = client.post("/ask", data={"question": "After?", "conversation": client.conversation}, headers=HX)
    assert after.status_code == 200 and "<strong>setup</strong>" in after.get_data(as_text=True)
    app.extensions["services"].store.close()
