"""One client cannot hold every thread: a bound on the answers each client has in progress at once."""

from __future__ import annotations

import itertools

from app.assistant.base import DoneEvent, StatusEvent, TextEvent
from app.web.stream_slots import FOLLOWERS_PER_ANSWER
from tests.web.support import asked_plain, sse_events, stream_url_from, wait_for
from tests.web.test_chat_stream import FINAL, post_pending, scripted

BOUND = 2
OTHER = {"REMOTE_ADDR": "10.0.0.2"}


def open_stream(client):
    """Ask with htmx and start reading the stream: it now holds one of the client's slots."""
    response = client.get(stream_url_from(post_pending(client, "Slow one?")), buffered=False)
    read = b""
    for chunk in response.response:
        read += chunk
        if b"Searching" in read:
            return response
    raise AssertionError("the stream ended before its status")


def test_a_client_over_the_bound_gets_a_final_message_and_a_429_from_the_api(make_app):
    app = make_app(MAX_STREAMS_PER_CLIENT=str(BOUND))
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    answerer = scripted(app, StatusEvent("Searching"), TextEvent("Slow"), DoneEvent(FINAL), hold_at=1)
    held = [open_stream(client) for _ in range(BOUND)]

    # The question gets its refusal at once, in place of the pending answer.
    refused = post_pending(client, "One more?")
    assert f"You have {BOUND} answers in progress already" in refused and "sse-connect" not in refused
    api = client.post("/api/query", json={"query": "And this?", "stream": True})
    assert api.status_code == 429 and "answers in progress" in api.get_json()["error"]
    assert client.post("/api/query", json={"query": "And this?"}).status_code == 429
    assert len(answerer.questions) == BOUND, "the refused ones never reached the model"

    # Another client is not affected.
    other = app.test_client()
    answerer.release()
    answered = other.post("/api/query", json={"query": "Mine?"}, environ_base=OTHER)
    assert answered.status_code == 200

    # A finished answer gives its slot back, whoever follows it.
    for response in reversed(held):
        response.close()
    wait_for(lambda: app.extensions["stream_slots"].in_use("127.0.0.1") == 0)
    assert client.post("/api/query", json={"query": "Now?"}).status_code == 200
    assert app.extensions["stream_slots"].in_use("127.0.0.1") == 0


def test_a_stream_never_read_gives_its_api_slot_back(make_app):
    app = make_app(MAX_STREAMS_PER_CLIENT="1")
    client = app.test_client()
    scripted(app, DoneEvent(FINAL))
    response = client.post("/api/query", json={"query": "Hi?", "stream": True}, buffered=False)
    response.close()  # the client left before the first byte
    assert client.post("/api/query", json={"query": "Again?"}).status_code == 200


def test_asking_without_javascript_over_the_bound_is_a_429_page_and_never_calls_the_model(make_app):
    app = make_app(MAX_STREAMS_PER_CLIENT=str(BOUND))
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    answerer = scripted(app, StatusEvent("Searching"), TextEvent("Slow"), DoneEvent(FINAL), hold_at=1)
    held = [open_stream(client) for _ in range(BOUND)]

    refused = asked_plain(client, "One more without JavaScript?")
    assert refused.status_code == 429
    html = refused.get_data(as_text=True)
    assert "Too many answers at once" in html and f"You have {BOUND} answers in progress already" in html
    assert len(answerer.questions) == BOUND, "the refused question never reached the model"

    # Its slot was never taken, and finished answers let the student ask again.
    answerer.release()
    for response in reversed(held):
        response.close()
    wait_for(lambda: app.extensions["stream_slots"].in_use("127.0.0.1") == 0)
    assert asked_plain(client, "Now?").status_code == 303
    assert app.extensions["stream_slots"].in_use("127.0.0.1") == 0


def test_pages_following_answers_are_bounded_per_client_too(make_app):
    app = make_app(MAX_STREAMS_PER_CLIENT="1")
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    answerer = scripted(app, StatusEvent("Searching"), TextEvent("Slow"), DoneEvent(FINAL), hold_at=1)
    url = stream_url_from(post_pending(client, "Followed from many tabs?"))
    tabs = []
    for _ in range(FOLLOWERS_PER_ANSWER):  # as many tabs as the bound allows follow the one answer
        response = client.get(url, buffered=False)
        assert b"Searching" in b"".join(itertools.islice(response.response, 4))
        tabs.append(response)
    [(name, data)] = sse_events(client.get(url).get_data(as_text=True))
    assert name == "done" and "pages following answers already" in data
    answerer.release()
    for response in reversed(tabs):
        response.close()
    assert app.extensions["follower_slots"].in_use("127.0.0.1") == 0
