"""The admin page in headless Chromium: sign in, upload a DOCX, watch the sync, see the course, remove it."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import serve
from tests.helpers import make_docx
from tests.web.admin_helpers import PASSWORD, course_text

pytestmark = pytest.mark.e2e

SYNC_TIMEOUT_MS = 180_000


@pytest.fixture
def live_admin(make_app):
    """The app (admin on, CSRF on) served over HTTP on 127.0.0.1; sync jobs finish before the folder goes."""
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    try:
        with serve(app) as base:
            yield app, base
    finally:
        app.extensions["services"].jobs.wait(SYNC_TIMEOUT_MS / 1000)


def _sign_in(page, base: str) -> None:
    """Open the admin page, get sent to the login form, sign in."""
    page.goto(f"{base}/admin")
    assert "/admin/login" in page.url
    page.fill("#admin-password", PASSWORD)
    page.click("text=Sign in")
    page.wait_for_url(f"{base}/admin")


def test_upload_a_docx_watch_the_sync_find_the_course_and_remove_it(live_admin, browser, tmp_path):
    app, base = live_admin
    document = make_docx(
        tmp_path / "birdsong.docx", course_text("Birdsong Identification", "the dawn chorus")
    )
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    _sign_in(page, base)

    page.set_input_files("#upload-files", str(document))
    page.click("text=Upload and index")
    # The upload answers with the polling progress bar; it ends in "Sync finished" with a full bar.
    page.wait_for_selector("#sync-progress.sync-done", timeout=SYNC_TIMEOUT_MS)
    bar = page.locator("#sync-progress progress")
    assert bar.get_attribute("value") == bar.get_attribute("max")
    assert "birdsong.docx" in page.inner_text(".upload-result")
    # The final poll refreshed the course table out of band.
    row = page.locator("#course-birdsong-identification")
    assert row.count() == 1 and "birdsong.docx" in row.inner_text()
    page.screenshot(path=str(tmp_path / "admin-after-upload.png"), full_page=True)

    page.goto(f"{base}/")
    assert "Birdsong Identification" in page.inner_text("body")

    page.goto(f"{base}/admin")
    with page.expect_navigation(url=f"{base}/admin"):
        page.locator("#course-birdsong-identification button", has_text="Remove").click()
    assert page.locator("#course-birdsong-identification").count() == 0
    assert "birdsong.docx" in page.inner_text(".admin-trash")
    page.goto(f"{base}/")
    assert "Birdsong Identification" not in page.inner_text("body")
    assert not [e for e in errors if "Content Security Policy" in e], errors
    page.close()


def test_sync_without_javascript_follows_the_self_refreshing_status_page(live_admin, browser, tmp_path):
    _, base = live_admin
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    _sign_in(page, base)
    page.click("text=Sync with docs")
    page.wait_for_url(f"{base}/admin/sync/status")
    # The page reloads itself every second (meta refresh) until the job has ended.
    page.wait_for_selector("text=Sync finished", timeout=SYNC_TIMEOUT_MS)
    assert "3 unchanged" in page.inner_text("#sync-progress")
    page.screenshot(path=str(tmp_path / "status-no-js.png"), full_page=True)
    context.close()
