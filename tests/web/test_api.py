"""The JSON API and health checks: the shapes in ARCHITECTURE.md ("Web"), every error as {error, detail}."""

from __future__ import annotations

import logging
import socket
import time

import pytest
from flask import request

from tests.web.support import script_answer, user_turns


def assert_error(response, status: int) -> dict:
    """The response is a JSON error with this status; return its body."""
    assert response.status_code == status
    body = response.get_json()
    assert set(body) == {"error", "detail"} and body["error"] and body["detail"]
    return body


def test_query_answers_with_sources_citations_and_session(claude_client, fake_claude):
    script_answer(fake_claude, "Cosine similarity measures the angle.")
    response = claude_client.post("/api/query", json={"query": "What is cosine similarity?"})
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"answer", "sources", "citations", "session_id"}
    assert body["answer"] == "Cosine similarity measures the angle."
    assert body["sources"] and all(" – Lesson " in source and ":" not in source for source in body["sources"])
    citation = body["citations"][0]
    assert set(citation) == {"label", "course", "lesson", "lesson_title", "link"}
    assert citation["label"].startswith(f"{citation['course']} – Lesson {citation['lesson']}: ")
    assert citation["link"].startswith("https://example.com/courses/")
    assert body["sources"][0] == f"{citation['course']} – Lesson {citation['lesson']}"
    assert isinstance(body["session_id"], str) and body["session_id"]


def test_session_id_carries_the_conversation(claude_client, fake_claude):
    fake_claude.enqueue_text("First answer.")
    first = claude_client.post("/api/query", json={"query": "First question?"}).get_json()
    fake_claude.enqueue_text("Second answer.")
    claude_client.post("/api/query", json={"query": "Follow-up?", "session_id": first["session_id"]})
    messages = fake_claude.requests[-1]["messages"]
    assert user_turns(fake_claude.requests[-1]) == ["First question?", "Follow-up?"]
    assert "First answer." in str(messages[1]["content"])


def test_query_without_session_starts_fresh(claude_client, fake_claude):
    claude_client.post("/api/query", json={"query": "One?"})
    claude_client.post("/api/query", json={"query": "Two?"})
    assert user_turns(fake_claude.requests[-1]) == ["Two?"]


def test_tampered_session_id_is_refused(claude_client, fake_claude):
    token = claude_client.post("/api/query", json={"query": "One?"}).get_json()["session_id"]
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert_error(claude_client.post("/api/query", json={"query": "Two?", "session_id": tampered}), 400)
    assert_error(claude_client.post("/api/query", json={"query": "Two?", "session_id": 12}), 400)
    assert len(fake_claude.requests) == 1


def test_a_session_id_keeps_only_the_last_exchanges_however_long_the_conversation(claude_client, fake_claude):
    token = None
    sizes = []
    for number in range(1, 7):
        fake_claude.enqueue_text(f"Answer {number}: " + "words " * 300)
        body = {"query": f"Question {number}?", **({"session_id": token} if token else {})}
        token = claude_client.post("/api/query", json=body).get_json()["session_id"]
        sizes.append(len(token))
    with claude_client.application.app_context():
        from app.web.api.answers import load_session

        kept = load_session(token)
    assert [exchange.question for exchange in kept] == ["Question 5?", "Question 6?"]  # MAX_HISTORY is 2
    assert sizes[-1] < sizes[2] * 1.2  # a bounded token: it stops growing once the window is full


def test_an_oversized_session_id_is_refused_before_it_is_unpacked(claude_client, fake_claude):
    body = assert_error(
        claude_client.post("/api/query", json={"query": "Two?", "session_id": "x" * 70_000}), 400
    )
    assert body["detail"] == "The session_id is longer than any this API issues."
    assert fake_claude.requests == []


def test_session_id_expires_with_the_session_lifetime(claude_client, fake_claude, monkeypatch):
    token = claude_client.post("/api/query", json={"query": "One?"}).get_json()["session_id"]
    lifetime = claude_client.application.permanent_session_lifetime.total_seconds()
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + lifetime + 60)

    body = assert_error(claude_client.post("/api/query", json={"query": "Two?", "session_id": token}), 400)

    assert body["error"] == "Expired session_id."
    assert len(fake_claude.requests) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": "{not json", "content_type": "application/json"},
        {"data": "query=hello"},
        {"json": ["a list"]},
        {"json": {}},
        {"json": {"query": "   "}},
        {"json": {"query": 42}},
        {"json": {"query": "x" * 2001}},
    ],
)
def test_query_refuses_bad_requests(claude_client, fake_claude, kwargs):
    assert_error(claude_client.post("/api/query", **kwargs), 400)
    assert fake_claude.requests == []


def test_query_model_error_is_503_json_without_the_sdk_error(claude_app, fake_claude, caplog):
    fake_claude.enqueue_error(529, "Overloaded in cluster eu-internal-7", times=3)
    with caplog.at_level(logging.WARNING, logger=claude_app.logger.name):
        response = claude_app.test_client().post("/api/query", json={"query": "Anyone there?"})
    body = assert_error(response, 503)
    assert "overloaded" in body["error"] and body["detail"] == body["error"]
    assert "eu-internal-7" not in response.get_data(as_text=True)
    assert "eu-internal-7" in caplog.text  # the operator still sees what the SDK said


def test_api_needs_no_csrf_token(make_app):
    app = make_app()  # CSRF on
    response = app.test_client().post("/api/query", json={"query": "What is fixture scope?"})
    assert response.status_code == 200
    assert response.get_json()["answer"]


def test_courses(client):
    body = client.get("/api/courses").get_json()
    assert set(body) == {"total_courses", "course_titles", "courses"}
    assert body["total_courses"] == 3 == len(body["courses"])
    assert body["course_titles"] == [course["title"] for course in body["courses"]]
    course = body["courses"][0]
    assert set(course) == {"title", "link", "instructor", "lessons"}
    assert set(course["lessons"][0]) == {"number", "title", "link"}


def test_search(client):
    body = client.get("/api/search?q=fixture scope&k=2").get_json()
    results = body["results"]
    assert len(results) == 2
    assert set(results[0]) == {
        "course_title", "lesson_number", "lesson_title", "lesson_link", "chunk_index", "score", "text"
    }  # fmt: skip
    assert results[0]["course_title"] == "Python Testing with Pytest"
    assert "fixture scope" in results[0]["text"]


def test_search_filters_by_course_and_lesson(client):
    results = client.get("/api/search?q=vectors&course=Vector Databases from Scratch&lesson=1").get_json()[
        "results"
    ]
    assert results
    assert {(r["course_title"], r["lesson_number"]) for r in results} == {
        ("Vector Databases from Scratch", 1)
    }


@pytest.mark.parametrize(
    "query",
    ["", "?q=", "?q=%20%20", "?q=x&k=0", "?q=x&k=51", "?q=x&k=two", "?q=x&lesson=-1", "?q=x&lesson=one"],
)
def test_search_refuses_bad_arguments(client, query):
    assert_error(client.get(f"/api/search{query}"), 400)


def test_search_unknown_course_is_404(client):
    body = assert_error(client.get("/api/search?q=x&course=Underwater Basket Weaving"), 404)
    assert "Underwater Basket Weaving" in body["error"]


def test_unknown_endpoint_and_wrong_method_are_json(client):
    assert_error(client.get("/api/nothing"), 404)
    assert_error(client.get("/api/query"), 405)


def test_health_and_readiness(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {
        "status": "ready",
        "courses": 3,
        "ratelimit_store": "off",
        "database": "ok",
    }


def test_a_cold_worker_is_not_ready_until_it_has_warmed_up(make_app, monkeypatch):
    from app.search.embedding import model as embeddings

    # A process that has not loaded the model yet: a fresh embedder, as in a new gunicorn worker.
    monkeypatch.setattr(embeddings, "_embedders", {})
    app = make_app()
    client = app.test_client()
    services = app.extensions["services"]
    assert not services.warm
    body = assert_error(client.get("/readyz"), 503)
    assert "warming up" in body["error"]
    services.warming.join(timeout=120)
    assert services.warm
    assert client.get("/readyz").get_json() == {
        "status": "ready",
        "courses": 3,
        "ratelimit_store": "off",
        "database": "ok",
    }


def test_readiness_fails_when_chromadb_is_down_without_naming_it(make_app, caplog):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = make_app(CHROMA_HOST="127.0.0.1", CHROMA_PORT=port)
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    with caplog.at_level(logging.WARNING, logger=app.logger.name):
        response = client.get("/readyz")
    body = assert_error(response, 503)
    assert body["detail"] == body["error"] and "course index" in body["error"]
    assert f"127.0.0.1:{port}" not in response.get_data(as_text=True)
    assert f"127.0.0.1:{port}" in caplog.text  # the log says which server did not answer


def test_client_errors_keep_their_detail(client):
    body = assert_error(client.get("/api/search?q=x&k=0"), 400)
    assert body["detail"] == "'k' must be between 1 and 50."


def test_query_rate_limit_is_json(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="2 per minute")
    client = app.test_client()
    for _ in range(2):
        client.post("/api/query", json={})
    body = assert_error(client.post("/api/query", json={"query": "Again?"}), 429)
    assert "wait a minute" in body["error"]


def test_ask_and_query_share_one_budget(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="2 per minute")
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    assert client.post("/ask", data={"question": ""}).status_code == 400  # counted, refused in place
    assert client.post("/api/query", json={}).status_code == 400
    assert_error(client.post("/api/query", json={"query": "Third?"}), 429)
    assert client.post("/ask", data={"question": "Fourth?"}).status_code == 429


def forwarded_statuses(app, *clients: str) -> list[int]:
    """POST /api/query once per forwarded client address (each through the same proxy); the statuses."""
    client = app.test_client()
    return [
        client.post("/api/query", json={}, headers={"X-Forwarded-For": address}).status_code
        for address in clients
    ]


def test_behind_a_trusted_proxy_each_client_has_its_own_budget(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="1 per minute", TRUSTED_PROXIES=1)
    assert forwarded_statuses(app, "203.0.113.1", "203.0.113.1", "203.0.113.2") == [400, 429, 400]


def test_without_trusted_proxies_a_forwarded_address_is_ignored(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="1 per minute")
    # A client cannot buy a fresh budget by claiming to be someone else.
    assert forwarded_statuses(app, "203.0.113.1", "203.0.113.2") == [400, 429]


def test_a_trusted_proxy_sets_scheme_and_host(make_app):
    app = make_app(TRUSTED_PROXIES=1)
    app.add_url_rule("/where", "where", lambda: {"url": request.url})
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "courses.example.org"}
    assert (
        app.test_client().get("/where", headers=headers).get_json()["url"]
        == "https://courses.example.org/where"
    )
