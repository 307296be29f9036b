"""Streamed answers under gunicorn with 2 gthread workers: a commit may land on the other worker."""

from __future__ import annotations

import http.cookiejar
import re
import shutil
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import TEST_COURSES
from tests.test_deploy import BIN, ROOT, Gunicorn, app_env, flask_index
from tests.web.support import commit_token_from, csrf_from, sse_events, stream_url_from

pytestmark = pytest.mark.slow

# Fresh connections, so either worker may accept each request; enough tries to see both sides.
MAX_TRIES = 30
ACCESS_LINE = re.compile(r"^<(\d+)> (\d+) (GET|POST) (/ask/stream|/ask/commit)[/?]", re.MULTILINE)


class Browser:
    """A cookie-keeping HTTP client that opens a new connection per request, as a page's requests may."""

    def __init__(self, server: Gunicorn):
        self.server = server
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.csrf = csrf_from(self.get("/"))

    def get(self, path: str) -> str:
        """GET `path`; the body."""
        with self.opener.open(self.server.url(path), timeout=60) as response:
            return response.read().decode()

    def post(self, path: str, data: dict[str, str]) -> str:
        """POST a form as htmx does (with the CSRF header); the body."""
        request = urllib.request.Request(
            self.server.url(path),
            data=urllib.parse.urlencode(data).encode(),
            headers={"HX-Request": "true", "X-CSRFToken": self.csrf},
            method="POST",
        )
        with self.opener.open(request, timeout=60) as response:
            assert response.status == 200
            return response.read().decode()


@contextmanager
def serving_two_workers(tmp: Path, **extra: str) -> Iterator[Gunicorn]:
    """The test courses indexed into an embedded folder under `tmp`, served by 2 gunicorn workers with the
    settings `extra` (an ANTHROPIC_API_KEY among them is kept)."""
    docs = tmp / "docs"
    shutil.copytree(TEST_COURSES, docs)
    env = app_env(tmp, docs, **extra)
    if "ANTHROPIC_API_KEY" in extra:
        env["ANTHROPIC_API_KEY"] = extra["ANTHROPIC_API_KEY"]
    flask_index(env)
    # As `make run` and the image do: the workers share the migrated SQLite file (questions, answer runs).
    upgraded = subprocess.run(
        [str(BIN / "flask"), "--app", "wsgi", "db", "upgrade"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=180,
    )
    assert upgraded.returncode == 0, upgraded.stderr
    server = Gunicorn(env, tmp / "gunicorn-logs", workers=2)
    try:
        server.wait_serving()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """The test courses served by 2 gunicorn workers, extractive."""
    with serving_two_workers(tmp_path_factory.mktemp("deploy-stream")) as server:
        yield server


def test_stream_on_one_worker_and_commit_on_the_other(two_workers):
    browser = Browser(two_workers)
    crossed = False
    for attempt in range(MAX_TRIES):
        question = f"What is fixture scope, attempt {attempt}?"
        pending = browser.post("/ask", {"question": question})
        events = sse_events(browser.get(stream_url_from(pending)))
        assert [name for name, _ in events][-1:] == ["done"]
        committed = browser.post("/ask/commit", {"token": commit_token_from(events[-1][1])})
        assert "not saved" not in committed
        assert question in browser.get("/conversations")  # stored by whichever worker took the ask
        lines = ACCESS_LINE.findall(two_workers.stdout())
        stream_pid, commit_pid = lines[-2][0], lines[-1][0]
        assert [line[1:] for line in lines[-2:]] == [
            ("200", "GET", "/ask/stream"),
            ("200", "POST", "/ask/commit"),
        ]
        if stream_pid != commit_pid:
            crossed = True
            break
    assert crossed, "every commit landed on the worker that streamed; the other worker was never tried"
