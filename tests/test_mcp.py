"""The MCP server through the official `mcp` client: over stdio from `flask mcp`, over HTTP from `flask mcp
--http` on loopback; the same passages as /api/search, and over HTTP only with a live bearer token."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app import create_app
from app.courses.parsing import parse_file
from tests.conftest import ROOT, TEST_COURSES, make_config
from tests.coroutines import run_coroutine
from tests.helpers import Library
from tests.servers import ServerProcess, answers, free_port
from tests.test_video_index import TITLE as LECTURE_COURSE
from tests.test_video_index import write_course

pytestmark = pytest.mark.slow

FLASK = str(Path(sys.executable).parent / "flask")
TOOLS = {"search_course_content", "get_course_outline", "list_courses"}
# Each (tool arguments, /api/search query string): the same search asked of both.
SEARCHES = [
    (
        {"query": "what does retrieval add to a language model"},
        {"q": "what does retrieval add to a language model"},
    ),
    ({"query": "fixtures", "course": "pytest"}, {"q": "fixtures", "course": "pytest"}),
    ({"query": "index", "course": "vector", "lesson": 2}, {"q": "index", "course": "vector", "lesson": 2}),
    (
        {"query": "syllabus on the website", "course": "psyc"},
        {"q": "syllabus on the website", "course": "psyc"},
    ),
]
RATE_LIMIT = 20
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    """The test courses and a captioned lecture, indexed with the real model, the database migrated."""
    root = tmp_path_factory.mktemp("mcp")
    source = root / "source"
    shutil.copytree(TEST_COURSES, source)
    write_course(source / "psyc110")
    library = Library.indexed(root / "lib", source)
    from app.store.store import Store

    store = Store.from_settings(library.settings)
    store.upgrade()
    store.close()
    return root / "lib"


@pytest.fixture(scope="module")
def web(served):
    """The web app over the same index and database, for /api/search and for making tokens."""
    app = create_app(make_config(served, served / "docs"))
    app.config["TESTING"] = True
    yield app
    app.extensions["services"].store.close()


def environment(served: Path, **extra: str) -> dict[str, str]:
    """The environment of a `flask mcp` process over the served library."""
    return {
        **os.environ,
        "INSTANCE_PATH": str(served / "instance"),
        "CHROMA_PATH": str(served / "instance" / "chroma"),
        "DOCS_DIR": str(served / "docs"),
        "SECRET_KEY": "test-secret-key",
        **extra,
    }


def api_search(web, query: dict[str, Any]) -> dict[str, Any]:
    """What /api/search answers for the query string."""
    response = web.test_client().get("/api/search", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


async def exercise(client: Client) -> dict[str, Any]:
    """Everything a session asks: the tools, each search, an outline, the courses, the lessons, one text."""
    tools = await client.list_tools()
    searches = [await client.call_tool("search_course_content", arguments) for arguments, _ in SEARCHES]
    outline = await client.call_tool("get_course_outline", {"course": "RAG"})
    courses = await client.call_tool("list_courses", {})
    unknown = await client.call_tool("get_course_outline", {"course": "underwater basket weaving"})
    resources = await client.list_resources()
    lesson = await client.read_resource("course://retrieval-augmented-generation-in-practice/lessons/2")
    return {
        "tools": {tool.name for tool in tools.tools},
        "searches": [result.structured_content for result in searches],
        "errors": [result.is_error for result in [*searches, outline, courses]],
        "outline": outline.structured_content,
        "courses": courses.structured_content,
        "unknown": (unknown.is_error, unknown.content[0].text),
        "resources": {str(resource.uri): resource.title for resource in resources.resources},
        "lesson": lesson.contents[0].text,
    }


def check_session(seen: dict[str, Any], web) -> None:
    """A session saw the three tools, /api/search's passages, /api/courses' courses and a lesson's text."""
    assert seen["tools"] == TOOLS
    assert not any(seen["errors"])
    for found, (_, query) in zip(seen["searches"], SEARCHES, strict=True):
        assert found == api_search(web, query), query
        assert found["results"]
    timed = seen["searches"][-1]["results"]
    assert all(isinstance(passage["start_seconds"], float) for passage in timed), (
        "a lecture's passage has its second"
    )
    assert all(f"t={int(passage['start_seconds'])}s" in passage["lesson_link"] for passage in timed)
    assert all("start_seconds" not in passage for passage in seen["searches"][0]["results"])
    courses = web.test_client().get("/api/courses").get_json()
    assert seen["courses"] == courses
    assert seen["outline"] == next(c for c in courses["courses"] if c["title"].startswith("Retrieval"))
    assert seen["unknown"][0] and "No course matches" in seen["unknown"][1]
    lessons = sum(len(course["lessons"]) for course in courses["courses"])
    assert len(seen["resources"]) == lessons
    assert any(title.startswith(LECTURE_COURSE) for title in seen["resources"].values())
    rag = parse_file(TEST_COURSES / "rag_in_practice.txt")
    assert seen["lesson"] == next(lesson.text for lesson in rag.lessons if lesson.number == 2)


# -- stdio ----------------------------------------------------------------------------------------------


def test_the_mcp_client_over_stdio_gets_what_the_api_gives(served, web):
    parameters = StdioServerParameters(
        command=FLASK, args=["--app", "wsgi", "mcp"], env=environment(served), cwd=ROOT
    )

    async def session() -> dict[str, Any]:
        async with Client(parameters, read_timeout_seconds=120) as client:
            return await exercise(client)

    check_session(run_coroutine(session()), web)


# -- HTTP -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server(served, tmp_path_factory):
    """`flask mcp --http` on a free loopback port, with a small per-token limit."""
    port = free_port()
    server = ServerProcess(
        [FLASK, "--app", "wsgi", "mcp", "--http", "--port", str(port)],
        tmp_path_factory.mktemp("mcp-http-logs"),
        env=environment(served, RATELIMIT_MCP=f"{RATE_LIMIT} per minute"),
    )
    try:
        server.wait_until(lambda: answers(f"http://127.0.0.1:{port}/healthz"), "flask mcp --http")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.stop()


def token_for(web, label: str) -> tuple[int, str]:
    """A new token's id and secret, made as the admin page makes them."""
    issued = web.extensions["services"].store.tokens.issue(label)
    return issued.record.id, issued.secret


def with_token(url: str, secret: str, statuses: list[int] | None = None):
    """The streamable HTTP transport, sending the bearer token with every request (noting each status)."""

    async def note(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    client = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {secret}"}, timeout=120, event_hooks={"response": [note]}
    )
    return streamable_http_client(url, http_client=client)


def post(url: str, secret: str | None = None) -> httpx2.Response:
    """One JSON-RPC ping, with the token when given."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx2.post(url, headers=headers, content=json.dumps(PING), timeout=60)


def test_the_mcp_client_over_http_gets_what_the_api_gives(http_server, web):
    _, secret = token_for(web, "HTTP session")

    async def session() -> dict[str, Any]:
        async with Client(with_token(http_server, secret)) as client:
            return await exercise(client)

    check_session(run_coroutine(session()), web)
    [listed] = [
        token for token in web.extensions["services"].store.tokens.all() if token.label == "HTTP session"
    ]
    assert listed.last_used_at is not None


def test_http_without_a_live_token_is_refused(http_server, web):
    token_id, secret = token_for(web, "Soon revoked")
    assert post(http_server, secret).status_code == 200

    web.extensions["services"].store.tokens.revoke(token_id)

    for refused in (post(http_server), post(http_server, "camcp_made-up"), post(http_server, secret)):
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")


def test_the_mcp_client_with_a_wrong_token_cannot_connect(http_server):
    statuses: list[int] = []

    async def session() -> None:
        async with Client(with_token(http_server, "camcp_not-a-token", statuses)) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the refusal in its own error (group)
        run_coroutine(session())
    assert statuses and set(statuses) == {401}


def test_each_token_has_its_own_rate_limit(http_server, web):
    _, busy = token_for(web, "Busy")
    _, quiet = token_for(web, "Quiet")

    statuses = [post(http_server, busy).status_code for _ in range(RATE_LIMIT)]
    over = post(http_server, busy)

    assert 429 not in statuses
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1
    assert post(http_server, quiet).status_code == 200, "another token keeps its own budget"
