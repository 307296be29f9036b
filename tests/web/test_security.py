"""Security headers, a page with no inline script or style, the vendored htmx, and CSRF refusals."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.web.redirects import safe_local_path
from app.web.security import CONTENT_SECURITY_POLICY
from tests.web.admin_helpers import PASSWORD, Admin
from tests.web.support import HX, ask_streamed, csrf_from

STATIC = Path(__file__).resolve().parents[2] / "static"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


class InlineFinder(HTMLParser):
    """Collect everything a strict CSP would block: inline scripts, <style>, style= and on*= attributes."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []
        self.meta: dict[str, str] = {}
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        """Check one tag and its attributes."""
        attributes = dict(attrs)
        if tag == "script" and not attributes.get("src"):
            self.problems.append("inline <script>")
        if tag == "style":
            self.problems.append("<style>")
        if tag == "meta" and "name" in attributes:
            self.meta[attributes["name"]] = attributes.get("content", "")
        for name in attributes:
            if name == "style" or name.startswith("on") or name.startswith("hx-on"):
                self.problems.append(f"{tag} {name}=")


def test_security_headers_on_pages_fragments_json_and_errors(client):
    for response in (
        client.get("/"),
        client.post("/ask", data={"question": ""}, headers=HX),
        client.get("/api/courses"),
        client.get("/healthz"),
        client.get("/missing"),
        client.get("/static/htmx.min.js"),
    ):
        assert response.headers["Content-Security-Policy"] == CSP == CONTENT_SECURITY_POLICY
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("path", ["/", "/missing"])
def test_pages_have_no_inline_script_or_style(claude_app, fake_claude, path):
    client = claude_app.test_client()
    fake_claude.enqueue_text("An answer with `code` and a [link](https://example.com).")
    client.post("/ask", data={"question": "Anything?"})
    finder = InlineFinder()
    finder.feed(client.get(path).get_data(as_text=True))
    assert finder.problems == []
    config = json.loads(finder.meta["htmx-config"])
    assert config["allowEval"] is False and config["includeIndicatorStyles"] is False


def test_fragments_have_no_inline_script_or_style(claude_app, fake_claude):
    client = claude_app.test_client()
    fake_claude.enqueue_text("<b style='color:red' onclick='x()'>hi</b>")
    finder = InlineFinder()
    streamed = ask_streamed(client, "Anything?")
    for fragment in (streamed.done, streamed.committed):
        finder.feed(fragment)
    finder.feed(client.post("/new", headers=HX).get_data(as_text=True))
    assert finder.problems == []


def test_htmx_is_vendored_with_version_and_licence():
    first_line = (STATIC / "htmx.min.js").read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith("/* htmx.org 2.0.") and "0BSD" in first_line and first_line.endswith("*/")


def test_hyperscript_is_vendored_with_version_and_licence_and_needs_no_eval():
    script = (STATIC / "_hyperscript.min.js").read_text(encoding="utf-8")
    first_line = script.splitlines()[0]
    assert first_line.startswith("/* _hyperscript 0.9.") and "BSD-2-Clause" in first_line
    assert "BSD 2-Clause License" in (STATIC / "_hyperscript.LICENSE").read_text(encoding="utf-8")
    # Only its `js` blocks compile strings to code; the templates use none.
    assert script.count("new Function(") == 1
    scripts = [
        found
        for page in (STATIC.parent / "templates").rglob("*.html")
        for found in re.findall(r'\s_="([^"]*)"', page.read_text(encoding="utf-8"))
    ]
    assert scripts and not [found for found in scripts if re.search(r"\bjs\b", found)]


def test_body_sends_the_csrf_token_to_htmx(make_app):
    client = make_app().test_client()
    html = client.get("/").get_data(as_text=True)
    token = csrf_from(html)
    assert f'<body hx-headers=\'{{"X-CSRFToken": "{token}"}}\'>' in html


@pytest.mark.parametrize("path", ["/ask", "/new", "/theme"])
def test_forms_without_csrf_token_are_refused(make_app, path):
    client = make_app().test_client()  # CSRF on
    client.get("/")
    page = client.post(path, data={"question": "Hello?", "theme": "dark"})
    assert page.status_code == 400
    assert "This form has expired" in page.get_data(as_text=True)
    fragment = client.post(path, data={"question": "Hello?", "theme": "dark"}, headers=HX)
    assert fragment.status_code == 200  # htmx swaps only 2xx; the fragment carries the refusal
    assert "Reload the page and try again." in fragment.get_data(as_text=True)


def test_forged_csrf_token_is_refused(make_app):
    client = make_app().test_client()
    client.get("/")
    response = client.post("/ask", data={"question": "Hello?", "csrf_token": "forged"})
    assert response.status_code == 400


def test_csrf_token_in_form_or_header_is_accepted(make_app):
    client = make_app().test_client()
    token = csrf_from(client.get("/").get_data(as_text=True))
    assert (
        client.post("/ask", data={"question": "What is fixture scope?", "csrf_token": token}).status_code
        == 303
    )
    response = client.post(
        "/ask", data={"question": "What is fixture scope?"}, headers={**HX, "X-CSRFToken": token}
    )
    assert response.status_code == 200 and "<article" in response.get_data(as_text=True)
    assert client.post("/theme", data={"theme": "dark", "csrf_token": token}).status_code == 303
    assert client.post("/new", data={"csrf_token": token}).status_code == 303


HOSTILE_COURSE = """Course Title: Hostile Links
Course Link: javascript:alert(1)
Course Instructor: Mallory

Lesson 1: Clicking Things
Lesson Link: javascript:alert(2)
Hostile links in a course document must never become clickable links on any page.
"""


@pytest.fixture
def hostile_app(make_app, docs_dir):
    """An app (admin on, CSRF on) whose index holds a course with javascript: course and lesson links."""
    (docs_dir / "hostile.txt").write_text(HOSTILE_COURSE)
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    report = app.extensions["services"].indexer.sync()
    assert not report.problems, report.problems
    return app


def test_document_links_that_are_not_http_never_reach_an_href(hostile_app):
    client = hostile_app.test_client()
    chat = client.get("/").get_data(as_text=True)
    token = csrf_from(chat)
    answer = ask_streamed(
        client, "Why must hostile links never become clickable?", headers={"X-CSRFToken": token}
    ).done
    admin = Admin(hostile_app)
    admin.login()
    admin_page = admin.client.get("/admin").get_data(as_text=True)
    assert "Hostile Links – Lesson 1: Clicking Things" in answer  # the source is listed, unlinked
    for html in (chat, answer, admin_page):
        assert "Hostile Links" in html
        assert "javascript:" not in html
    # Plain http(s) course links still are links.
    assert '<a href="https://example.com/courses/vectordb" rel="noopener nofollow">' in admin_page


OFF_SITE = [
    "//evil.example/",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "/\x00/evil.example",
    "/\x7f/evil.example",
    "/\x85/evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "evil.example",
    "",
    None,
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_redirect_targets_off_this_site_fall_back(target):
    assert safe_local_path(target, "/fallback") == "/fallback"
    assert safe_local_path(target, "/admin", prefix="/admin") == "/admin"


@pytest.mark.parametrize("target", ["/", "/admin/sync/status?x=1", "/a b#part", "/admin"])
def test_local_paths_are_kept(target):
    assert safe_local_path(target, "/fallback") == target


def test_a_prefix_keeps_redirects_inside_its_area():
    assert safe_local_path("/admin/sync/status", "/admin", prefix="/admin") == "/admin/sync/status"
    for target in ("/", "/administrator", "/elsewhere/admin"):
        assert safe_local_path(target, "/admin", prefix="/admin") == "/admin"


def test_the_api_never_returns_a_link_that_is_not_http(hostile_app):
    client = hostile_app.test_client()
    courses = client.get("/api/courses").get_json()["courses"]
    hostile = next(course for course in courses if course["title"] == "Hostile Links")
    assert hostile["link"] is None and [lesson["link"] for lesson in hostile["lessons"]] == [None]
    assert any(course["link"] and course["link"].startswith("https://") for course in courses)
    results = client.get("/api/search", query_string={"q": "hostile links clickable", "course": "Hostile"})
    assert [hit["lesson_link"] for hit in results.get_json()["results"]] == [None]
    answer = client.post("/api/query", json={"query": "Why must hostile links never become clickable?"})
    citations = answer.get_json()["citations"]
    assert citations and all(not (c["link"] or "").startswith("javascript:") for c in citations)
    assert "javascript:" not in json.dumps([client.get("/api/courses").get_json(), answer.get_json()])


def test_pages_and_fragments_are_never_cached_but_static_files_may_be(make_app):
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    for response in (
        admin.client.get("/"),
        admin.client.post("/ask", data={"question": "", "csrf_token": admin._token}, headers=HX),
        admin.client.get("/admin"),
        admin.client.get("/admin/login"),
    ):
        assert response.mimetype == "text/html"
        assert response.headers["Cache-Control"] == "no-store"
    assert "no-store" not in admin.client.get("/static/htmx.min.js").headers.get("Cache-Control", "")


def test_an_oversized_question_body_gets_the_friendly_page_with_its_headers(make_app):
    app = make_app(MAX_UPLOAD_MB="0.01")
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    # No Content-Length to check up front: the limit trips while the form is read, in the view.
    body = "question=" + "x" * 20_000
    response = client.post(
        "/ask", data=body, content_type="application/x-www-form-urlencoded", headers={"Content-Length": ""}
    )
    assert response.status_code == 413
    assert "larger than the limit" in response.get_data(as_text=True)
    assert response.headers["Content-Security-Policy"] == CSP


def test_more_form_parts_than_allowed_is_a_friendly_413_not_a_bare_500(make_app):
    app = make_app()
    app.config["WTF_CSRF_ENABLED"] = False
    parts = {f"field{n}": "x" for n in range(1_200)} | {"question": "What is fixture scope?"}
    response = app.test_client().post("/ask", data=parts, content_type="multipart/form-data", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and ("Too large" in html or "larger than the limit" in html)
    assert response.headers["Content-Security-Policy"] == CSP


def test_json_nested_past_the_stack_is_a_400(client):
    response = client.post("/api/query", data="[" * 100_000, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"] == "The JSON body is nested too deeply."


def test_debug_mode_lets_the_debugger_see_unexpected_errors(make_app, monkeypatch):
    app = make_app()
    app.config["WTF_CSRF_ENABLED"] = False

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(app.extensions["services"].index, "courses", broken)
    assert app.test_client().get("/api/courses").status_code == 500  # production: a friendly 500
    app.debug = True
    with pytest.raises(ZeroDivisionError):
        app.test_client().get("/api/courses")
