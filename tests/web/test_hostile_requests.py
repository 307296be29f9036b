"""Hostile requests get a clear 4xx and lose nothing, on SQLite and PostgreSQL alike: control characters,
ids past 32 bits, dates at the calendar's end, and no process ids in the admin's JSON."""

from __future__ import annotations

import itertools
import json

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import text

from app.store.soft import OPERATIONS
from tests.web.admin_helpers import PASSWORD, Admin

METRIC = "course_assistant_store_errors_total"
_databases = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_app(request, make_app):
    """An app with the admin on and CSRF off, its records in SQLite or in PostgreSQL on loopback."""
    if request.param == "sqlite":
        app = make_app(ADMIN_PASSWORD=PASSWORD)
    else:
        url = request.getfixturevalue("postgres").create_database(f"hostile_{next(_databases)}")
        app = make_app(ADMIN_PASSWORD=PASSWORD, DATABASE_URL=url)
        app.extensions["services"].store.upgrade()
    app.config["WTF_CSRF_ENABLED"] = False
    yield app
    app.extensions["services"].store.close()


def store_errors() -> dict[str, float]:
    """The store error counter of every operation."""
    return {op: REGISTRY.get_sample_value(METRIC, {"operation": op}) or 0.0 for op in OPERATIONS}


def column(app, sql: str) -> list:
    """One column of a query on the app's database."""
    with app.extensions["services"].store.db.engine.connect() as connection:
        return list(connection.execute(text(sql)).scalars())


def test_a_question_with_nul_is_answered_logged_and_stored_without_it(any_db_app):
    client = any_db_app.test_client()
    before = store_errors()
    answered = client.post("/api/query", json={"query": "What is a\x00 fixture?\x1b"})
    asked = client.post("/ask", data={"question": "Why use\x00 fixtures?"})

    assert answered.status_code == 200 and asked.status_code == 303
    assert set(column(any_db_app, "SELECT question FROM question_log")) == {
        "What is a fixture?",
        "Why use fixtures?",
    }
    assert column(any_db_app, "SELECT question FROM exchanges") == ["Why use fixtures?"]
    assert store_errors() == before


def test_a_down_vote_comment_with_nul_is_kept_without_it(any_db_app):
    client = any_db_app.test_client()
    client.post("/ask", data={"question": "Which fixture scope?"})
    [exchange_id] = column(any_db_app, "SELECT id FROM exchanges")
    before = store_errors()

    voted = client.post(f"/feedback/{exchange_id}", data={"vote": "down", "comment": "too\x00 vague"})

    assert voted.status_code == 303
    assert column(any_db_app, "SELECT comment FROM feedback") == ["too vague"]
    assert store_errors() == before


@pytest.mark.parametrize("exchange_id", [2**31, 2**63, 2**80])
def test_an_exchange_id_past_32_bits_is_404(any_db_app, exchange_id):
    client = any_db_app.test_client()
    client.post("/ask", data={"question": "Which fixture scope?"})  # the browser owns a conversation

    assert client.post(f"/feedback/{exchange_id}", data={"vote": "up"}).status_code == 404


@pytest.mark.parametrize("case_id", [2**31, 2**63, 2**80])
def test_a_test_case_id_past_32_bits_is_404(any_db_app, case_id):
    admin = Admin(any_db_app)
    admin.login()
    assert admin.post(f"/admin/playground/cases/{case_id}/delete").status_code == 404


def test_a_gold_lesson_past_32_bits_is_refused(any_db_app):
    admin = Admin(any_db_app)
    admin.login()
    saved = admin.post("/admin/playground/cases", {"question": "Which scope?", "gold": f"{2**40}:Testing"})
    assert saved.status_code == 400
    assert column(any_db_app, "SELECT count(*) FROM eval_cases") == [0]


@pytest.mark.parametrize(
    "period",
    [
        {"from": "9999-12-30", "to": "9999-12-31"},
        {"to": "9999-12-31"},
        {"to": "0001-01-02"},
    ],
)
def test_a_period_at_the_calendars_end_is_a_clear_400(make_app, period):
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    page = admin.client.get("/admin/insights", query_string=period)
    csv = admin.client.get("/admin/insights/questions.csv", query_string=period)

    assert page.status_code == 400 and "date" in page.get_data(as_text=True)
    assert csv.status_code == 400 and "date" in csv.get_data(as_text=True)


def test_the_sync_status_json_names_no_process(make_app):
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    started = admin.post("/admin/sync", headers={"Accept": "application/json"})
    admin.wait_for_job()
    status = admin.client.get("/admin/sync/status", headers={"Accept": "application/json"})

    for response in (started, status):
        body = response.get_json()
        assert body["state"] in {"running", "done"}
        assert "pid" not in json.dumps(body)


def test_control_characters_in_ids_find_nothing_and_count_no_outage(any_db_app):
    client = any_db_app.test_client()
    client.post("/ask", data={"question": "Which fixture scope?"})
    before = store_errors()

    assert client.get("/c/conv\x00ersation").status_code == 404
    assert client.post("/c/conv\x00ersation/rename", data={"title": "New"}).status_code == 404
    streamed = client.get("/ask/stream/pend\x00ing").get_data(as_text=True)
    asked = client.post("/ask", data={"question": "Still answered?", "conversation": "conv\x00ersation"})
    stopped = client.post("/ask/stop/pend\x00ing", data={"conversation": "c\x00", "exchange": "1"})

    assert "event: done" in streamed and asked.status_code == 404 and stopped.status_code == 303
    assert store_errors() == before
