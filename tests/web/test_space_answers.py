"""A course space's settings reach the model: hint mode and topics to avoid in the system prompt, tools
that see only the space's catalogue, and a page that shows the mode but never the topics."""

from __future__ import annotations

import pytest

from app.store.spaces import SpaceSettings
from tests.conftest import openai_config
from tests.test_claude import result_text, tool_results
from tests.web.spaces_support import PYTEST, RAG, VECTORS, make_spaces, sign_in

AVOIDED = "product quantization"


def hint_space(app) -> None:
    """The test spaces, with "Vectors" in hint mode avoiding one topic and suggesting its own question."""
    ids = make_spaces(app)
    settings = SpaceSettings("hints", (AVOIDED,), "Welcome to vectors!", ("How is an index built?",))
    app.extensions["services"].store.spaces.configure(ids["Vectors"], settings)


@pytest.fixture
def claude_spaces_app(make_app, fake_claude):
    """Claude mode against the fake Messages API, with course spaces on."""
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url, COURSE_SPACES=True)
    app.config["WTF_CSRF_ENABLED"] = False
    hint_space(app)
    return app


def test_claude_receives_the_mode_and_topics_and_its_tools_see_only_the_space(claude_spaces_app, fake_claude):
    client = claude_spaces_app.test_client()
    sign_in(claude_spaces_app, client, "Vectors", "student")
    fake_claude.enqueue_tool_uses(
        [
            ("search_course_content", {"query": "fixtures", "course_name": PYTEST}),
            ("get_course_outline", {"course_name": "Retrieval-Augmented Generation"}),
            ("search_course_content", {"query": "how fixtures and vector indexes work"}),
        ]
    )
    fake_claude.enqueue_text("Read lesson 2 for the idea.")

    response = client.post("/api/query", json={"query": "Explain fixtures and vector indexes"})

    assert response.status_code == 200
    first, second = fake_claude.requests
    system = first["system"][0]["text"]
    assert "hints, not solutions" in system and AVOIDED in system
    named, outline, anywhere = tool_results(second)
    assert VECTORS in result_text(named) and PYTEST not in result_text(named).replace(f"'{PYTEST}'", "")
    assert RAG not in result_text(outline).replace("'Retrieval-Augmented Generation'", "")
    titles = {block["title"].split(" – ")[0] for block in anywhere["content"]}
    assert titles == {VECTORS}, "a search over every course searches only the space's"


def test_the_open_deployment_sends_the_prompt_unchanged(claude_app, fake_claude):
    fake_claude.enqueue_text("Hello.")

    claude_app.test_client().post("/api/query", json={"query": "Hello there"})

    [request] = fake_claude.requests
    assert "staff decided" not in request["system"][0]["text"]


def test_the_page_shows_the_mode_welcome_and_suggestions_but_not_the_topics(claude_spaces_app):
    client = claude_spaces_app.test_client()
    sign_in(claude_spaces_app, client, "Vectors", "student")

    page = client.get("/").get_data(as_text=True)

    assert "hints, not solutions" in page and "Welcome to vectors!" in page
    assert "How is an index built?" in page and AVOIDED not in page
    other = claude_spaces_app.test_client()
    sign_in(claude_spaces_app, other, "Testing", "student", subject="someone-else")
    assert "full answers" in other.get("/").get_data(as_text=True)


def test_the_openai_compatible_model_receives_the_mode_and_topics(make_app, fake_openai):
    app = make_app(**openai_config(fake_openai.url, OPENAI_TOOLS="off"), COURSE_SPACES=True)
    hint_space(app)
    client = app.test_client()
    sign_in(app, client, "Vectors", "student")
    fake_openai.enqueue_text("Read lesson 2 [1].")

    assert client.post("/api/query", json={"query": "How do pytest fixtures work?"}).status_code == 200

    [request] = fake_openai.requests
    system, question = request["messages"][0]["content"], request["messages"][-1]["content"]
    assert "hints, not solutions" in system and AVOIDED in system
    assert PYTEST not in question, "the passages given come only from the space's courses"


def test_a_quoted_answer_in_hint_mode_says_where_to_read(make_app):
    app = make_app(COURSE_SPACES=True)
    hint_space(app)
    client = app.test_client()
    sign_in(app, client, "Vectors", "student")
    other = app.test_client()
    sign_in(app, other, "Testing", "student", subject="full-answers")

    hinted = client.post("/api/query", json={"query": "How does an HNSW graph find neighbours?"}).get_json()
    full = other.post("/api/query", json={"query": "How do pytest fixtures work?"}).get_json()

    assert "**Where to read:** Vector Databases from Scratch – Lesson" in hinted["answer"]
    assert "Where to read" not in full["answer"]
