"""Unicode bidi controls are neutralized in anything shown as a name or a link."""

from __future__ import annotations

from app.assistant.base import Answer, DoneEvent, Source, TextEvent
from app.links import safe_url
from app.web.markdown import render_answer, render_markdown
from tests.web.support import ask_streamed
from tests.web.test_chat_stream import scripted
from tests.web.test_citations import KEY

RLO = "\u202e"
CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


def assert_clean(html: str) -> None:
    """No embedding, override or isolate control in the HTML."""
    assert not any(control in html for control in CONTROLS), repr(html)


def test_answers_lose_their_bidi_controls():
    text = f"Open invoice{RLO}txt.exe and [the {RLO}link](https://example.com/a) now \u2066x\u2069."
    assert_clean(str(render_markdown(text)))
    assert_clean(str(render_answer(text, [], KEY)))


def test_a_link_url_with_a_bidi_control_or_mark_is_refused():
    assert safe_url(f"https://example.com/{RLO}gpj.exe") is None
    assert safe_url("https://example.com/\u200fx") is None
    assert safe_url("https://example.com/ok") == "https://example.com/ok"
    assert_clean(str(render_markdown(f"[x](https://example.com/{RLO}moc.live)")))


def test_titles_snippets_and_links_in_a_page_lose_their_bidi_controls(app, client, monkeypatch):
    source = Source(
        label=f"Evil{RLO}txt.exe – Lesson 1",
        course_title=f"Evil{RLO}txt.exe",
        lesson_number=1,
        lesson_title="Intro\u2067x",
        lesson_link=f"https://example.com/{RLO}a",
        snippet=f"a snippet {RLO}reversed\u200e",
    )
    answer = Answer(markdown=f"See this {RLO}thing.", sources=[source], mode="extractive", tool_rounds=1)
    assistant = app.extensions["services"].assistant
    # The chat answers through the assistant's stream, with or without JavaScript.
    monkeypatch.setattr(assistant, "stream", lambda question, history, *scope: iter([DoneEvent(answer)]))
    response = client.post("/ask", data={"question": f"Why {RLO}this?"})
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Evil" in page and "a snippet" in page
    assert_clean(page)
    assert "\u200e" not in page


def test_a_streamed_answer_loses_its_bidi_controls(app, client, monkeypatch):
    final = Answer(markdown=f"Done {RLO}here.", sources=[], mode="extractive", tool_rounds=0)
    scripted(app, TextEvent(f"Half {RLO}way"), DoneEvent(final))
    streamed = ask_streamed(client, "Bidi?")
    for _, data in streamed.events:
        assert_clean(data)
