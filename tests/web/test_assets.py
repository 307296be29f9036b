"""Static files under fingerprinted URLs cached for a year; pages, styles, scripts gzipped, streams not."""

from __future__ import annotations

import gzip
import re

from app.assistant.base import Answer, DoneEvent, TextEvent
from app.web.assets import ONE_YEAR
from tests.scripted_answerer import FIXTURES_SOURCE, ScriptedAnswerer, use_answerer
from tests.web.support import HX, stream_url_from

GZIP = {"Accept-Encoding": "gzip, br"}


def static_urls(html: str) -> list[str]:
    """The static file URLs a page links to."""
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def test_static_urls_carry_the_file_hash_and_are_cached_for_a_year(client, app):
    urls = static_urls(client.get("/").get_data(as_text=True))
    assert {url.split("?")[0] for url in urls} >= {
        "/static/app.css",
        "/static/dark.css",
        "/static/htmx.min.js",
        "/static/htmx-ext-sse.min.js",
        "/static/favicon.svg",
    }
    for url in urls:
        assert re.fullmatch(r"/static/[\w.-]+\?v=[0-9a-f]{12}", url), url
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == f"public, max-age={ONE_YEAR}, immutable"
    # A URL without the current hash (an old page, a guess) is checked again each time.
    stale = client.get("/static/app.css?v=000000000000")
    assert stale.status_code == 200 and "immutable" not in stale.headers.get("Cache-Control", "")
    assert "immutable" not in client.get("/static/app.css").headers.get("Cache-Control", "")


def test_a_changed_file_gets_a_new_url(client, app, tmp_path):
    app.static_folder = str(tmp_path)
    (tmp_path / "app.css").write_text("body { color: red; }")
    first = client.get("/").get_data(as_text=True)
    (tmp_path / "app.css").write_text("body { color: blue; }")
    second = client.get("/").get_data(as_text=True)
    old, new = (re.search(r'href="(/static/app\.css\?v=\w+)"', page).group(1) for page in (first, second))
    assert old != new


def test_pages_styles_and_scripts_are_gzipped_for_clients_that_accept_it(client):
    page = client.get("/", headers=GZIP)
    assert page.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in page.headers["Vary"]
    assert "<!doctype html>" in gzip.decompress(page.get_data()).decode()
    for url in static_urls(gzip.decompress(page.get_data()).decode()):
        if url.startswith(("/static/app.css", "/static/htmx.min.js")):
            response = client.get(url, headers=GZIP)
            plain = client.get(url)
            assert response.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(response.get_data()) == plain.get_data()
            assert len(response.get_data()) < len(plain.get_data()) / 2
            assert response.headers["ETag"].startswith("W/")
    # Without Accept-Encoding nothing changes.
    assert "Content-Encoding" not in client.get("/").headers


def test_the_answer_stream_is_never_compressed(app, client):
    use_answerer(
        app,
        ScriptedAnswerer(
            [TextEvent("x " * 600), DoneEvent(Answer(markdown="x " * 600, sources=[FIXTURES_SOURCE]))]
        ),
    )
    pending = client.post("/ask", data={"question": "Stream?"}, headers={**HX, **GZIP})
    stream = client.get(stream_url_from(gzip.decompress(pending.get_data()).decode()), headers=GZIP)
    assert stream.mimetype == "text/event-stream"
    assert "Content-Encoding" not in stream.headers
    assert b"event: done" in stream.get_data()
