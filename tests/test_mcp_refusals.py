"""The MCP server's refusals, through the official client in process: bad arguments and unknown lessons get
their reason, a lesson whose file changed is not served, and the per-token limit holds with its store down."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError

from app.mcp_server.access import TokenRateLimit
from app.mcp_server.library import CourseLibrary
from app.mcp_server.server import build_server
from tests.conftest import ROOT
from tests.coroutines import run_coroutine
from tests.servers import flask_command, free_port, start_postgres

RAG_LESSON = "course://retrieval-augmented-generation-in-practice/lessons/1"


def session(app, steps) -> Any:
    """Run `steps(client)` against the app's MCP server, connected in process."""

    async def run() -> Any:
        async with Client(build_server(CourseLibrary(app))) as client:
            return await steps(client)

    return run_coroutine(run())


def refusal(app, steps) -> MCPError:
    """The protocol error a session ends with (the in-process client raises it inside task groups)."""
    with pytest.raises((MCPError, ExceptionGroup)) as raised:
        session(app, steps)
    error: BaseException = raised.value
    while isinstance(error, ExceptionGroup):
        [error] = error.exceptions
    assert isinstance(error, MCPError), error
    return error


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"query": "   "}, "Error executing tool search_course_content"),
        ({"query": "fixtures", "course": "underwater basket weaving"}, "No course matches"),
        ({"query": "fixtures", "course": "pytest", "lesson": 99}, "99"),
        ({"query": "fixtures", "lesson": -1}, "greater than or equal to 0"),
    ],
)
def test_a_bad_search_is_the_tools_error_with_its_reason(app, arguments, reason):
    result = session(app, lambda client: client.call_tool("search_course_content", arguments))

    assert result.is_error
    assert reason in result.content[0].text
    assert "Traceback" not in result.content[0].text


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("course://no-such-course/lessons/1", "There is no course 'no-such-course'"),
        ("course://retrieval-augmented-generation-in-practice/lessons/99", "has no lesson 99"),
        (
            "course://retrieval-augmented-generation-in-practice/lessons/first",
            "'first' is not a lesson number",
        ),
    ],
)
def test_a_lesson_the_library_lacks_is_not_found(app, uri, reason):
    error = refusal(app, lambda client: client.read_resource(uri))

    assert reason in error.error.message


def test_a_lesson_whose_file_changed_since_the_sync_is_not_served(app, docs_dir):
    before = session(app, lambda client: client.read_resource(RAG_LESSON))
    assert before.contents[0].text.strip()
    with (docs_dir / "rag_in_practice.txt").open("a") as rag:
        rag.write("\nA sentence added after the last sync.\n")

    error = refusal(app, lambda client: client.read_resource(RAG_LESSON))

    assert "changed or gone since it was indexed" in error.error.message


async def _ok(scope, receive, send) -> None:
    """An ASGI app that answers 200."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_per_token_limit_holds_in_memory_while_its_store_is_down():
    unreachable = f"redis://127.0.0.1:{free_port()}"
    guarded = TokenRateLimit(_ok, "2 per minute", unreachable)

    async def statuses(token: str | None, times: int) -> list[int]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        transport = httpx2.ASGITransport(app=guarded)
        async with httpx2.AsyncClient(transport=transport, base_url="http://mcp.test") as client:
            return [(await client.post("/mcp", headers=headers)).status_code for _ in range(times)]

    assert run_coroutine(statuses("camcp_first", 3)) == [200, 200, 429]
    assert run_coroutine(statuses("camcp_second", 1)) == [200]
    assert run_coroutine(statuses(None, 3)) == [200, 200, 200], "no token: left to the bearer check to refuse"


def test_the_web_app_never_loads_the_sdk(tmp_path):
    # The SDK (Starlette, uvicorn) belongs to `flask mcp` alone: a web worker's memory does not carry it.
    script = (
        "import sys; from app import create_app; "
        f"app = create_app({{'INSTANCE_PATH': {str(tmp_path)!r}, 'DOCS_DIR': {str(tmp_path)!r}}}); "
        "app.test_client().get('/healthz'); "
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('mcp', 'starlette', 'uvicorn')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.slow
def test_http_will_not_start_on_a_database_without_the_token_table(tmp_path, docs_dir):
    # A server database: the embedded SQLite file would migrate itself at the first use of the store.
    server = start_postgres(tmp_path)
    try:
        url = server.create_database("mcp_unmigrated")
        result = flask_command(
            tmp_path, docs_dir, "mcp", "--http", "--port", str(free_port()), DATABASE_URL=url
        )
    finally:
        server.stop()

    assert result.returncode == 1
    # The app's own line at the store's first use (app.store.schema), then the command's refusal.
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and "database schema is behind" in lines[0]
    assert lines[-1] == "Error: the database is not at the newest schema; run `flask --app wsgi db upgrade`."
