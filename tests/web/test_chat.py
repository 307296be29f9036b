"""The chat page, asking (with and without htmx), validation, model errors, new chat, theme."""

from __future__ import annotations

import re

import pytest

from tests.web.support import HX, ask_streamed, script_answer, user_turns

COURSES = [
    "Python Testing with Pytest",
    "Retrieval-Augmented Generation in Practice",
    "Vector Databases from Scratch",
]


def test_page_lists_courses_lessons_suggestions_and_form(client):
    html = client.get("/").get_data(as_text=True)
    assert re.search(r'id="courses-heading">Courses <span class="count">3</span>', html)
    for title in COURSES:
        assert title in html
    assert '<details class="lessons">' in html
    assert 'href="https://example.com/courses/pytest/lesson-2" target="_blank"' in html
    # Each suggestion is a button in its own form that asks it, inside the empty state, one per course.
    empty_state = html[html.index('<div class="empty-state">') : html.index('<div id="announcer"')]
    suggestions = re.findall(
        r'name="question" value="([^"]+)">\s*<button type="submit" class="suggestion">', empty_state
    )
    assert len(suggestions) == 4  # from every course, then a second lesson
    assert len(set(re.findall(r'<span class="suggestion-course">([^<]+)</span>', empty_state))) == 3
    assert 'hx-post="/ask"' in html and 'method="post" action="/ask"' in html
    # Every course has its own "Ask about this course".
    assert html.count(">Ask about this course<span") == 3
    assert "What does the Python Testing with Pytest course cover, lesson by lesson?" in html
    # The conversation is no live region (a streaming answer would be read out at every update).
    assert (
        'aria-live="polite"' not in html
        and '<div id="announcer" class="visually-hidden" role="status">' in html
    )
    assert '<label for="question" class="visually-hidden">' in html
    assert "Answers quote the course directly" in html and "Extractive" not in html


def test_page_speaks_the_students_words_not_the_model_id(claude_client, claude_app):
    html = claude_client.get("/").get_data(as_text=True)
    assert "Answers are written from the course lessons and cite them" in html
    assert claude_app.extensions["services"].settings.anthropic_model not in html


def test_htmx_ask_returns_the_exchange_and_a_fresh_form(claude_client, fake_claude):
    script_answer(fake_claude, "Cosine similarity compares **direction**.\n\n- one\n- two")
    html = ask_streamed(claude_client, "What is cosine similarity?").done
    assert "<html" not in html
    assert '<p class="question-text">What is cosine similarity?</p>' in html
    assert "<strong>direction</strong>" in html and "<li>one</li>" in html
    # Sources: visible chips, linked to the lesson, opening in a new tab, with a snippet.
    sources = html[html.index('<div class="sources">') :]
    assert re.search(
        r'<a href="https://example\.com/courses/[^"]+" target="_blank" rel="noopener noreferrer">', sources
    )
    assert "Lesson" in sources and '<p class="snippet">' in sources
    # The answer's end enables the send button alone, out-of-band: what was typed meanwhile stays.
    assert '<form id="ask-form"' not in html
    assert re.search(r'<button type="submit" id="ask-send" class="send"\s+hx-swap-oob="true">', html)


def test_plain_ask_stores_and_redirects_then_the_page_shows_it(claude_client, fake_claude):
    script_answer(fake_claude, "Stored answer about vectors.")
    response = claude_client.post("/ask", data={"question": "Tell me about vectors"})
    assert response.status_code == 303
    # Lands on the new exchange of the new conversation's own page.
    location = response.headers["Location"]
    assert re.fullmatch(r"/c/[\w-]{43}#exchange-1", location)
    html = claude_client.get(location.partition("#")[0]).get_data(as_text=True)
    assert "Tell me about vectors" in html and "Stored answer about vectors." in html
    assert '<div class="sources">' in html


def test_follow_up_sends_history_as_turns(claude_client, fake_claude):
    fake_claude.enqueue_text("First answer.")
    ask_streamed(claude_client, "First question?")
    fake_claude.enqueue_text("Second answer.")
    ask_streamed(claude_client, "And a follow-up?")
    last = fake_claude.requests[-1]["messages"]
    assert last[0] == {"role": "user", "content": "First question?"}
    assert last[1]["role"] == "assistant" and "First answer." in str(last[1]["content"])
    assert user_turns(fake_claude.requests[-1])[-1] == "And a follow-up?"


def test_extractive_mode_answers_with_sources(client):
    html = ask_streamed(client, "What is fixture scope?").done
    assert "Python Testing with Pytest" in html and '<div class="sources">' in html


def test_empty_question_is_refused_in_place_without_calling_the_model(claude_client, fake_claude):
    response = claude_client.post("/ask", data={"question": "   \n "}, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'hx-swap-oob="true"' in html and "Type a question first." in html
    assert 'aria-invalid="true"' in html
    assert "<article" not in html
    page = claude_client.post("/ask", data={"question": ""})
    assert page.status_code == 400
    assert "Type a question first." in page.get_data(as_text=True)
    assert fake_claude.requests == []


def test_question_over_the_limit_is_refused_and_kept(claude_client, fake_claude):
    question = "why " * 500 + "x"  # 2,001 characters
    response = claude_client.post("/ask", data={"question": question})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "up to 2,000 characters; this one has 2,001" in html
    assert f">{question}</textarea>" in html  # kept in the field to be shortened
    assert fake_claude.requests == []


def test_question_of_exactly_the_limit_is_asked(claude_client, fake_claude):
    fake_claude.enqueue_text("Fine.")
    assert "Fine." in ask_streamed(claude_client, "q" * 2000).done
    assert len(fake_claude.requests) == 1


def test_model_error_is_a_message_with_retry_and_history_unchanged(cookie_claude_client, fake_claude):
    # The cookie-only conversation, as before stored conversations (those keep the failed question).
    claude_client = cookie_claude_client
    fake_claude.enqueue_text("Kept answer.")
    claude_client.post("/ask", data={"question": "Kept question?"})
    fake_claude.enqueue_error(529, "Overloaded", times=3)  # the first try and the SDK's two retries
    html = ask_streamed(claude_client, "Will this fail?").done
    assert 'class="message message-error" role="alert"' in html
    assert 'name="question" value="Will this fail?"' in html and "Try again" in html
    assert 'hx-target="closest .exchange"' in html
    page = claude_client.get("/").get_data(as_text=True)
    assert "Kept question?" in page and "Will this fail?" not in page

    fake_claude.enqueue_error(529, "Overloaded", times=3)
    plain = claude_client.post("/ask", data={"question": "Will this fail?"})
    assert plain.status_code == 503
    assert "Try again" in plain.get_data(as_text=True)


def test_new_chat_clears_the_conversation(claude_client, fake_claude):
    fake_claude.enqueue_text("Answer one.")
    claude_client.post("/ask", data={"question": "Question one?"})
    response = claude_client.post("/new", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'class="empty-state"' in html and 'id="history-note"' in html and "hidden" in html
    assert "Question one?" not in conversation_section(claude_client.get("/").get_data(as_text=True))

    fake_claude.enqueue_text("Answer two.")
    claude_client.post("/ask", data={"question": "Question two?"})
    plain = claude_client.post("/new")
    assert plain.status_code == 303 and plain.headers["Location"] == "/"
    assert "Question two?" not in conversation_section(claude_client.get("/").get_data(as_text=True))


def test_page_says_when_earlier_turns_were_trimmed(cookie_claude_client, fake_claude):
    claude_client = cookie_claude_client  # the page shows the cookie's memory only without stored ones
    for number in range(3):  # MAX_HISTORY is 2
        fake_claude.enqueue_text(f"Answer {number}.")
        committed = ask_streamed(claude_client, f"Question {number}?").committed
    assert re.search(r'<p id="history-note" class="history-note" hx-swap-oob="true">', committed)
    page = claude_client.get("/").get_data(as_text=True)
    assert '<p id="history-note" class="history-note">' in page
    assert "Question 0?" not in page and "Question 2?" in page


def conversation_section(html: str) -> str:
    """The conversation area of a chat page (the sidebar lists past conversations by their questions)."""
    return re.search(r'<section id="conversation".*?</section>', html, re.S).group(0)


def dark_stylesheet_media(html: str) -> str:
    """The media query on the dark theme's stylesheet link."""
    return re.search(r'href="/static/dark\.css\?v=[0-9a-f]+" media="([^"]*)"', html).group(1)


def test_theme_switch_is_stored_in_the_session(client):
    html = client.get("/").get_data(as_text=True)
    assert '<html lang="en" data-theme="auto">' in html
    assert dark_stylesheet_media(html) == "(prefers-color-scheme: dark)"
    response = client.post("/theme", data={"theme": "dark", "next": "/"})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    html = client.get("/").get_data(as_text=True)
    assert '<html lang="en" data-theme="dark">' in html
    assert dark_stylesheet_media(html) == "all"
    assert 'value="dark" aria-pressed="true"' in html
    client.post("/theme", data={"theme": "light", "next": "/"})
    assert dark_stylesheet_media(client.get("/").get_data(as_text=True)) == "not all"


def test_theme_switches_in_place_for_htmx(client):
    response = client.post("/theme", data={"theme": "dark", "next": "/"}, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Location" not in response.headers
    # The dark stylesheet's new media and the menu, closed, come back out-of-band; nothing else changes.
    assert re.search(r'<link id="dark-css" [^>]*media="all"\s+hx-swap-oob="true">', html)
    assert re.search(r'<details id="theme-menu" class="menu theme-menu" hx-swap-oob="true">', html)
    assert '<form id="theme-form" class="theme-form"' in html and html.count("hx-swap-oob") == 2
    assert 'value="dark" aria-pressed="true"' in html and "<article" not in html
    assert dark_stylesheet_media(client.get("/").get_data(as_text=True)) == "all"


def test_theme_refuses_unknown_values(client):
    assert client.post("/theme", data={"theme": "neon"}).status_code == 400


@pytest.mark.parametrize(
    "target",
    ["//evil.example/", "/\t/evil.example", "/\n/evil.example", "/\\evil.example", "https://evil.example/"],
)
def test_theme_never_redirects_off_site(client, target):
    response = client.post("/theme", data={"theme": "light", "next": target})
    assert response.status_code == 303 and response.headers["Location"] == "/"


def test_theme_goes_back_to_a_local_page(client):
    response = client.post("/theme", data={"theme": "light", "next": "/admin/login?next=/admin"})
    assert response.status_code == 303 and response.headers["Location"] == "/admin/login?next=/admin"


def test_not_found_is_a_page(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert "There is nothing at this address." in response.get_data(as_text=True)


def test_unexpected_error_is_a_500_page_without_traceback(make_app):
    app = make_app()

    def explode():
        """Fail like a bug would."""
        raise RuntimeError("secret internals")

    app.add_url_rule("/explode", "explode", explode)
    response = app.test_client().get("/explode")
    html = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "Something went wrong" in html
    assert "secret internals" not in html and "Traceback" not in html


def test_rate_limit_answers_429_friendly(make_app):
    app = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ASK="2 per minute")
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    for _ in range(2):
        assert client.post("/ask", data={"question": ""}).status_code == 400  # counted, refused in place
    page = client.post("/ask", data={"question": "Too many?"})
    assert page.status_code == 429
    assert "Please wait a minute" in page.get_data(as_text=True)
    fragment = client.post("/ask", data={"question": "Too many?"}, headers=HX)
    assert fragment.status_code == 200
    assert "Please wait a minute" in fragment.get_data(as_text=True)
    assert 'role="alert"' in fragment.get_data(as_text=True)


def test_a_course_with_thousands_of_lessons_keeps_the_chat_page_small(make_app, docs_dir):
    lessons = "\n".join(
        f"Lesson {n}: Topic {n}\nLesson Link: https://example.com/l/{n}\nText {n}.\n" for n in range(1, 3001)
    )
    (docs_dir / "huge.txt").write_text(f"Course Title: Encyclopedia of Everything\n\n{lessons}")
    app = make_app()
    assert not app.extensions["services"].indexer.sync().problems
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "Topic 30</a>" in page and "Topic 31<" not in page and "Topic 31</a>" not in page
    assert '<a href="/courses/encyclopedia-of-everything">All 3000 lessons</a>' in page
    assert len(page) < 60_000
    outline = client.get("/courses/encyclopedia-of-everything")
    html = outline.get_data(as_text=True)
    assert outline.status_code == 200 and "Topic 3000</a>" in html and "3000 lessons" in html
    assert client.get("/courses/no-such-course").status_code == 404
