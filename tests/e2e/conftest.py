"""Browser fixtures: the app served on a loopback port in a thread, and Debian's headless Chromium."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from tests.web.admin_helpers import PASSWORD

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def serve(app) -> Iterator[str]:
    """Serve `app` with a threaded werkzeug server on a free loopback port; yield its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def live_server(make_app, fake_claude):
    """The app in Claude mode (fake Messages API), CSRF on, served by werkzeug on 127.0.0.1."""
    with serve(make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url)) as base:
        yield base


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the system package, driven by Playwright (never `playwright install`)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# A sync of a caption course embeds a whole lecture: generous, on a loaded machine.
SYNC_TIMEOUT_MS = 300_000


@pytest.fixture
def live_admin(make_app):
    """The app (admin on, CSRF on) served over HTTP on 127.0.0.1; sync jobs finish before the folder goes."""
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    try:
        with serve(app) as base:
            yield app, base
    finally:
        app.extensions["services"].jobs.wait(SYNC_TIMEOUT_MS / 1000)
