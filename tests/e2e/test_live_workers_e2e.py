"""An answer made by one gunicorn worker, followed in Chromium from a page the other worker serves: through
the shared database, and through a real Redis."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.test_live_answers_e2e import expect_answered, slow_answer
from tests.fake_claude import FakeClaude
from tests.servers import start_redis
from tests.test_deploy import Gunicorn
from tests.test_deploy_stream import serving_two_workers

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Each try is a new answer followed from a fresh connection; enough tries to land on both workers.
MAX_TRIES = 8
ACCESS_LINE = re.compile(r"^<(\d+)> \d+ (GET|POST) (/ask/stream/[\w-]+|/ask)\?", re.MULTILINE)


@pytest.fixture(scope="module")
def fake_claude_module():
    """The fake Messages API, shared by the module's gunicorn workers."""
    with FakeClaude() as server:
        yield server


@pytest.fixture(scope="module", params=["database", "redis"])
def two_workers(request, tmp_path_factory, fake_claude_module):
    """Two gunicorn workers answering with the fake model, sharing a migrated SQLite file (and a Redis)."""
    tmp = tmp_path_factory.mktemp(f"live-workers-{request.param}")
    redis = start_redis(tmp) if request.param == "redis" else None
    extra = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake_claude_module.url}
    if redis is not None:
        extra["RATELIMIT_STORAGE_URI"] = redis.url
    try:
        with serving_two_workers(tmp, **extra) as server:
            yield server
    finally:
        if redis is not None:
            redis.stop()


def pids(server: Gunicorn, path: str) -> list[str]:
    """The pids of the workers that answered requests for `path`, from the access log."""
    return [pid for pid, _method, seen in ACCESS_LINE.findall(server.stdout()) if seen == path]


def test_a_page_served_by_the_other_worker_follows_the_answer_to_its_end(
    browser, two_workers, fake_claude_module
):
    context = browser.new_context()
    page = context.new_page()
    crossed = False
    for attempt in range(MAX_TRIES):
        slow_answer(fake_claude_module)
        page.goto(two_workers.url("/"))
        page.get_by_label("Your question").fill(f"What do fixtures give tests, try {attempt}?")
        page.get_by_role("button", name="Send", exact=True).click()
        pending = page.locator("article.exchange[aria-busy]")
        expect(pending.locator(".prose")).to_contain_text("word1", timeout=30_000)
        stream = pending.get_attribute("sse-connect").partition("?")[0]
        asked_by = pids(two_workers, "/ask")[-1]
        # The same browser on fresh connections (a new context, its cookie), so either worker may serve it.
        other = browser.new_context()
        other.add_cookies(context.cookies())
        tab = other.new_page()
        tab.goto(page.url)
        expect(tab.locator("article.exchange[aria-busy] .prose")).to_contain_text("word1")
        for shown in (tab, page):
            expect_answered(shown)
        tab.reload()
        expect(tab.locator("article.exchange-answered")).to_have_count(1)
        other.close()
        if any(pid != asked_by for pid in pids(two_workers, stream)):
            crossed = True
            break
    context.close()
    assert crossed, "every page's stream landed on the worker making the answer; the other was never tried"
    assert "interrupted" not in two_workers.stdout() + two_workers.stderr()
