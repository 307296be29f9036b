"""A model stream cut off mid-answer (no message_stop) is an error on every face, never a stored answer."""

from __future__ import annotations

import json

from tests.web.support import ask_streamed, page_url, sse_events

PARTIAL = "Half an answer that never ends because the connection drops"


def test_the_chat_says_the_answer_was_cut_short_and_stores_nothing(claude_client, fake_claude):
    fake_claude.enqueue_cut_stream(PARTIAL, after=5)
    streamed = ask_streamed(claude_client, "What is RAG?")
    assert "cut short" in streamed.done and "Try again" in streamed.done
    assert streamed.commit is None
    # The question stays in its conversation, marked failed with "Ask again"; the cut text is never kept.
    page = claude_client.get(page_url(claude_client)).get_data(as_text=True)
    assert "exchange-failed" in page and "What is RAG?" in page
    assert PARTIAL[:20] not in page and "exchange-answered" not in page


def test_api_query_is_a_503_saying_the_answer_was_cut_short(claude_client, fake_claude):
    fake_claude.enqueue_cut_stream(PARTIAL, after=5)
    response = claude_client.post("/api/query", json={"query": "What is RAG?"})
    assert response.status_code == 503
    body = response.get_json()
    assert "cut short" in body["error"] and "answer" not in body


def test_the_streamed_api_ends_with_an_error_event(claude_client, fake_claude):
    fake_claude.enqueue_cut_stream(PARTIAL, after=5)
    response = claude_client.post("/api/query", json={"query": "What is RAG?", "stream": True})
    name, data = sse_events(response.get_data(as_text=True))[-1]
    assert name == "error" and "cut short" in json.loads(data)["error"]
