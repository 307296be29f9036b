"""The Markdown export carries what the page shows: the answer sanitized, safe links only, text escaped."""

from __future__ import annotations

import pytest

from app.assistant.base import Answer, DoneEvent, Source
from tests.scripted_answerer import ScriptedAnswerer, use_answerer

HOSTILE_ANSWER = "\n\n".join(
    [
        "Knead the dough **firmly** and see [the recipe](https://example.com/bread) for more.[^1]",
        '<img src="x" onerror="alert(1)">',
        '<iframe src="https://evil.example/frame"></iframe>',
        '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
        "[click me](javascript:alert(2)) and [relative](/admin) and <javascript:alert(3)>",
        "[broken out](https://example.com/a)<img src=y onerror=alert(4)>)",
        "```\nprint('<kept as code>')\n```",
    ]
)
SOURCE = Source(
    label="Bread <b>Basics</b> – Lesson 1",
    course_title="Bread <b>Basics</b>",
    lesson_number=1,
    lesson_link="https://example.com/bread/1",
    snippet="Knead the <script>dough</script> well.",
)
HOSTILE_TITLE = '<img src=z onerror="alert(5)"> Bread [x](https://evil.example/title)'


@pytest.fixture
def exported(app) -> str:
    """The export of a conversation whose question, answer and source carry hostile markup."""
    use_answerer(app, ScriptedAnswerer([DoneEvent(Answer(markdown=HOSTILE_ANSWER, sources=[SOURCE]))]))
    client = app.test_client()
    asked = client.post("/ask", data={"question": HOSTILE_TITLE})
    conversation_id = asked.headers["Location"].split("/c/")[1].split("#")[0]
    return client.get(f"/c/{conversation_id}/export.md").get_data(as_text=True)


def test_the_export_keeps_the_answers_formatting_and_safe_links(exported):
    assert "**firmly**" in exported
    assert "[the recipe](https://example.com/bread)" in exported
    assert "[^1]" in exported
    assert "print('<kept as code>')" in exported  # inside a code block, where Markdown shows it as text
    assert "(<https://example.com/bread/1>)" in exported


def test_the_export_drops_raw_html_and_unsafe_links(exported):
    outside_code = exported.replace("print('<kept as code>')", "")
    for raw in ("<img", "<iframe", "<meta", "<script", "<b>", "javascript:", "](/admin)", " [x]("):
        assert raw not in outside_code, raw
    # The question's markup and link are shown as the text they were, inert.
    assert "&lt;img src=z" in exported and "\\[x\\](https://evil.example/title)" in exported
