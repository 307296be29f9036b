"""With the rate-limit store (a real redis-server) killed, asks and sign-in never 500; /readyz says so."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from tests.servers import start_redis
from tests.web.admin_helpers import PASSWORD, csrf_token


@pytest.fixture
def redis(tmp_path):
    """A real redis-server, stopped at the end if the test did not stop it."""
    server = start_redis(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def failures() -> float:
    """The count of rate-limit store failures so far."""
    return REGISTRY.get_sample_value("course_assistant_ratelimit_store_failures_total") or 0.0


def test_killing_redis_leaves_asks_and_sign_in_working_and_readyz_says_what_is_down(make_app, redis):
    app = make_app(
        RATELIMIT_ENABLED="true",
        RATELIMIT_STORAGE_URI=redis.url,
        RATELIMIT_ASK="100 per minute",
        ADMIN_PASSWORD=PASSWORD,
    )
    client = app.test_client()
    assert client.post("/api/query", json={"query": "What is cosine similarity?"}).status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["ratelimit_store"] == "ok"

    redis.stop()
    before = failures()

    asked = client.post("/api/query", json={"query": "What is cosine similarity?"})
    assert asked.status_code == 200, asked.get_data(as_text=True)
    token = csrf_token(client)
    signed = client.post("/admin/login", data={"password": "wrong", "csrf_token": token})
    assert signed.status_code == 401
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.get_json()["ratelimit_store"] == "unreachable"
    assert ready.get_json()["status"] == "degraded"
    assert failures() > before
