"""Observability: request ids, a structured log line per request, Prometheus metrics behind a setting."""

from __future__ import annotations

import json
import logging

import pytest
from prometheus_client import REGISTRY

from tests.web.support import HX, script_answer, stream_url_from, wait_for

REQUESTS_LOG = "course_assistant.requests"


class Lines(logging.Handler):
    """Collect the request log's lines as parsed JSON."""

    def __init__(self):
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(record.getMessage()))


@pytest.fixture
def request_log():
    """The request log's lines during one test."""
    handler = Lines()
    logger = logging.getLogger(REQUESTS_LOG)
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


def test_every_response_carries_a_request_id_and_a_plain_incoming_one_is_kept(client):
    fresh = client.get("/healthz").headers["X-Request-ID"]
    other = client.get("/healthz").headers["X-Request-ID"]
    assert len(fresh) == 32 and fresh != other
    kept = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a9c21"})
    assert kept.headers["X-Request-ID"] == "lb-7f3a9c21"
    # An id that could forge a log line or flood it is replaced, not echoed.
    for hostile in ("abc\tfake: {line}", "x" * 200, "short"):
        replaced = client.get("/healthz", headers={"X-Request-ID": hostile}).headers["X-Request-ID"]
        assert replaced != hostile and len(replaced) == 32


def test_one_log_line_per_request_with_the_answer_mode(client, request_log):
    # The line is written when the server closes the response (after a stream ends), as WSGI servers do.
    with client.post("/api/query", json={"query": "What is cosine similarity?"}) as response:
        assert response.status_code == 200
    client.get("/no-such-page").close()
    assert len(request_log) == 2
    answered, missing = request_log
    assert answered["request_id"] == response.headers["X-Request-ID"]
    assert (answered["method"], answered["path"], answered["status"]) == ("POST", "/api/query", 200)
    assert answered["mode"] == "extractive" and answered["tool_rounds"] >= 1
    assert answered["duration_ms"] > 0
    assert (missing["path"], missing["status"]) == ("/no-such-page", 404) and "mode" not in missing


def test_a_claude_answer_logs_its_tool_rounds_and_tokens_with_cache_reads(
    claude_client, fake_claude, request_log
):
    script_answer(fake_claude, "Cosine similarity compares directions.")
    calls_before = REGISTRY.get_sample_value("course_assistant_model_call_seconds_count") or 0
    with claude_client.post("/api/query", json={"query": "What is cosine similarity?"}) as response:
        assert response.status_code == 200
    (line,) = request_log
    assert line["mode"] == "claude" and line["tool_rounds"] == 1
    # Two model calls (the search, then the answer), each reporting the fake's usage.
    assert line["tokens"]["cache_read_input_tokens"] == 160 and line["tokens"]["output_tokens"] == 40
    assert REGISTRY.get_sample_value("course_assistant_model_call_seconds_count") == calls_before + 2


def test_metrics_are_off_unless_enabled(client):
    assert client.get("/metrics").status_code == 404


def test_metrics_show_request_latency_answers_and_the_index_size(make_app):
    client = make_app(METRICS_ENABLED="true").test_client()
    client.post("/api/query", json={"query": "What is cosine similarity?"})
    response = client.get("/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    body = response.get_data(as_text=True)
    assert 'course_assistant_request_seconds_count{endpoint="api.query",method="POST",status="200"}' in body
    assert 'course_assistant_answer_tool_rounds_count{mode="extractive"}' in body
    chunks = next(
        line for line in body.splitlines() if line.startswith('course_assistant_index_size{unit="chunks"}')
    )
    assert float(chunks.split()[-1]) > 0


def test_an_answer_made_in_the_background_logs_a_line_under_its_question_s_request_id(client, request_log):
    with client.post("/ask", data={"question": "What is cosine similarity?"}, headers=HX) as asked:
        url = stream_url_from(asked.get_data(as_text=True))
    client.get(url).get_data()  # followed to its end
    wait_for(lambda: any("answer" in line for line in request_log))
    [run] = [line for line in request_log if "answer" in line]
    assert run["request_id"] == asked.headers["X-Request-ID"] and run["answer"] == "answered"
    assert run["mode"] == "extractive" and run["tool_rounds"] >= 1 and run["duration_ms"] > 0
