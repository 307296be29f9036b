"""Streamed answers: the pending exchange, the SSE stream, the commit token, errors and disconnects."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.assistant.base import Answer, DoneEvent, StatusEvent, TextEvent
from app.errors import ModelUnavailable
from app.web.chat import tokens as stream_tokens
from app.web.chat.live import first_live_block
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.web.support import (
    HX,
    ask_streamed,
    commit_token_from,
    conversation_from,
    csrf_from,
    page_url,
    script_answer,
    sse_events,
    stream_url_from,
    wait_for,
)

FINAL = Answer(markdown="Fixtures give tests **setup**.[^1]", sources=[FIXTURES_SOURCE])


def scripted(app, *events, hold_at=None) -> ScriptedAnswerer:
    """Make `app` answer with these events."""
    answerer = ScriptedAnswerer(list(events), hold_at=hold_at)
    use_answerer(app, answerer)
    return answerer


def is_text(name: str) -> bool:
    """True for a message carrying the answer's text (chat/live.py): a new block, or an update of one."""
    return name == "block" or re.fullmatch(r"[ar]\d+", name) is not None


def page_url_of(pending_html: str) -> str:
    """The conversation page of a pending exchange (from the form it sent back)."""
    return f"/c/{conversation_from(pending_html)}"


def post_pending(client, question: str) -> str:
    """Ask with htmx and return the pending fragment."""
    response = client.post("/ask", data={"question": question}, headers=HX)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_htmx_ask_shows_the_question_at_once_with_a_pending_stream(app, client):
    answerer = scripted(app, DoneEvent(FINAL))
    html = post_pending(client, "What are <fixtures>?")
    article = re.search(r"<article[^>]*>", html).group(0)
    assert 'id="exchange-1"' in article and 'aria-busy="true"' in article
    assert 'hx-ext="sse"' in article and 'sse-swap="done"' in article and 'sse-close="done"' in article
    assert '<p class="question-text">What are &lt;fixtures&gt;?</p>' in html
    # The answer is made at once, whether or not a page follows it; the URL carries an opaque id.
    url = stream_url_from(html)
    assert url.startswith("/ask/stream/") and "fixtures" not in url
    assert answerer.questions == ["What are <fixtures>?"]
    # One question at a time: the form comes back empty out-of-band, only its send button disabled (the next
    # question can be typed meanwhile).
    form = re.search(r'<form id="ask-form"[^>]*>.*?</form>', html, re.S).group(0)
    assert 'hx-swap-oob="true"' in form and "></textarea>" in form
    assert "disabled" not in re.search(r'<textarea id="question"[^>]*>', form).group(0)
    assert '<button type="submit" id="ask-send" class="send" disabled>' in form
    # The answer is written into live block 0, as chat/live.py numbers them.
    assert first_live_block() in html


def test_stream_sends_status_progressive_sanitized_text_then_the_final_exchange(app, client):
    scripted(
        app,
        StatusEvent("Searching Lesson 2 of Python Testing with Pytest"),
        TextEvent("Fixtures give tests <script>alert(1)</script>**setup"),
        TextEvent("**."),
        DoneEvent(FINAL),
    )
    done, events, _ = ask_streamed(client, "What are fixtures?")
    names = [name for name, _ in events]
    assert names[0] == "status" and names[-1] == "done"
    assert "Searching Lesson 2 of Python Testing with Pytest" in events[0][1]
    # The status line goes as the text arrives.
    assert names[1:3] == ["status", "a0"] and events[1][1] == ""
    text = "".join(data for name, data in events if is_text(name))
    assert "Fixtures give tests" in text and "<script" not in text and "alert(1)" not in text
    # The final message is the exchange as the page renders it: sources, a commit request, controls enabled.
    assert re.search(r'<article class="exchange exchange-answered" id="exchange-1">', done)
    assert "<strong>setup</strong>" in done and '<div class="sources">' in done
    assert 'href="https://example.com/courses/pytest/lesson-2"' in done
    assert 'hx-post="/ask/commit" hx-trigger="load"' in done
    assert 'id="ask-send"' in done and "disabled>" not in done
    # Screen readers hear the finished answer once, not every update.
    assert re.search(r'<div id="announcer" hx-swap-oob="innerHTML">Answer ready\. Fixtures give', done)
    page = client.get(page_url(client)).get_data(as_text=True)
    assert "What are fixtures?" in page and "<strong>setup</strong>" in page


def test_extractive_answer_streams_and_the_follow_up_gets_the_history(app, client):
    done = ask_streamed(client, "What is fixture scope?").done
    assert "Python Testing with Pytest" in done and '<div class="sources">' in done
    answerer = scripted(app, DoneEvent(FINAL))
    ask_streamed(client, "And a follow-up?")
    assert [exchange.question for exchange in answerer.histories[0]] == ["What is fixture scope?"]
    page = client.get(page_url(client)).get_data(as_text=True)
    assert 'id="exchange-1"' in page and 'id="exchange-2"' in page


def stream_done(client, question: str) -> str:
    """Post and read the stream without committing; the final message."""
    stream = client.get(stream_url_from(post_pending(client, question)))
    return sse_events(stream.get_data(as_text=True))[-1][1]


def test_commit_token_is_accepted_once(cookie_app, cookie_client):
    app, client = cookie_app, cookie_client
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Once only?"))
    first = client.post("/ask/commit", data={"token": token}, headers=HX)
    assert first.status_code == 200 and 'id="history-note"' in first.get_data(as_text=True)
    # Again (another tab following the same answer commits it too): nothing changes, nothing is said.
    replayed = client.post("/ask/commit", data={"token": token}, headers=HX)
    assert replayed.status_code == 200 and replayed.get_data(as_text=True) == ""
    page = client.get("/").get_data(as_text=True)
    assert page.count('<p class="question-text">Once only?</p>') == 1


def test_replay_after_a_new_chat_is_refused(cookie_app, cookie_client):
    app, client = cookie_app, cookie_client
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Replay me?"))
    assert client.post("/ask/commit", data={"token": token}).status_code == 200
    client.post("/new")
    assert client.post("/ask/commit", data={"token": token}).status_code == 409
    assert "Replay me?" not in client.get("/").get_data(as_text=True)


def test_tampered_or_missing_commit_token_is_refused(cookie_app, cookie_client):
    app, client = cookie_app, cookie_client
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Tamper?"))
    payload, _, signature = token.rpartition(".")
    forged = payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1] + "." + signature
    for bad in (forged, token + "x", "", "not-a-token"):
        assert client.post("/ask/commit", data={"token": bad}).status_code == 409
    assert "Tamper?" not in client.get("/").get_data(as_text=True)


def test_expired_commit_token_is_refused(app, client, monkeypatch):
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Too late?"))
    monkeypatch.setattr(stream_tokens, "COMMIT_MAX_AGE", -1)
    response = client.post("/ask/commit", data={"token": token}, headers={"Accept": "application/json"})
    assert response.status_code == 409
    assert response.get_json()["error"].startswith("This answer was not saved")


def test_commit_token_from_another_browser_is_refused(app, client):
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Mine?"))
    other = app.test_client()
    other.post("/ask", data={"question": "Theirs?"})  # their turn moved on
    assert other.post("/ask/commit", data={"token": token}).status_code == 409


def test_commit_needs_the_csrf_token(make_app):
    app = make_app(STORE_CONVERSATIONS=False)
    scripted(app, DoneEvent(FINAL))
    client = app.test_client()
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    headers = {"X-CSRFToken": csrf}
    pending = client.post("/ask", data={"question": "Safe?"}, headers={**HX, **headers})
    done = sse_events(client.get(stream_url_from(pending.get_data(as_text=True))).get_data(as_text=True))
    token = commit_token_from(done[-1][1])
    assert client.post("/ask/commit", data={"token": token}).status_code == 400
    assert "Safe?" not in client.get("/").get_data(as_text=True)
    assert client.post("/ask/commit", data={"token": token}, headers={**HX, **headers}).status_code == 200


def test_bad_or_expired_stream_link_ends_the_stream_with_a_message(app, client):
    answerer = scripted(app, DoneEvent(FINAL))
    for url in ("/ask/stream/forged", "/ask/stream/forged?c=x&n=2"):
        response = client.get(url)
        assert response.status_code == 200 and response.mimetype == "text/event-stream"
        [(name, data)] = sse_events(response.get_data(as_text=True))
        assert name == "done" and "answered already, or has expired" in data
    assert answerer.questions == []


def test_error_mid_stream_ends_in_the_friendly_message_and_try_again(app, client):
    scripted(app, TextEvent("Half an ans"), ModelUnavailable("The assistant is unavailable right now."))
    done, events, _ = ask_streamed(client, "Will this fail?")
    assert [name for name, _ in events] == ["status", "a0", "done"]
    assert 'class="message message-error" role="alert"' in done
    assert "The assistant is unavailable right now." in done and "Try again" in done
    assert 'name="question" value="Will this fail?"' in done and 'hx-target="closest .exchange"' in done
    assert "/ask/commit" not in done
    # The question stays in its conversation, its answer marked failed, with "Ask again".
    page = client.get(page_url(client)).get_data(as_text=True)
    failed = re.search(r'<article class="exchange exchange-failed".*?</article>', page, re.S).group(0)
    assert "Will this fail?" in failed and "The answer failed." in failed and "Ask again" in failed


def test_unexpected_error_mid_stream_shows_no_internals(app, client, caplog):
    scripted(app, RuntimeError("secret internal path /srv/x"))
    done = ask_streamed(client, "Crash?").done
    assert "Something went wrong" in done and "/srv/x" not in done
    assert "secret internal path" in caplog.text


def test_a_page_that_goes_away_leaves_the_answer_to_finish_and_be_stored(app, client):
    answerer = scripted(app, TextEvent("First words"), TextEvent(" then more."), DoneEvent(FINAL), hold_at=1)
    html = post_pending(client, "Long one?")
    response = client.get(stream_url_from(html), buffered=False)
    read = b""
    for chunk in response.response:
        read += chunk
        if b"First words" in read:
            break
    response.close()  # what the WSGI server does when the client disconnects
    answerer.release()
    wait_for(lambda: "<strong>setup</strong>" in client.get(page_url_of(html)).get_data(as_text=True))
    page = client.get(page_url_of(html)).get_data(as_text=True)
    assert "exchange-answered" in page and "interrupted" not in page


def test_api_query_streams_the_same_events_as_json(app, client):
    scripted(
        app, StatusEvent("Searching"), TextEvent("Fixtures give "), TextEvent("setup."), DoneEvent(FINAL)
    )
    response = client.post("/api/query", json={"query": "What are fixtures?", "stream": True})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events = [(name, json.loads(data)) for name, data in sse_events(response.get_data(as_text=True))]
    assert events[:3] == [
        ("status", {"text": "Searching"}),
        ("text", {"text": "Fixtures give "}),
        ("text", {"text": "setup."}),
    ]
    name, final = events[-1]
    assert name == "done" and final["answer"] == FINAL.markdown
    assert final["sources"] == ["Python Testing with Pytest – Lesson 2"]
    # The session_id continues the conversation, as without streaming.
    answerer = scripted(app, DoneEvent(FINAL))
    client.post("/api/query", json={"query": "More?", "session_id": final["session_id"]})
    assert [exchange.question for exchange in answerer.histories[0]] == ["What are fixtures?"]


def test_api_stream_error_is_the_last_event_without_internals(app, client):
    scripted(app, TextEvent("Partial"), RuntimeError("internal detail /srv/x"))
    response = client.post("/api/query", json={"query": "Crash?", "stream": True})
    events = sse_events(response.get_data(as_text=True))
    name, data = events[-1]
    assert name == "error" and "/srv/x" not in data
    assert json.loads(data)["status"] == 500


def test_api_stream_flag_must_be_a_boolean(app, client):
    answerer = scripted(app, DoneEvent(FINAL))
    response = client.post("/api/query", json={"query": "Hi?", "stream": "yes"})
    assert response.status_code == 400 and "stream" in response.get_json()["detail"]
    assert answerer.questions == []


def test_the_commit_may_land_on_another_worker(cookie_app, cookie_client, tmp_path, docs_dir):
    # A second app from the same settings (one SECRET_KEY) stands for another gunicorn worker.
    from app import create_app
    from tests.conftest import make_config

    app, client = cookie_app, cookie_client
    other = create_app(make_config(tmp_path, docs_dir, STORE_CONVERSATIONS=False))
    other.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    scripted(app, DoneEvent(FINAL))
    token = commit_token_from(stream_done(client, "Across workers?"))
    other_client = other.test_client()
    other_client.set_cookie("session", client.get_cookie("session").value)
    assert other_client.post("/ask/commit", data={"token": token}).status_code == 200
    client.set_cookie("session", other_client.get_cookie("session").value)
    assert "Across workers?" in client.get("/").get_data(as_text=True)
    client.post("/ask/commit", data={"token": token})
    assert client.get("/").get_data(as_text=True).count("Across workers?</p>") == 1


def test_sse_extension_is_vendored_for_the_same_htmx_major_with_its_licence(client):
    static = Path(__file__).resolve().parents[2] / "static"
    first_line = (static / "htmx-ext-sse.min.js").read_text(encoding="utf-8").splitlines()[0]
    htmx_line = (static / "htmx.min.js").read_text(encoding="utf-8").splitlines()[0]
    sse_major = re.search(r"htmx-ext-sse (\d+)\.", first_line).group(1)
    htmx_major = re.search(r"htmx\.org (\d+)\.", htmx_line).group(1)
    assert sse_major == htmx_major and "0BSD" in first_line
    assert "BSD Zero Clause License" in (static / "htmx-ext-sse.LICENSE").read_text(encoding="utf-8")
    # The chat page loads it after htmx (both deferred, so in order).
    html = client.get("/").get_data(as_text=True)
    assert html.index("/static/htmx.min.js") < html.index("/static/htmx-ext-sse.min.js")


def test_exchange_ids_stay_unique_when_the_history_trims(cookie_app, cookie_client):
    app, client = cookie_app, cookie_client
    scripted(app, DoneEvent(FINAL))
    for number in range(1, 4):  # MAX_HISTORY is 2
        done = ask_streamed(client, f"Question {number}?").done
        assert f'id="exchange-{number}"' in done
    page = client.get("/").get_data(as_text=True)
    assert re.findall(r'id="(exchange-\d+)"', page) == ["exchange-2", "exchange-3"]
    assert 'id="exchange-4"' in post_pending(client, "Question 4?")
    plain = client.post("/ask", data={"question": "Question 4?"})
    assert plain.headers["Location"] == "/#exchange-4"


def test_text_held_back_by_the_cadence_shows_before_a_new_status(app, client):
    scripted(
        app, TextEvent("Let me look "), TextEvent("that up."), StatusEvent("Searching"), DoneEvent(FINAL)
    )
    events = ask_streamed(client, "Look it up?").events
    names = [name for name, _ in events]
    # Both pieces come within 100 ms: the second is rendered when the status arrives, not after the search.
    last_text = max(index for index, name in enumerate(names) if is_text(name))
    assert "that up." in events[last_text][1]
    assert names[last_text + 1] == "status"


def test_claude_answer_streams_search_status_and_text_over_the_real_sdk(claude_client, fake_claude):
    script_answer(fake_claude, "Cosine similarity compares **direction**.")
    streamed = ask_streamed(claude_client, "What is cosine similarity?")
    names = [name for name, _ in streamed.events]
    assert names[0] == "status" and "a0" in names and names[-1] == "done"
    assert "<strong>direction</strong>" in streamed.done and '<div class="sources">' in streamed.done
    assert "What is cosine similarity?" in claude_client.get(page_url(claude_client)).get_data(as_text=True)
