"""An OpenAI-compatible model through every face: the chat page (streamed and without JavaScript), /api/query,
its streamed form and the CLI; with and without tool calling; failures with the extractive answer instead."""

from __future__ import annotations

import json

import pytest

from app.assistant.model_messages import SERVER_ERROR_MESSAGE, UNREACHABLE_MESSAGE
from tests.conftest import openai_config
from tests.fake_openai import Reply
from tests.test_cli import closed_port
from tests.web.support import SEARCH_TOOL, ask_streamed, asked_plain, page_url, sse_events
from tests.web.test_citations import markers, source_ids

RAG = "Retrieval-Augmented Generation in Practice"
CHUNKING = f"{RAG} – Lesson 2: Chunking Documents"
CLAIM = "Sentence-aware chunking packs whole sentences into each chunk"
QUESTION = "What is sentence-aware chunking?"
NAME = "Campus Llama"


@pytest.fixture(params=["tools", "passages"])
def model_app(request, make_app, fake_openai):
    """An app answering with the fake model, through tool calls or with the passages in the prompt."""
    tools = "on" if request.param == "tools" else "off"
    settings = openai_config(fake_openai.url, "llama3.1:8b", OPENAI_TOOLS=tools, MODEL_DISPLAY_NAME=NAME)
    app = make_app(**settings)
    app.config["WTF_CSRF_ENABLED"] = False
    app.tool_calling = request.param == "tools"
    return app


def script_cited(app, fake_openai, extra: str = "") -> None:
    """The model (searching first when it has tools) answers with one supported marker, then `extra`."""
    if app.tool_calling:
        fake_openai.enqueue_tool_calls(
            (SEARCH_TOOL, {"query": "sentence-aware chunking", "course_name": "RAG"})
        )
    fake_openai.enqueue_text(f"{CLAIM} [1].{extra}")


def test_the_chat_page_names_the_model_and_streams_a_cited_answer(model_app, fake_openai):
    client = model_app.test_client()
    assert f"Answers are written by {NAME}" in client.get("/").get_data(as_text=True)
    script_cited(model_app, fake_openai, " Bakers knead dough at dawn [1]. Overlap [7].")

    streamed = ask_streamed(client, QUESTION)

    statuses = [data for name, data in streamed.events if name == "status" and data]
    assert statuses, "a status line while the model searches"
    assert [number for _, number in markers(streamed.done)] == ["1"]
    assert len(source_ids(streamed.done)) == 1 and CHUNKING in streamed.done
    assert "Bakers knead dough at dawn." in streamed.done and "[7]" not in streamed.done
    page = client.get(page_url(client)).get_data(as_text=True)
    assert [number for _, number in markers(page)] == ["1"], "the citation is kept with the conversation"


def test_the_chat_page_without_javascript_shows_the_cited_answer(model_app, fake_openai):
    client = model_app.test_client()
    script_cited(model_app, fake_openai)

    response = asked_plain(client, QUESTION)

    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert CLAIM in page and [number for _, number in markers(page)] == ["1"]


def test_api_query_returns_the_cited_answer_and_continues_the_conversation(model_app, fake_openai):
    client = model_app.test_client()
    script_cited(model_app, fake_openai)

    body = client.post("/api/query", json={"query": QUESTION}).get_json()

    assert body["answer"] == f"{CLAIM}[^1]."
    assert [citation["label"] for citation in body["citations"]] == [CHUNKING]
    assert "model_error" not in body
    client.post("/api/query", json={"query": "And the overlap?", "session_id": body["session_id"]})
    turns = [m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "assistant"]
    assert f"{CLAIM}." in turns, "the earlier answer goes back without its markers"


def test_the_streamed_api_sends_status_text_and_the_cited_answer(model_app, fake_openai):
    client = model_app.test_client()
    script_cited(model_app, fake_openai)

    response = client.post("/api/query", json={"query": QUESTION, "stream": True})

    events = [(name, json.loads(data)) for name, data in sse_events(response.get_data(as_text=True))]
    assert events[0][0] == "status"
    text = "".join(data["text"] for name, data in events if name == "text")
    assert text == f"{CLAIM}."
    name, done = events[-1]
    assert name == "done" and done["answer"] == f"{CLAIM}[^1]."
    assert done["sources"] == [f"{RAG} – Lesson 2"]


def test_the_cli_answers_with_the_model_and_lists_the_cited_source(model_app, fake_openai):
    script_cited(model_app, fake_openai)

    result = model_app.test_cli_runner().invoke(args=["ask", QUESTION])

    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"Mode: OpenAI-compatible (llama3.1:8b at {fake_openai.url})"
    assert result.stdout.startswith(f"{CLAIM}[^1].")
    assert f"[1] {CHUNKING}" in result.stdout


# -- failures: the message, then the extractive answer ------------------------------------------------------


def note(message: str) -> str:
    """How the fallback answer begins."""
    return f"{NAME} could not answer.</strong> {message}"


@pytest.fixture
def failing_app(make_app, fake_openai):
    """An app whose model fails with a 500 on every call."""
    fake_openai.enqueue(Reply(status=500, error="CUDA out of memory on gpu-7"), times=10)
    app = make_app(**openai_config(fake_openai.url, "m", MODEL_DISPLAY_NAME=NAME))
    app.config["WTF_CSRF_ENABLED"] = False
    return app


def test_a_failing_model_shows_its_message_and_the_extractive_answer_on_the_page(failing_app):
    client = failing_app.test_client()

    streamed = ask_streamed(client, QUESTION)

    assert note(SERVER_ERROR_MESSAGE) in streamed.done
    assert "gpu-7" not in streamed.done
    assert source_ids(streamed.done), "the extractive answer comes with its sources"
    assert streamed.commit is not None, "the answer is kept like any other"


def test_a_failing_model_gives_the_api_the_extractive_answer_and_the_message(failing_app):
    client = failing_app.test_client()

    body = client.post("/api/query", json={"query": QUESTION}).get_json()
    stream = client.post("/api/query", json={"query": QUESTION, "stream": True}).get_data(as_text=True)

    assert body["model_error"] == SERVER_ERROR_MESSAGE and body["citations"]
    assert body["answer"].startswith(f"> **{NAME} could not answer.** {SERVER_ERROR_MESSAGE}")
    name, done = sse_events(stream)[-1]
    assert name == "done" and json.loads(done)["model_error"] == SERVER_ERROR_MESSAGE


def test_the_cli_says_the_model_failed_and_answers_extractively(make_app):
    unreachable = f"http://127.0.0.1:{closed_port()}/v1"
    app = make_app(**openai_config(unreachable, "m"))

    result = app.test_cli_runner().invoke(args=["ask", QUESTION])

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"> **m could not answer.** {UNREACHABLE_MESSAGE}")
    assert "Sources:" in result.stdout
