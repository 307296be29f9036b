"""A question's life: claimed once by its stream, stopped, committed to memory, voted on, logged."""

from __future__ import annotations

import re

import pytest

from app.assistant.base import Answer, DoneEvent, TextEvent
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.web.support import (
    HX,
    ask_streamed,
    commit_token_from,
    page_url,
    read_until,
    send_enabled,
    sse_events,
    stream_url_from,
    wait_for,
)

FINAL = Answer(markdown="Fixtures give tests **setup**.[^1]", sources=[FIXTURES_SOURCE], mode="extractive")


def scripted(app, *events, hold_at=None) -> ScriptedAnswerer:
    """Make `app` answer with these events."""
    answerer = ScriptedAnswerer(list(events or [DoneEvent(FINAL)]), hold_at=hold_at)
    use_answerer(app, answerer)
    return answerer


def pending(client, question: str, conversation: str = "") -> tuple[str, str]:
    """Ask with htmx; the stream URL and the pending fragment."""
    response = client.post("/ask", data={"question": question, "conversation": conversation}, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    return stream_url_from(html), html


def last_event(client, url: str) -> tuple[str, str]:
    """Open a stream to its end; its last message."""
    return sse_events(client.get(url).get_data(as_text=True))[-1]


def test_thirty_replays_of_a_stream_make_one_model_call(db_app):
    answerer = scripted(db_app)
    client = db_app.test_client()
    url, _ = pending(client, "Once only?")
    name, first = last_event(client, url)
    assert name == "done" and "<strong>setup</strong>" in first
    for _ in range(30):  # each one follows the same answer, made once
        name, replay = last_event(client, url)
        assert name == "done" and "<strong>setup</strong>" in replay
    assert answerer.questions == ["Once only?"]


def test_another_browser_cannot_open_the_stream(db_app):
    answerer = scripted(db_app)
    owner, other = db_app.test_client(), db_app.test_client()
    url, _ = pending(owner, "Mine to stream?")
    pending(other, "Theirs?")  # the other browser has an id of its own
    for client in (other, db_app.test_client()):  # and a browser with none
        name, data = last_event(client, url)
        assert name == "done" and "answered already, or has expired" in data and "setup" not in data
    # The owner gets the answer.
    assert "<strong>setup</strong>" in last_event(owner, url)[1]
    assert sorted(answerer.questions) == ["Mine to stream?", "Theirs?"]


def test_the_ask_spends_the_rate_limit_and_streams_cannot_be_rerun(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="2 per minute")
    app.config["WTF_CSRF_ENABLED"] = False
    answerer = scripted(app)
    client = app.test_client()
    urls = [pending(client, f"Question {n}?")[0] for n in range(2)]
    assert client.post("/ask", data={"question": "A third?"}).status_code == 429
    for url in urls * 5:
        client.get(url).get_data()
    assert len(answerer.questions) == 2


def test_stop_keeps_the_partial_answer_marked_stopped_and_enables_the_form(db_app):
    answerer = scripted(
        db_app, TextEvent("The first words"), TextEvent(" never sent"), DoneEvent(FINAL), hold_at=1
    )
    client = db_app.test_client()
    url, html = pending(client, "Stop me?")
    stop_url = re.search(r'hx-post="(/ask/stop/[^"]+)"', html).group(1)
    response = client.get(url, buffered=False)
    chunks = iter(response.response)
    read_until(response, b"The first words")
    stopped = client.post(stop_url, data={"question": "Stop me?", "number": "1"}, headers=HX)
    body = stopped.get_data(as_text=True)
    exchange = re.search(
        r'<article class="exchange exchange-stopped" id="exchange-1">.*?</article>', body, re.S
    )
    assert (
        exchange
        and "The first words" in exchange.group(0)
        and "You stopped this answer." in exchange.group(0)
    )
    assert send_enabled(body)
    # The page's stream ends stopped; the model call closes at its next event; the stored exchange keeps the
    # partial text.
    rest = b"".join(chunks).decode()
    assert sse_events(rest)[-1][0] == "done" and "You stopped this answer." in rest
    response.close()
    answerer.release()
    assert answerer.closed.wait(10)
    page = client.get(page_url_of(client, html)).get_data(as_text=True)
    stored = re.search(r'<article class="exchange exchange-stopped".*?</article>', page, re.S).group(0)
    assert "The first words" in stored and "never sent" not in stored
    # Stopping again, or someone else's stop, changes nothing.
    assert "The first words" not in client.post(stop_url, headers=HX).get_data(as_text=True)


def page_url_of(client, pending_html: str) -> str:
    """The conversation page of a pending exchange (from the form it sent back)."""
    conversation = re.search(r'<form id="ask-form".*?name="conversation" value="([^"]*)"', pending_html, re.S)
    return f"/c/{conversation.group(1)}"


def test_two_tabs_streaming_at_once_keep_both_answers_and_say_when_memory_refused_one(db_app):
    scripted(db_app)
    client = db_app.test_client()
    first_url, first_html = pending(client, "Tab one?")
    second_url, second_html = pending(client, "Tab two?")
    first_done, second_done = last_event(client, first_url)[1], last_event(client, second_url)[1]
    assert 'hx-swap="outerHTML"' in first_done  # the commit's answer replaces its request: a refusal shows
    ok = client.post("/ask/commit", data={"token": commit_token_from(first_done)}, headers=HX)
    assert ok.status_code == 200 and "not saved" not in ok.get_data(as_text=True)
    refused = client.post("/ask/commit", data={"token": commit_token_from(second_done)}, headers=HX)
    assert refused.status_code == 200
    assert "This answer was not saved to the assistant&#39;s memory" in refused.get_data(as_text=True)
    # Both answers are kept, each in its own conversation.
    for html, question in ((first_html, "Tab one?"), (second_html, "Tab two?")):
        page = client.get(page_url_of(client, html)).get_data(as_text=True)
        assert question in page and "<strong>setup</strong>" in page


def test_feedback_votes_once_changeably_with_a_comment_on_down(db_app):
    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "Vote on me?")
    page = client.get(page_url(client)).get_data(as_text=True)
    exchange_id = int(re.search(r'action="/feedback/(\d+)"', page).group(1))
    votes = db_app.extensions["services"].store.votes
    owner = db_app.session_interface.get_signing_serializer(db_app).loads(client.get_cookie("session").value)[
        "browser"
    ]

    up = client.post(f"/feedback/{exchange_id}", data={"vote": "up"}, headers=HX)
    fragment = up.get_data(as_text=True)
    assert up.status_code == 200 and fragment.strip().startswith(
        f'<div class="feedback" id="feedback-{exchange_id}">'
    )
    assert 'aria-pressed="true"' in fragment and "You found this answer helpful." in fragment
    assert votes.get(owner, exchange_id) == ("up", None)

    # Without JavaScript: a plain form, back to the answer.
    target = f"{page_url(client)}#exchange-1"
    down = client.post(
        f"/feedback/{exchange_id}", data={"vote": "down", "comment": " Wrong  lesson ", "next": target}
    )
    assert down.status_code == 303 and down.headers["Location"] == target
    assert votes.get(owner, exchange_id) == ("down", "Wrong lesson")
    page = client.get(page_url(client)).get_data(as_text=True)
    assert "You found this answer not helpful." in page and '<details class="vote-down-details" open>' in page

    assert client.post(f"/feedback/{exchange_id}", data={"vote": "sideways"}).status_code == 400
    assert (
        client.post(f"/feedback/{exchange_id}", data={"vote": "down", "comment": "x" * 501}).status_code
        == 400
    )
    assert votes.get(owner, exchange_id) == ("down", "Wrong lesson")
    client.post(f"/feedback/{exchange_id}", data={"vote": "up", "comment": "ignored on up"})
    assert votes.get(owner, exchange_id) == ("up", None)


def test_every_face_that_answers_logs_the_question(db_app):
    client = db_app.test_client()
    ask_streamed(client, "What is fixture scope?")  # the real extractive answerer: it searches
    client.post("/ask", data={"question": "How do fixtures clean up?"})
    assert client.post("/api/query", json={"query": "What are markers?"}).status_code == 200
    stream = client.post("/api/query", json={"query": "Tell me about parametrize", "stream": True})
    stream.get_data()
    rows = list(db_app.extensions["services"].store.questions.csv_rows())
    header, logged = rows[0], rows[1:]
    assert [row[header.index("question")] for row in logged] == [
        "What is fixture scope?",
        "How do fixtures clean up?",
        "What are markers?",
        "Tell me about parametrize",
    ]
    for row in logged:
        assert row[header.index("mode")] == "extractive"
        assert 0 < float(row[header.index("confidence")]) <= 1  # the best passage score the search saw
        assert row[header.index("course")] == "Python Testing with Pytest"
    assert "Python Testing with Pytest" in logged[0][header.index("lessons")]


def test_a_declined_question_is_logged_as_a_gap(db_app):
    declined = Answer(markdown="The courses do not cover that.", sources=[], mode="claude")
    scripted(db_app, DoneEvent(declined))
    client = db_app.test_client()
    ask_streamed(client, "How do I bake bread?")
    [gap] = db_app.extensions["services"].store.questions.gaps()
    assert gap.question == "How do I bake bread?" and "declined" in gap.reasons


def test_a_claude_answer_logs_the_best_score_its_tool_searches_saw(claude_app, fake_claude):
    from tests.web.support import script_answer

    client = claude_app.test_client()
    script_answer(fake_claude, "Cosine similarity compares direction.", query="cosine similarity")
    ask_streamed(client, "What is cosine similarity?")
    store = claude_app.extensions["services"].store
    header, row = list(store.questions.csv_rows())
    assert row[header.index("mode")] == "claude"
    confidence = float(row[header.index("confidence")])
    best = claude_app.extensions["services"].index.search("cosine similarity")[0]
    assert confidence == pytest.approx(best.score, abs=1e-3)


def test_stop_on_another_worker_keeps_the_partial_answer_stopped(db_app, monkeypatch):
    from app.web.chat import answers as chat_answers
    from app.web.chat.run import BEAT_SECONDS, RUNS, Runs

    answerer = scripted(db_app, TextEvent("Said so far"), TextEvent(" and more"), DoneEvent(FINAL), hold_at=1)
    client = db_app.test_client()
    url, html = pending(client, "Stop me from elsewhere?")
    stop_url = re.search(r'hx-post="(/ask/stop/[^"]+)"', html).group(1)
    fields = dict(
        re.findall(
            r'<input type="hidden" name="(question|number|conversation|exchange)" value="([^"]*)"', html
        )
    )
    response = client.get(url, buffered=False)
    read_until(response, b"Said so far")
    with monkeypatch.context() as patch:
        patch.setattr(chat_answers, "RUNS", Runs())  # this "worker" makes no answer
        stopped = client.post(stop_url, data=fields, headers=HX).get_data(as_text=True)
    assert (
        'class="exchange exchange-stopped" id="exchange-1"' in stopped
        and "You stopped this answer." in stopped
    )
    assert send_enabled(stopped)
    response.close()  # the page's stream closed with the swap
    # The worker making the answer hears of the Stop through the journal at its next heartbeat, and keeps what
    # was said; the model call closes at its next event.
    run = RUNS.get(stop_url.rsplit("/", 1)[1])
    wait_for(lambda: run.ended == "stopped", seconds=BEAT_SECONDS * 5)
    answerer.release()
    assert answerer.closed.wait(10)
    page = client.get(page_url_of(client, html)).get_data(as_text=True)
    stored = re.search(r'<article class="exchange exchange-stopped".*?</article>', page, re.S).group(0)
    assert "Said so far" in stored and "You stopped this answer." in stored
    # A stranger's stop of someone else's exchange changes nothing.
    with db_app.app_context():
        assert not chat_answers.stop_elsewhere("stranger", fields["conversation"], int(fields["exchange"]))
