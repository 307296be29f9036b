"""Helpers for the admin tests: a signed-in client with CSRF tokens, and snapshots of docs and index."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

PASSWORD = "correct horse battery staple"
HX = {"HX-Request": "true"}
JOB_TIMEOUT = 240
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_token(client: FlaskClient, url: str = "/admin/login") -> str:
    """The CSRF token from a form on `url` (tied to this client's session)."""
    html = client.get(url).get_data(as_text=True)
    match = _TOKEN.search(html)
    assert match, f"no CSRF token on {url}"
    return match.group(1)


class Admin:
    """A test client that signs in to the admin and sends each form with its CSRF token."""

    def __init__(self, app: Flask):
        self.app = app
        self.client = app.test_client()
        self._token: str | None = None

    def login(self, password: str = PASSWORD):
        """Sign in through the login form, keep the CSRF token that signing in issues; return the response."""
        self._token = csrf_token(self.client)
        response = self.client.post("/admin/login", data={"password": password, "csrf_token": self._token})
        if response.status_code == 303:
            self._token = csrf_token(self.client, "/admin")
        return response

    def post(
        self, url: str, data: dict | None = None, htmx: bool = False, headers: dict | None = None, **kwargs
    ):
        """POST a form with the CSRF token (as htmx when asked)."""
        data = {"csrf_token": self._token, **(data or {})}
        return self.client.post(url, data=data, headers={**(HX if htmx else {}), **(headers or {})}, **kwargs)

    def upload(self, files: list[tuple[bytes, str]], htmx: bool = False):
        """Upload (content, filename) pairs as the multipart field `files`."""
        import io

        fields = [(io.BytesIO(content), name) for content, name in files]
        return self.post("/admin/upload", {"files": fields}, htmx=htmx, content_type="multipart/form-data")

    @property
    def jobs(self):
        """The app's SyncJobs."""
        return self.app.extensions["services"].jobs

    def wait_for_job(self) -> dict:
        """Join this process's job thread, then return the job's final status as the JSON API shows it."""
        assert self.jobs.wait(JOB_TIMEOUT), "the sync job did not finish"
        status = self.jobs.status()
        assert status is not None and status.state == "done", status
        return status.public()


def search_texts(client: FlaskClient, query: str) -> list[str]:
    """The passage texts /api/search returns for a query."""
    response = client.get("/api/search", query_string={"q": query, "k": 10})
    assert response.status_code == 200, response.get_data(as_text=True)
    return [result["text"] for result in response.get_json()["results"]]


def course_titles(client: FlaskClient) -> list[str]:
    """The course titles /api/courses lists."""
    return client.get("/api/courses").get_json()["course_titles"]


def docs_snapshot(docs_dir: Path) -> dict[str, str]:
    """Every file in the docs folder (hidden ones included) with the hash of its bytes."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(docs_dir.iterdir())}


def index_snapshot(app: Flask) -> list[tuple[str, str, int]]:
    """Every indexed course as (id, content hash, chunk count)."""
    return [(c.id, c.content_hash, c.chunk_count) for c in app.extensions["services"].index.courses()]


def course_text(title: str, phrase: str, lessons: int = 2) -> str:
    """A small course document whose lessons mention `phrase`."""
    parts = [f"Course Title: {title}", "Course Instructor: Test Instructor", ""]
    for number in range(1, lessons + 1):
        parts += [
            f"Lesson {number}: Part {number}",
            f"This lesson explains {phrase} in detail. Part {number} shows how {phrase} behaves in practice.",
            "",
        ]
    return "\n".join(parts)
