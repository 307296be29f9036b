"""Answers followed from any page: a second tab, a resumed connection, another worker (through the database or
a real Redis), a worker that died, and a worker that goes away."""

from __future__ import annotations

import re
import time

import pytest

from app.assistant.base import Answer, DoneEvent, TextEvent
from app.store.models import AnswerRun, now
from app.web.chat import answers as chat_answers
from app.web.chat import follow as chat_follow
from app.web.chat.journal import Journal, RedisJournal, journal
from app.web.chat.run import BEAT_SECONDS, RUNS, Runs, settle
from app.web.sse import sse_message
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.servers import start_redis
from tests.web.support import (
    HX,
    commit_token_from,
    conversation_from,
    read_until,
    send_enabled,
    sse_events,
    stream_url_from,
    wait_for,
)
from tests.web.test_stream_size import replay, squeeze

FINAL = Answer(markdown="Paragraph one.\n\nParagraph two, then **three**.", sources=[FIXTURES_SOURCE])
PIECES = [TextEvent("Paragraph one.\n\n"), TextEvent("Paragraph two, "), TextEvent("then **three**.")]


def held_answer(app) -> ScriptedAnswerer:
    """An answerer that says its first words, then holds until released, then finishes."""
    answerer = ScriptedAnswerer([*PIECES, DoneEvent(FINAL)], hold_at=1)
    use_answerer(app, answerer)
    return answerer


def ask(client, question: str) -> tuple[str, str]:
    """Ask with htmx; the stream URL and the conversation page's URL."""
    html = client.post("/ask", data={"question": question}, headers=HX).get_data(as_text=True)
    return stream_url_from(html), f"/c/{conversation_from(html)}"


def run_id_of(url: str) -> str:
    """The answer run a stream URL follows."""
    return url.split("/ask/stream/")[1].partition("?")[0]


def shown(*bodies: str) -> str:
    """The answer a page shows after these stream bodies, as the htmx SSE extension applies them."""
    text_messages = [
        sse_message(name, data)
        for body in bodies
        for name, data in sse_events(body)
        if name == "block" or re.fullmatch(r"[ar]\d+", name)
    ]
    return squeeze(replay(text_messages))


@pytest.fixture
def other_worker(monkeypatch):
    """This process as another worker sees it: no answer run in its memory, so it reads the journal."""
    monkeypatch.setattr(chat_follow, "RUNS", Runs())
    monkeypatch.setattr(chat_answers, "RUNS", Runs())


def test_a_second_tab_shows_the_answer_in_progress_and_both_end_answered(db_app):
    answerer = held_answer(db_app)
    client = db_app.test_client()
    url, page_url = ask(client, "Open in two tabs?")
    first = client.get(url, buffered=False)
    read_until(first, b"Paragraph one.")
    page = client.get(page_url).get_data(as_text=True)  # the second tab
    assert 'aria-busy="true"' in page and "interrupted" not in page
    second = client.get(stream_url_from(page), buffered=False)
    read_until(second, b"Paragraph one.")  # what was said so far, at once
    answerer.release()
    ends = [sse_events("".join(chunk.decode() for chunk in tab.response))[-1][1] for tab in (second, first)]
    for tab in (second, first):
        tab.close()
    assert all("<strong>three</strong>" in end for end in ends)
    # Both tabs commit the answer to the cookie's memory: the second says nothing (no false "not saved").
    committed = [
        client.post("/ask/commit", data={"token": commit_token_from(end)}, headers=HX) for end in ends
    ]
    assert [response.status_code for response in committed] == [200, 200]
    assert 'id="history-note"' in committed[0].get_data(as_text=True)
    assert committed[1].get_data(as_text=True) == ""
    assert "exchange-answered" in client.get(page_url).get_data(as_text=True)
    assert answerer.questions == ["Open in two tabs?"]


def test_a_lost_connection_resumes_after_the_last_event_id_without_repeating(db_app):
    answerer = held_answer(db_app)
    client = db_app.test_client()
    url, _ = ask(client, "Resume me?")
    response = client.get(url, buffered=False)
    before = read_until(response, b"Paragraph one.")
    response.close()  # the connection dropped
    assert before.startswith("retry: ") and "event: reset" in before
    last_id = max(int(seen) for seen in re.findall(r"^id: (\d+)$", before, re.M))
    answerer.release()
    after = client.get(url, headers={"Last-Event-ID": str(last_id)}).get_data(as_text=True)
    assert "event: reset" not in after
    assert not any("Paragraph one." in data for name, data in sse_events(after) if name != "done")
    assert min(int(seen) for seen in re.findall(r"^id: (\d+)$", after, re.M)) > last_id
    assert sse_events(after)[-1][0] == "done"
    whole = client.get(url).get_data(as_text=True)  # a page opened from scratch gets everything
    assert shown(before, after) == shown(whole) and "<strong>three</strong>" in shown(whole)


def test_another_worker_follows_the_answer_through_the_database(db_app, other_worker):
    answerer = held_answer(db_app)
    client = db_app.test_client()
    url, page_url = ask(client, "Followed from the other worker?")
    page = client.get(page_url).get_data(as_text=True)
    assert 'aria-busy="true"' in page and not send_enabled(page)
    response = client.get(stream_url_from(page), buffered=False)
    read_until(response, b"Paragraph one.")
    answerer.release()
    events = sse_events("".join(chunk.decode() for chunk in response.response))
    response.close()
    assert events[-1][0] == "done" and "<strong>three</strong>" in events[-1][1]
    assert "exchange-answered" in client.get(page_url).get_data(as_text=True)


def test_a_worker_that_died_reads_interrupted_and_nothing_else_does(db_app, other_worker):
    answerer = held_answer(db_app)
    client = db_app.test_client()
    url, page_url = ask(client, "Will my worker survive?")
    run = RUNS.get(run_id_of(url))
    wait_for(lambda: answerer.held.is_set())
    run.journal = Journal()  # its heartbeat (and what it says) no longer reaches the others
    with db_app.extensions["services"].store.db.writing() as session:
        session.get(AnswerRun, run.run_id).beat_at = now().replace(year=2000)
    page = client.get(page_url).get_data(as_text=True)
    assert "The answer was interrupted." in page and 'aria-busy="true"' not in page
    # A page that was following it hears the same once the heartbeat is found stale.
    [*_, (name, data)] = sse_events(client.get(url).get_data(as_text=True))
    assert name == "done" and "The answer was interrupted." in data and "Paragraph one." in data
    answerer.release()


def test_a_worker_going_away_ends_its_answers_interrupted_with_what_they_said(db_app):
    answerer = held_answer(db_app)
    client = db_app.test_client()
    url, page_url = ask(client, "Shut down under me?")
    wait_for(lambda: answerer.held.is_set())
    settle(0.2)  # what gunicorn's worker_exit does; the answer is still held
    [*_, (name, data)] = sse_events(client.get(url).get_data(as_text=True))
    assert name == "done" and "The answer was interrupted." in data
    page = client.get(page_url).get_data(as_text=True)
    assert "exchange-interrupted" in page and "Paragraph one." in page
    answerer.release()
    assert answerer.closed.wait(10)


@pytest.fixture
def redis_app(make_app, tmp_path):
    """An app whose rate limits, and so its answer journal, live in a real redis-server."""
    server = start_redis(tmp_path)
    try:
        app = make_app(RATELIMIT_STORAGE_URI=server.url)
        app.config["WTF_CSRF_ENABLED"] = False
        yield app, server
    finally:
        server.stop()


def test_another_worker_follows_and_stops_the_answer_through_redis(redis_app, other_worker):
    app, server = redis_app
    assert isinstance(journal(app), RedisJournal)
    answerer = held_answer(app)
    client = app.test_client()
    url, page_url = ask(client, "Followed through Redis?")
    page = client.get(page_url).get_data(as_text=True)
    assert 'aria-busy="true"' in page
    response = client.get(stream_url_from(page), buffered=False)
    read_until(response, b"Paragraph one.")
    response.close()
    assert journal(app).client.xlen(f"course-assistant:answer:{run_id_of(url)}:events") >= 2
    # Stop from this worker: the one making the answer hears of it at its next heartbeat.
    stop = re.search(r'hx-post="(/ask/stop/[^"]+)"', page).group(1)
    fields = dict(
        re.findall(r'<input type="hidden" name="(number|conversation|exchange)" value="([^"]*)"', page)
    )
    stopped = client.post(stop, data={**fields, "question": "Followed through Redis?"}, headers=HX)
    assert "You stopped this answer." in stopped.get_data(as_text=True)
    run = RUNS.get(run_id_of(url))
    wait_for(lambda: run.ended == "stopped", seconds=BEAT_SECONDS * 5)
    [*_, (name, data)] = sse_events(client.get(url).get_data(as_text=True))
    assert name == "done" and "You stopped this answer." in data and "Paragraph one." in data
    stored = client.get(page_url).get_data(as_text=True)
    assert "exchange-stopped" in stored and "Paragraph one." in stored
    answerer.release()
    assert answerer.closed.wait(10)


def test_through_redis_an_answer_finishes_for_a_late_follower_and_a_dead_worker_reads_interrupted(
    redis_app, other_worker
):
    app, _server = redis_app
    answerer = held_answer(app)
    client = app.test_client()
    url, page_url = ask(client, "Late follower?")
    answerer.release()
    wait_for(lambda: "exchange-answered" in client.get(page_url).get_data(as_text=True))
    [*_, (name, data)] = sse_events(client.get(url).get_data(as_text=True))
    assert name == "done" and "<strong>three</strong>" in data

    answerer = held_answer(app)
    url, page_url = ask(client, "Dies in Redis?")
    run = RUNS.get(run_id_of(url))
    wait_for(lambda: answerer.held.is_set())
    run.journal = Journal()
    journal(app).client.hset(f"course-assistant:answer:{run.run_id}:state", "beat", time.time() - 3600)
    assert "The answer was interrupted." in client.get(page_url).get_data(as_text=True)
    answerer.release()
