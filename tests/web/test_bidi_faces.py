"""Bidi controls are neutralized in the faces that are not HTML: the JSON API (answers, stream events,
citations, courses, search), `flask search`, the Markdown export and the question-log CSV."""

from __future__ import annotations

import json

import pytest

from app.assistant.base import Answer, DoneEvent, Source, StatusEvent, TextEvent
from tests.scripted_answerer import ScriptedAnswerer, use_answerer
from tests.web.admin_helpers import PASSWORD, Admin
from tests.web.support import sse_events

RLO = "\u202e"
CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
MARKS = "\u200e\u200f"

SOURCE = Source(
    label=f"Sneaky{RLO}fdp.exe – Lesson 1",
    course_title=f"Sneaky{RLO}fdp.exe",
    lesson_number=1,
    lesson_title="Opening\u200f act\u2067",
    lesson_link="https://example.com/lesson",
    snippet=f"a snippet {RLO}reversed",
)
ANSWER = Answer(markdown=f"Read it {RLO}backwards.[^1]", sources=[SOURCE], mode="extractive", tool_rounds=1)
BIDI_COURSE = f"""Course Title: Mirror{RLO}txt.exe Course
Course Instructor: Ada\u200f Mirror

Lesson 1: Looking{RLO} glass
Lesson Link: //evil.example/lesson-one
The looking glass lesson explains how quicksilver mirrors{RLO} reflect candle light in old houses.
"""


def assert_no_controls(text: str) -> None:
    """No embedding, override or isolate control anywhere in the text."""
    assert not any(control in text for control in CONTROLS), repr(text)


def names_in(value, keys=("label", "course", "lesson_title", "course_title", "title", "instructor")):
    """Every string under a key that holds a name, anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in keys and isinstance(item, str):
                yield item
            else:
                yield from names_in(item, keys)
    elif isinstance(value, list):
        for item in value:
            yield from names_in(item, keys)


@pytest.fixture
def scripted_app(app):
    """The app answering ANSWER to every question, after a status line and a piece of text."""
    use_answerer(
        app,
        ScriptedAnswerer([StatusEvent(f"Looking {RLO}up"), TextEvent(f"Read {RLO}it"), DoneEvent(ANSWER)]),
    )
    return app


@pytest.fixture
def bidi_library(app, docs_dir):
    """The app with a course whose title, lesson and text carry bidi controls, indexed."""
    (docs_dir / "mirror.txt").write_text(BIDI_COURSE)
    assert not app.extensions["services"].indexer.sync().problems
    return app


def test_the_api_answer_and_its_citations_lose_their_bidi_controls(scripted_app):
    response = scripted_app.test_client().post("/api/query", json={"query": f"Why {RLO}this?"})
    body = response.get_json()

    assert response.status_code == 200 and "backwards" in body["answer"]
    assert_no_controls(response.get_data(as_text=True))
    assert_no_controls(json.dumps(body, ensure_ascii=False))
    assert all(not any(mark in name for mark in MARKS) for name in names_in(body)), body
    assert not any(mark in label for label in body["sources"] for mark in MARKS)


def test_the_streamed_api_events_lose_their_bidi_controls(scripted_app):
    response = scripted_app.test_client().post("/api/query", json={"query": "Stream?", "stream": True})
    events = sse_events(response.get_data(as_text=True))

    assert [name for name, _ in events] == ["status", "text", "done"]
    for _, data in events:
        assert_no_controls(json.dumps(json.loads(data), ensure_ascii=False))


def test_courses_and_search_in_the_api_lose_their_bidi_controls(bidi_library):
    client = bidi_library.test_client()
    courses = client.get("/api/courses").get_json()
    found = client.get("/api/search", query_string={"q": "quicksilver mirrors candle light"}).get_json()

    assert "Mirrortxt.exe Course" in courses["course_titles"]
    assert any("quicksilver" in result["text"] for result in found["results"])
    for body in (courses, found):
        assert_no_controls(json.dumps(body, ensure_ascii=False))
        assert all(not any(mark in name for mark in MARKS) for name in names_in(body)), body


def test_flask_search_prints_no_bidi_control_and_no_protocol_relative_link(bidi_library):
    runner = bidi_library.test_cli_runner()
    printed = runner.invoke(args=["search", "quicksilver mirrors candle light", "-k", "3"])
    as_json = runner.invoke(args=["search", "quicksilver mirrors candle light", "--json"])
    batch = runner.invoke(args=["search", "-"], input=json.dumps({"q": "quicksilver mirrors"}) + "\n")

    assert printed.exit_code == as_json.exit_code == batch.exit_code == 0
    assert "Mirrortxt.exe Course" in printed.output
    assert "evil.example" not in printed.output
    for output in (printed.output, as_json.output, batch.output):
        assert_no_controls(output)


def test_flask_ask_prints_no_bidi_control_and_no_protocol_relative_link(bidi_library):
    answered = bidi_library.test_cli_runner().invoke(
        args=["ask", "How do quicksilver mirrors reflect candle light?"]
    )

    assert answered.exit_code == 0 and "Mirrortxt.exe Course" in answered.output
    assert "evil.example" not in answered.output
    assert_no_controls(answered.output)


def test_the_markdown_export_loses_its_bidi_controls(scripted_app):
    client = scripted_app.test_client()
    asked = client.post("/ask", data={"question": f"Why {RLO}this?"})
    conversation_id = asked.headers["Location"].split("/c/")[1].split("#")[0]
    exported = client.get(f"/c/{conversation_id}/export.md").get_data(as_text=True)

    assert "backwards" in exported and "Sneaky" in exported
    assert_no_controls(exported)


def test_the_question_log_csv_loses_its_bidi_controls(make_app):
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    use_answerer(app, ScriptedAnswerer([DoneEvent(ANSWER)]))
    app.test_client().post("/api/query", json={"query": f"Why {RLO}this\u200f?"})
    admin = Admin(app)
    admin.login()
    csv = admin.client.get("/admin/insights/questions.csv", query_string={"all": "1"}).get_data(as_text=True)

    assert "Why this" in csv and "Sneaky" in csv
    assert_no_controls(csv)


def test_the_mcp_tools_and_lesson_resources_lose_their_bidi_controls(bidi_library):
    from app.mcp_server.library import CourseLibrary

    library = CourseLibrary(bidi_library)
    found = library.search("quicksilver mirrors candle light")
    [mirror] = [entry for entry in library.lessons() if "Mirror" in entry.course_title]
    course_id = mirror.uri.split("/")[2]

    assert any("quicksilver" in result["text"] for result in found["results"])
    for value in (library.courses(), found, library.outline("Mirrortxt.exe Course"), mirror.title):
        assert_no_controls(json.dumps(value, ensure_ascii=False))
    assert all(not any(mark in name for mark in MARKS) for name in names_in(library.courses()))
    assert_no_controls(mirror.course_title + library.lesson_text(course_id, 1))
