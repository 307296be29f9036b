"""Stored conversations: a URL each, the whole conversation after a reload, ownership, the list, export."""

from __future__ import annotations

import re
import secrets

from app.assistant.base import Answer, DoneEvent, TextEvent
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.web.support import (
    HX,
    ask_streamed,
    asked_plain,
    page_url,
    read_until,
    send_enabled,
    sse_events,
    stream_url_from,
    wait_for,
)

FINAL = Answer(markdown="Fixtures give tests **setup**.[^1]", sources=[FIXTURES_SOURCE])
CONVERSATION_URL = re.compile(r"/c/([\w-]{43})")


def scripted(app, *events, hold_at=None) -> ScriptedAnswerer:
    """Make `app` answer with these events (the same answer to every question)."""
    answerer = ScriptedAnswerer(list(events or [DoneEvent(FINAL)]), hold_at=hold_at)
    use_answerer(app, answerer)
    return answerer


def questions_on(html: str) -> list[str]:
    """The questions of the conversation shown on a page, in order."""
    section = re.search(r'<section id="conversation".*?</section>', html, re.S).group(0)
    return re.findall(r'<p class="question-text">([^<]*)</p>', section)


def test_five_questions_make_one_conversation_with_its_own_url(db_app):
    scripted(db_app)
    client = db_app.test_client()
    first = client.post("/ask", data={"question": "Question 1?", "conversation": ""}, headers=HX)
    url = first.headers["HX-Push-Url"]
    assert CONVERSATION_URL.fullmatch(url)
    # The sidebar's list gets the new conversation out-of-band.
    listed = re.search(
        r'<nav id="conversation-list"[^>]*>.*?</nav>', first.get_data(as_text=True), re.S
    ).group(0)
    assert 'hx-swap-oob="true"' in listed and f'href="{url}" aria-current="page">Question 1?</a>' in listed
    # Every form asking in the page's conversation (suggestions, course buttons) continues it from now on.
    oob = 'class="conversation-field" hx-swap-oob="outerHTML:.conversation-field">'
    assert f'value="{url[len("/c/") :]}" {oob}' in first.get_data(as_text=True)
    client.get(stream_url_from(first.get_data(as_text=True))).get_data()
    client.conversation = url[len("/c/") :]
    for number in range(2, 6):
        ask_streamed(client, f"Question {number}?")
    # A reload (or Back/Forward, or a second tab of the same browser) shows the whole conversation.
    page = client.get(url).get_data(as_text=True)
    assert questions_on(page) == [f"Question {n}?" for n in range(1, 6)]
    assert [f"exchange-{n}" for n in range(1, 6)] == re.findall(r'id="(exchange-\d+)"', page)
    assert page.count("<strong>setup</strong>") == 5
    # The list names it by its first question; the page's form continues it.
    assert f'href="{url}" aria-current="page">Question 1?</a>' in page
    assert re.search(rf'<form id="ask-form".*?name="conversation" value="{client.conversation}"', page, re.S)


def test_a_new_tab_starts_its_own_conversation_without_touching_the_other(db_app):
    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "First tab?")
    first = page_url(client)
    # The second tab opens "/": a new, empty chat whose form starts a new conversation.
    new_tab = client.get("/").get_data(as_text=True)
    assert questions_on(new_tab) == []
    assert re.search(r'<form id="ask-form".*?name="conversation" value=""', new_tab, re.S)
    client.conversation = ""
    ask_streamed(client, "Second tab?")
    second = page_url(client)
    assert second != first
    assert questions_on(client.get(first).get_data(as_text=True)) == ["First tab?"]
    assert questions_on(client.get(second).get_data(as_text=True)) == ["Second tab?"]
    # Each conversation's follow-up remembers only its own exchanges.
    answerer = scripted(db_app)
    client.conversation = first[len("/c/") :]
    ask_streamed(client, "First tab again?")
    assert [exchange.question for exchange in answerer.histories[0]] == ["First tab?"]


def test_nobody_else_opens_a_conversation(db_app):
    scripted(db_app)
    owner = db_app.test_client()
    ask_streamed(owner, "Private question?")
    url = page_url(owner)
    conversation = url[len("/c/") :]
    assert owner.get(url).status_code == 200

    stranger = db_app.test_client()  # a second browser
    stranger.get("/")
    guessed = f"/c/{secrets.token_urlsafe(32)}"
    for client, address in ((stranger, url), (owner, guessed), (stranger, f"{url}/export.md")):
        response = client.get(address)
        assert response.status_code == 404
        assert "Private question?" not in response.get_data(as_text=True)
    # Nor can a stranger continue, rename, delete or vote in it.
    asked = stranger.post("/ask", data={"question": "Mine now?", "conversation": conversation})
    assert asked.status_code == 404
    assert stranger.post(f"{url}/rename", data={"title": "Taken"}).status_code == 404
    assert stranger.post(f"{url}/delete").status_code == 404
    exchange_id = re.search(r"/feedback/(\d+)", owner.get(url).get_data(as_text=True)).group(1)
    assert stranger.post(f"/feedback/{exchange_id}", data={"vote": "down"}).status_code == 404
    assert questions_on(owner.get(url).get_data(as_text=True)) == ["Private question?"]
    assert "Taken" not in owner.get("/conversations").get_data(as_text=True)


def signing(app):
    """The serializer that signs `app`'s session cookie."""
    return app.session_interface.get_signing_serializer(app)


def test_a_forged_browser_id_opens_nothing(db_app, make_app):
    scripted(db_app)
    owner = db_app.test_client()
    ask_streamed(owner, "Whose is this?")
    url = page_url(owner)
    owner_id = signing(db_app).loads(owner.get_cookie("session").value)["browser"]
    # The owner's browser id in a cookie signed with another key (a guessed SECRET_KEY): dropped whole.
    forged = signing(make_app(SECRET_KEY="a-guessed-key")).dumps({"browser": owner_id})
    forger = db_app.test_client()
    forger.set_cookie("session", forged)
    response = forger.get(url)
    assert response.status_code == 404 and "Whose is this?" not in response.get_data(as_text=True)
    # A browser id of one's own choosing (well signed) owns nothing either.
    chosen = db_app.test_client()
    chosen.set_cookie("session", signing(db_app).dumps({"browser": "someone-else"}))
    assert chosen.get(url).status_code == 404


def stored_exchange(client, url: str) -> str:
    """The last exchange of the conversation page at `url`."""
    return re.findall(
        r"<article class=\"exchange.*?</article>", client.get(url).get_data(as_text=True), re.S
    )[-1]


def test_reload_mid_answer_follows_the_answer_to_its_end(db_app):
    answerer = scripted(
        db_app, TextEvent("The first half"), TextEvent(" and the rest"), DoneEvent(FINAL), hold_at=1
    )
    client = db_app.test_client()
    pending = client.post("/ask", data={"question": "Still there after a reload?"}, headers=HX)
    url = pending.headers["HX-Push-Url"]
    page = client.get(url).get_data(as_text=True)  # reloaded before the page's stream even opened
    exchange = re.search(
        r'<article class="exchange" id="exchange-1" aria-busy="true".*?</article>', page, re.S
    )
    assert exchange and "Still there after a reload?" in exchange.group(0)
    assert stream_url_from(exchange.group(0)) == stream_url_from(pending.get_data(as_text=True))
    assert "interrupted" not in page and not send_enabled(page)
    # The reloaded page's stream replays what was said, then follows the answer to its end.
    response = client.get(stream_url_from(page), buffered=False)
    read_until(response, b"The first half")
    answerer.release()
    events = sse_events(b"".join(response.response).decode())
    response.close()
    assert events[-1][0] == "done" and "<strong>setup</strong>" in events[-1][1]
    assert "exchange-answered" in stored_exchange(client, url)
    assert answerer.questions == ["Still there after a reload?"]


def test_an_answer_nobody_follows_still_finishes_and_is_stored(db_app):
    scripted(db_app, TextEvent("The first half"), TextEvent(" and the rest"), DoneEvent(FINAL))
    client = db_app.test_client()
    pending = client.post("/ask", data={"question": "Left before the first word?"}, headers=HX)
    url = pending.headers["HX-Push-Url"]
    wait_for(lambda: "exchange-answered" in stored_exchange(client, url))
    assert "<strong>setup</strong>" in stored_exchange(client, url)


def test_the_list_reopens_renames_and_deletes(db_app):
    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "Older conversation?")
    older = page_url(client)
    client.conversation = ""
    ask_streamed(client, "Newer conversation?")
    listing = client.get("/conversations").get_data(as_text=True)
    assert listing.index("Newer conversation?") < listing.index("Older conversation?")
    assert f'href="{older}"' in listing
    renamed = client.post(f"{older}/rename", data={"title": "  Vectors,\n revisited  "})
    assert renamed.status_code == 303 and renamed.headers["Location"] == "/conversations"
    assert ">Vectors, revisited</a>" in client.get("/conversations").get_data(as_text=True)
    assert client.post(f"{older}/rename", data={"title": "   "}).status_code == 400
    deleted = client.post(f"{older}/delete")
    assert deleted.status_code == 303
    assert client.get(older).status_code == 404
    # The list says what went and offers to undo it; nobody else can.
    listing = client.get(deleted.headers["Location"]).get_data(as_text=True)
    assert "Deleted “Vectors, revisited”." in listing and f'action="{older}/restore"' in listing
    assert 'href="' + older + '"' not in listing
    stranger = db_app.test_client()
    assert stranger.post(f"{older}/restore").status_code == 404
    restored = client.post(f"{older}/restore")
    assert restored.status_code == 303 and restored.headers["Location"] == older
    assert client.get(older).status_code == 200
    assert client.post(f"{older}/restore").status_code == 404  # nothing left to undo
    client.post(f"{older}/delete")
    assert "Vectors, revisited" not in client.get("/conversations").get_data(as_text=True)


def test_export_holds_every_exchange_and_source(db_app):
    scripted(db_app)
    client = db_app.test_client()
    for number in range(1, 4):
        ask_streamed(client, f"Export question {number}?")
    url = page_url(client)
    response = client.get(f"{url}/export.md")
    assert response.status_code == 200 and response.mimetype == "text/markdown"
    assert response.headers["Content-Disposition"] == 'attachment; filename="conversation.md"'
    text = response.get_data(as_text=True)
    assert text.startswith("# Export question 1?")
    for number in range(1, 4):
        assert f"## {number}. Question\n\n> Export question {number}?" in text
    assert text.count("Fixtures give tests **setup**.") == 3
    assert (
        text.count(
            "[Python Testing with Pytest – Lesson 2: Fixtures](<https://example.com/courses/pytest/lesson-2>)"
        )
        == 3
    )
    # One answer alone, from its "Download as Markdown" link; the whole from the page's export link.
    page = client.get(url).get_data(as_text=True)
    assert f'href="{url}/export.md" download>Export as Markdown</a>' in page
    link = re.findall(r'href="(/c/[\w-]+/export\.md\?exchange=\d+)" download>Download as Markdown', page)
    assert len(link) == 3
    single = client.get(link[1]).get_data(as_text=True)
    assert "## 1. Question\n\n> Export question 2?" in single and "> Export question 1?" not in single
    assert client.get(f"{url}/export.md?exchange=999999").status_code == 404


def test_no_js_questions_continue_their_conversation(db_app):
    scripted(db_app)
    client = db_app.test_client()
    first = asked_plain(client, "Plain one?")
    assert re.fullmatch(r"/c/[\w-]{43}#exchange-1", first.headers["Location"])
    second = asked_plain(client, "Plain two?")
    assert second.headers["Location"] == first.headers["Location"].replace("exchange-1", "exchange-2")
    assert questions_on(client.get(page_url(client)).get_data(as_text=True)) == ["Plain one?", "Plain two?"]


def test_retry_and_edit_ask_again_in_the_same_conversation(db_app):
    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "Retry me?")
    page = client.get(page_url(client)).get_data(as_text=True)
    actions = re.search(r'<div class="answer-actions">.*?</details>', page, re.S).group(0)
    assert f'name="conversation" value="{client.conversation}"' in actions
    assert 'name="question" value="Retry me?"' in actions and ">Retry</button>" in actions
    assert '<textarea id="edit-1" name="question"' in page and ">Retry me?</textarea>" in page
    asked_plain(client, "Retry me, edited?")
    assert questions_on(client.get(page_url(client)).get_data(as_text=True)) == [
        "Retry me?",
        "Retry me, edited?",
    ]


def test_new_chat_mid_answer_gives_an_empty_chat_with_an_enabled_form(db_app):
    scripted(db_app)
    client = db_app.test_client()
    client.post("/ask", data={"question": "Interrupted by a new chat?"}, headers=HX)
    response = client.post("/new", headers=HX)
    html = response.get_data(as_text=True)
    assert response.headers["HX-Push-Url"] == "/"
    assert 'class="empty-state"' in html and "<article" not in html
    # The send button comes back enabled, and every form's conversation field empty: the next question
    # starts a new conversation.
    assert send_enabled(html)
    fields = re.findall(r'<input type="hidden" name="conversation" value="([^"]*)" class="conv[^>]*>', html)
    assert fields and set(fields) == {""}
    assert 'class="conversation-field" hx-swap-oob="outerHTML:.conversation-field">' in html


def test_stream_events_never_carry_the_question_in_the_url(db_app):
    scripted(db_app)
    client = db_app.test_client()
    question = "这是一个很长的问题" * 222  # 1,998 CJK characters, within MAX_QUESTION_CHARS
    pending = client.post("/ask", data={"question": question}, headers=HX)
    url = stream_url_from(pending.get_data(as_text=True))
    assert len(url) < 200 and "问题" not in url
    name, done = sse_events(client.get(url).get_data(as_text=True))[-1]
    assert name == "done" and "<strong>setup</strong>" in done and question in done


def test_old_conversations_are_purged_on_an_ask_at_most_once_an_hour(db_app, monkeypatch):
    from datetime import datetime

    from sqlalchemy import text

    from app.web.chat import asking

    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "An old conversation?")
    old = page_url(client)
    with db_app.extensions["services"].store.db.engine.begin() as connection:
        connection.execute(text("UPDATE conversations SET updated_at = :old"), {"old": datetime(2000, 1, 1)})
    started = []
    purge = asking._maybe_purge
    monkeypatch.setattr(asking, "_last_purge", [float("-inf")])
    monkeypatch.setattr(asking, "_maybe_purge", lambda: started.append(purge()))
    client.conversation = ""
    ask_streamed(client, "A new one?")
    ask_streamed(client, "And another?")
    first, second = started
    assert first is not None and second is None  # once an hour per process
    first.join(timeout=30)
    assert client.get(old).status_code == 404
    assert client.get(page_url(client)).status_code == 200


def test_every_new_form_needs_the_csrf_token(make_app):
    app = make_app()  # CSRF on
    scripted(app)
    client = app.test_client()
    client.get("/")
    for url in ("/ask/stop/x", "/c/x/rename", "/c/x/delete", "/feedback/1"):
        response = client.post(url, data={"vote": "up", "title": "t"})
        assert response.status_code == 400
        assert "This form has expired" in response.get_data(as_text=True)


def test_search_finds_ones_own_conversations_by_title_question_or_answer(db_app):
    scripted(db_app)
    client = db_app.test_client()
    ask_streamed(client, "How do tomatoes ripen?")
    first = page_url(client)
    client.conversation = ""
    ask_streamed(client, "What is 100% humidity_level?")
    second = page_url(client)
    found = client.get("/conversations", query_string={"q": "TOMATOES"}).get_data(as_text=True)
    assert f'href="{first}"' in found and f'href="{second}"' not in found
    # Wildcards are text: "%" and "_" match only themselves.
    literal = client.get("/conversations", query_string={"q": "100% humidity_"}).get_data(as_text=True)
    assert f'href="{second}"' in literal and f'href="{first}"' not in literal
    nothing = client.get("/conversations", query_string={"q": "_%"}).get_data(as_text=True)
    assert "No conversation mentions “_%”." in nothing
    # The answers are searched too, and another browser finds nothing of them.
    word = FINAL.markdown.split()[-1].strip(".")
    answered = client.get("/conversations", query_string={"q": word}).get_data(as_text=True)
    assert f'href="{first}"' in answered and f'href="{second}"' in answered
    stranger = db_app.test_client()
    strange = stranger.get("/conversations", query_string={"q": "tomatoes"}).get_data(as_text=True)
    assert "No conversation mentions" in strange
