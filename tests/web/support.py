"""Helpers for the view tests: htmx headers, CSRF tokens from pages, Set-Cookie sizes, scripted answers."""

from __future__ import annotations

import re
import time
from typing import Any, NamedTuple

HX = {"HX-Request": "true"}
SEARCH_TOOL = "search_course_content"


def csrf_from(html: str) -> str:
    """The CSRF token of the first form in a page."""
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no csrf_token field in the page"
    return match.group(1)


def set_cookie_sizes(response) -> list[int]:
    """Byte sizes of every Set-Cookie header value of a response."""
    return [len(value.encode("latin-1")) for value in response.headers.getlist("Set-Cookie")]


def script_answer(fake_claude, text: str, query: str = "cosine similarity") -> None:
    """Make the fake model search the courses once, then answer `text`."""
    fake_claude.enqueue_tool_use(SEARCH_TOOL, {"query": query})
    fake_claude.enqueue_text(text)


def user_turns(request_body: dict) -> list[str]:
    """The plain-text user turns of a recorded Messages API request."""
    return [
        m["content"]
        for m in request_body["messages"]
        if m["role"] == "user" and isinstance(m["content"], str)
    ]


def sse_events(body: str) -> list[tuple[str, str]]:
    """The (event, data) pairs of a text/event-stream body, multi-line data joined as a browser does."""
    events = []
    for block in body.split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        if data:
            events.append((name, "\n".join(data)))
    return events


def stream_url_from(html: str) -> str:
    """The SSE URL of the pending exchange in an htmx answer to /ask."""
    match = re.search(r'sse-connect="([^"]+)"', html)
    assert match, "no pending exchange in the response"
    return match.group(1).replace("&amp;", "&")


def commit_token_from(html: str) -> str:
    """The commit token that the final stream message posts back."""
    match = re.search(r"hx-vals='\{&#34;token&#34;: &#34;([^&]+)&#34;\}'", html)
    if not match:
        match = re.search(r"hx-vals='\{\"token\": \"([^\"]+)\"\}'", html)
    assert match, "no commit request in the final message"
    return match.group(1)


class Streamed(NamedTuple):
    """What the page gets for one question with JavaScript on."""

    done: str  # the last stream message
    events: list[tuple[str, str]]  # every stream message
    commit: Any  # the commit's response (None when nothing was committed)

    @property
    def committed(self) -> str:
        """The commit's response body ("" when nothing was committed)."""
        return self.commit.get_data(as_text=True) if self.commit is not None else ""


def conversation_from(html: str) -> str:
    """The conversation the question form continues ("" for a new one), as the page keeps it."""
    match = re.search(r'<form id="ask-form".*?name="conversation" value="([^"]*)"', html, re.S)
    assert match, "no question form in the response"
    return match.group(1)


def send_enabled(html: str) -> bool:
    """True when `html` sends the composer's Send button back enabled, out-of-band (an answer ended)."""
    button = re.search(r'<button type="submit" id="ask-send"[^>]*>', html)
    return bool(button) and "hx-swap-oob" in button.group(0) and "disabled" not in button.group(0)


def ask_streamed(client, question: str, headers: dict | None = None) -> Streamed:
    """Ask as the page does with JavaScript: post, read the stream, commit; the next question continues the
    conversation, as the page's form does (`client.conversation`)."""
    data = {"question": question, "conversation": getattr(client, "conversation", "")}
    pending = client.post("/ask", data=data, headers={**HX, **(headers or {})})
    assert pending.status_code == 200, pending.get_data(as_text=True)
    # The pending exchange sends the composer back with the conversation it continues (a new one's id).
    client.conversation = conversation_from(pending.get_data(as_text=True))
    stream = client.get(stream_url_from(pending.get_data(as_text=True)))
    assert stream.mimetype == "text/event-stream"
    events = sse_events(stream.get_data(as_text=True))
    # A stream opened from scratch first empties the pending answer (chat/follow.py), then replays it.
    assert events[0][0] == "reset"
    events = events[1:]
    name, done = events[-1]
    assert name == "done"
    if 'id="ask-form"' in done:
        client.conversation = conversation_from(done)
    if 'hx-post="/ask/commit"' not in done:
        return Streamed(done, events, None)
    committed = client.post("/ask/commit", data={"token": commit_token_from(done)}, headers=HX)
    assert committed.status_code == 200
    return Streamed(done, events, committed)


def page_url(client) -> str:
    """The page the browser shows after its questions: its stored conversation, else the chat's start."""
    conversation = getattr(client, "conversation", "")
    return f"/c/{conversation}" if conversation else "/"


def asked_plain(client, question: str, **data) -> Any:
    """Ask without JavaScript, continuing the browser's conversation; remember where the answer landed."""
    fields = {"question": question, "conversation": getattr(client, "conversation", ""), **data}
    response = client.post("/ask", data=fields)
    location = response.headers.get("Location", "")
    if location.startswith("/c/"):
        client.conversation = location[len("/c/") :].partition("#")[0]
    return response


def read_until(response, text: bytes) -> str:
    """Read a streamed test response until `text` came; what was read."""
    read = b""
    for chunk in response.response:
        read += chunk
        if text in read:
            return read.decode()
    raise AssertionError(f"the stream ended without {text!r}")


def wait_for(condition, seconds: float = 10) -> None:
    """Poll `condition` until it holds; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)
