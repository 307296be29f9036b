"""Helpers for the view tests: htmx headers, CSRF tokens from pages, Set-Cookie sizes, scripted answers."""

from __future__ import annotations

import re

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
