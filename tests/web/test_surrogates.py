"""A question with a lone surrogate (`"x \\ud83d"`) is a 400 with a clear message on every face."""

from __future__ import annotations

import json

LONE = "x \ud83d"
PROBLEM = "invalid character"


def test_the_json_api_refuses_a_lone_surrogate(client):
    body = json.dumps({"query": LONE})  # ASCII JSON: the surrogate travels as the escape \ud83d
    response = client.post("/api/query", data=body, content_type="application/json")
    assert response.status_code == 400
    assert PROBLEM in response.get_json()["error"]


def test_the_streamed_api_refuses_a_lone_surrogate(client):
    body = json.dumps({"query": LONE, "stream": True})
    response = client.post("/api/query", data=body, content_type="application/json")
    assert response.status_code == 400 and PROBLEM in response.get_json()["error"]


def test_the_form_refuses_a_lone_surrogate_encoded_as_utf8(client):
    # What a browser would send for the surrogate if it encoded it as-is (CESU-style bytes).
    raw = b"question=x+%ED%A0%BD"
    response = client.post("/ask", data=raw, content_type="application/x-www-form-urlencoded")
    # Werkzeug decodes form bodies leniently, so this arrives as replacement characters: no 500 either way.
    assert response.status_code in (400, 303)


def test_the_cli_refuses_a_lone_surrogate(runner):
    result = runner.invoke(args=["ask", LONE])
    assert result.exit_code == 2 and PROBLEM in result.output
