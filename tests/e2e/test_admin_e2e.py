"""The admin page in headless Chromium: sign in, upload a DOCX, watch the sync, see the course, remove it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SYNC_TIMEOUT_MS
from tests.helpers import make_docx
from tests.web.admin_helpers import PASSWORD, course_text

pytestmark = pytest.mark.e2e


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
    assert "birdsong.docx" in page.inner_text("#upload-result")
    # A fresh form came with the result: the file picker is empty again.
    assert page.locator("#upload-files").evaluate("input => input.files.length") == 0
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


def test_every_action_during_a_running_sync_is_disabled_or_answered_on_the_page(
    live_admin, browser, tmp_path
):
    app, base = live_admin
    services = app.extensions["services"]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    _sign_in(page, base)
    # The test holds the index's writer lock: the sync started now waits, visibly running.
    with services.indexer.writer_lock(wait=True):
        page.click("text=Sync with docs")
        expect(page.locator("#sync-progress.sync-running")).to_be_visible()
        expect(page.get_by_role("button", name="Sync with docs")).to_be_disabled()
        expect(page.get_by_role("button", name="Rebuild index…")).to_be_disabled()
        for remove in page.get_by_role("button", name=re.compile("^Remove ")).all():
            expect(remove).to_be_disabled()
        # An upload refused meanwhile answers in its own place; the progress panel stays and keeps polling.
        notes = tmp_path / "notes.md"
        notes.write_text("# not a course")
        page.set_input_files("#upload-files", str(notes))
        page.click("text=Upload and index")
        expect(page.locator("#upload-result")).to_contain_text("Refused 1 file")
        expect(page.locator("#sync-progress.sync-running")).to_be_visible()
        page.screenshot(path=str(tmp_path / "admin-during-sync.png"), full_page=True)
    # The lock is free: the job runs, the poll sees it end, and the actions come back.
    expect(page.locator("#sync-progress.sync-done")).to_be_visible(timeout=SYNC_TIMEOUT_MS)
    expect(page.get_by_role("button", name="Sync with docs")).to_be_enabled()
    remove = page.get_by_role("button", name="Remove Vector Databases from Scratch")
    expect(remove).to_be_enabled()

    # A removal, then reloads: the course goes once, the notice shows once, nothing more is removed.
    with page.expect_navigation(url=f"{base}/admin"):
        remove.click()
    expect(page.locator(".admin-notices")).to_contain_text("Removed “Vector Databases from Scratch”")
    page.reload()
    page.reload()
    expect(page.locator(".admin-notices")).to_have_count(0)
    assert len(services.trash.entries()) == 1
    assert sorted(course.title for course in services.index.courses()) == [
        "Python Testing with Pytest",
        "Retrieval-Augmented Generation in Practice",
    ]
    page.close()
