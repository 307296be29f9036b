"""Conversation history in the session cookie: budget, trimming, and cookies that are not ours."""

from __future__ import annotations

import json
import random
import string

import flask
import pytest
from flask.sessions import SecureCookieSessionInterface

from app.assistant.base import Exchange, Source
from app.web.chat.history import History, load_history, save_history
from app.web.exchanges import decode_exchanges, encode_exchanges
from app.web.session import COOKIE_BUDGET, HISTORY_KEY, cookie_size
from tests.web.support import HX, ask_streamed, asked_plain, page_url, set_cookie_sizes, user_turns


def noisy_text(seed: int, length: int = 3000) -> str:
    """Text that compresses badly, like the worst case for the cookie."""
    rng = random.Random(seed)
    words = []
    while sum(len(word) + 1 for word in words) < length:
        words.append("".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(2, 9))))
    return " ".join(words)[:length]


@pytest.mark.parametrize("stored", [True, False], ids=["stored", "cookie-only"])
@pytest.mark.parametrize("max_history", [2, 20])
def test_fifty_long_answers_keep_every_cookie_under_budget(make_app, fake_claude, max_history, stored):
    app = make_app(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_claude.url,
        MAX_HISTORY=max_history,
        STORE_CONVERSATIONS=stored,
    )
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    for number in range(50):
        fake_claude.enqueue_text(noisy_text(number))
        question = f"Question number {number}?"
        if number % 2:
            response = ask_streamed(client, question).commit  # the commit sets the cookie
        else:
            response = asked_plain(client, question)
            assert response.status_code == 303
        sizes = set_cookie_sizes(response)
        assert sizes, "every answer updates the session cookie"
        assert max(sizes) < COOKIE_BUDGET
    # The model still hears the latest turns, and the page still answers and says what happened.
    assert user_turns(fake_claude.requests[-1])[-2:] == ["Question number 48?", "Question number 49?"]
    page = client.get(page_url(client))
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Question number 49?" in html and "Earlier turns were trimmed" in html
    assert '<p id="history-note" class="history-note">' in html


def test_history_keeps_the_last_exchanges(app):
    history = History()
    for number in range(4):
        history = history.add(Exchange(question=f"q{number}", answer=f"a{number}"), max_history=2)
    assert [exchange.question for exchange in history.exchanges] == ["q2", "q3"]
    assert history.trimmed
    assert [exchange.question for exchange in history.for_model(1)] == ["q3"]
    assert history.for_model(0) == []


def test_a_huge_single_exchange_is_shortened_to_fit(app):
    # 2,000 CJK characters are 6,000 bytes of UTF-8 that barely compress.
    rng = random.Random(7)
    question = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(2000))
    source = Source(
        label="C – Lesson 1: L", course_title="C", lesson_number=1, lesson_title="L", snippet="s" * 150
    )
    exchange = Exchange(question=question, answer=noisy_text(1, 6000), sources=[source])
    with app.test_request_context("/"):
        stored = save_history(History([exchange]))
        assert cookie_size() < COOKIE_BUDGET
        # Shortened, but no earlier turn went: the page must not say "earlier turns were trimmed".
        assert not stored.trimmed
        assert stored.exchanges[0].answer.endswith(" …")
        assert load_history().exchanges == stored.exchanges


def test_at_the_edge_the_whole_set_cookie_header_is_measured_not_just_its_value(app):
    # Sweep answer lengths across the budget: some land with a Set-Cookie header of 3,920-3,999 bytes, where
    # a value-only measure (about 80 bytes of attributes shorter) would let 4,000-4,080 byte headers through.
    near_edge = 0
    for length in range(3780, 4000, 4):
        with app.test_request_context("/"):
            save_history(History([Exchange(question="Edge?", answer=noisy_text(length, length))]))
            response = app.response_class()
            app.session_interface.save_session(app, flask.session, response)
            (header,) = response.headers.getlist("Set-Cookie")
        size = len(header.encode("latin-1"))
        assert size < COOKIE_BUDGET, length
        near_edge += size >= 3920
    assert near_edge >= 3, "the sweep never reached the edge of the budget"


def test_compact_form_round_trips(app):
    exchange = Exchange(
        question="q",
        answer="a",
        sources=[
            Source(
                label="C – Lesson 2: T",
                course_title="C",
                lesson_number=2,
                lesson_title="T",
                course_link="https://c",
                lesson_link="https://c/2",
                snippet="snip",
            )
        ],
    )
    assert decode_exchanges(encode_exchanges([exchange])) == [exchange]
    with pytest.raises(ValueError):
        decode_exchanges([{"question": "old format"}])


def test_a_timed_source_keeps_its_video_second_through_the_compact_form():
    timed = Source(
        label="C – Lesson 2: T",
        course_title="C",
        lesson_number=2,
        lesson_link="https://www.youtube.com/watch?v=abc",
        snippet="snip",
        start_seconds=83.5,
    )
    untimed = timed.model_copy(update={"start_seconds": None})
    exchange = Exchange(question="q", answer="a", sources=[timed, untimed])
    encoded = encode_exchanges([exchange])
    # An untimed source keeps the seven-item form it always had; only a timed one carries the second.
    assert [len(item) for item in encoded[0][2]] == [8, 7]
    (decoded,) = decode_exchanges(json.loads(json.dumps(encoded)))
    assert decoded == exchange
    assert [source.link for source in decoded.sources] == [
        "https://www.youtube.com/watch?v=abc&t=83s",
        "https://www.youtube.com/watch?v=abc",
    ]


def test_forged_cookie_is_a_fresh_conversation(client):
    client.set_cookie("session", "eyJjaGF0IjpbMSxbXV19.forged.signature")
    response = client.get("/")
    assert response.status_code == 200
    assert "Ask a question about the courses" in response.get_data(as_text=True)
    assert client.post("/ask", data={"question": "Does asking still work?"}).status_code == 303


def test_cookie_signed_with_another_key_is_ignored(app, client):
    other = app.__class__(__name__)
    other.secret_key = "another-key"
    stored = [1, [["Planted question?", "Planted answer.", []]], False]
    value = SecureCookieSessionInterface().get_signing_serializer(other).dumps({HISTORY_KEY: stored})
    client.set_cookie("session", value)
    html = client.get("/").get_data(as_text=True)
    assert "Planted question?" not in html


@pytest.mark.parametrize(
    "stored",
    [
        {"exchanges": [{"q": "Old question?", "a": "Old answer."}]},  # an older format
        [0, [["Old question?", "Old answer.", []]], False],  # another version
        [1, [["Old question?", 42, []]], False],  # a broken structure
        "Old question?",
    ],
)
def test_old_or_broken_history_is_a_fresh_conversation(client, stored):
    with client.session_transaction() as session:
        session[HISTORY_KEY] = stored
    response = client.get("/")
    assert response.status_code == 200
    assert "Old question?" not in response.get_data(as_text=True)
    assert client.post("/ask", data={"question": "Fresh start?"}, headers=HX).status_code == 200


def test_valid_history_cookie_is_shown(client):
    with client.session_transaction() as session:
        session[HISTORY_KEY] = [1, [["Earlier question?", "Earlier *answer*.", []]], False]
    html = client.get("/").get_data(as_text=True)
    assert "Earlier question?" in html and "<em>answer</em>" in html


def test_session_cookie_flags(client):
    response = client.post("/ask", data={"question": "What is fixture scope?"})
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie


def test_secure_cookie_when_configured(make_app):
    app = make_app(SESSION_COOKIE_SECURE=True)
    app.config["WTF_CSRF_ENABLED"] = False
    response = app.test_client().post("/ask", data={"question": "What is fixture scope?"})
    assert "Secure" in response.headers["Set-Cookie"]
