"""In headless Chromium: upload a captioned course archive in the admin, ask, and follow the timed source."""

from __future__ import annotations

import re
import time
import zipfile

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SYNC_TIMEOUT_MS
from tests.test_video_index import CAPTIONS, HEADER, LECTURE, cue_starts, link_second, said_at
from tests.web.admin_helpers import PASSWORD

pytestmark = pytest.mark.e2e


def test_upload_a_caption_course_then_the_answer_links_to_the_second_it_quotes(live_admin, browser, tmp_path):
    _, base = live_admin
    archive = tmp_path / "psyc110.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("psyc110/course.txt", HEADER)
        bundle.write(CAPTIONS / LECTURE, f"psyc110/{LECTURE}")
    page = browser.new_page()
    page.goto(f"{base}/admin")
    page.fill("#admin-password", PASSWORD)
    page.click("text=Sign in")
    page.wait_for_url(f"{base}/admin")
    page.set_input_files("#upload-files", str(archive))
    page.click("text=Upload and index")
    # While it indexes, the bar counts the unchanged courses done at once and never goes back; the file
    # being worked on shows with its chunk count. (That it moves batch by batch is tests/test_sync.py's:
    # how many batches a poll sees depends on the machine's speed.)
    values: list[float] = []
    working: set[str] = set()
    deadline = time.monotonic() + SYNC_TIMEOUT_MS / 1000
    while not page.locator("#sync-progress.sync-done").count() and time.monotonic() < deadline:
        bar = page.locator("#sync-progress.sync-running progress[value]")
        if bar.count():
            values.append(float(bar.get_attribute("value") or 0))
            current = page.locator("#sync-progress .sync-current")
            if current.count():
                working.add(current.inner_text())
        page.wait_for_timeout(200)
    page.wait_for_selector("#sync-progress.sync-done", timeout=SYNC_TIMEOUT_MS)
    # A quiet machine may index the lecture between two polls; what a poll sees while it runs must hold.
    if values:
        assert values == sorted(values), values
        assert values[0] >= 3, "the three unchanged courses count as done from the start"
    if working:
        assert any(re.search(r"psyc110.*\(\d+ of \d+ chunks\)", text) for text in working), working
    row = page.locator("#course-yale-psyc-110-introduction-to-psychology")
    assert "Captioned" in row.inner_text()

    page.goto(f"{base}/")
    page.get_by_label("Your question").fill("Why are the lectures being filmed?")
    page.get_by_role("button", name="Send", exact=True).click()
    exchange = page.locator("article.exchange").last
    link = exchange.locator(".source-chip a").first
    expect(link).to_be_visible(timeout=120_000)
    second = link_second(link.get_attribute("href") or "")
    assert "Lesson 1 · " in link.inner_text()
    quoted = exchange.locator(".prose").inner_text()
    # Each quoted sentence follows the time it is said at, linked to the video at that second.
    times = exchange.locator(".prose a").all()
    assert times
    for said in times:
        minutes, seconds = said.inner_text().split(":")
        assert link_second(said.get_attribute("href") or "") == int(minutes) * 60 + int(seconds)
    parts = re.split(r"\n+|(?:^|\s)\d+:\d\d\s", quoted.replace(" … ", "\n"), flags=re.MULTILINE)
    sentences = [part.strip() for part in parts if len(part.split()) > 5]
    cues = cue_starts(CAPTIONS / LECTURE)
    near = [sentence for sentence in sentences if _said_near(sentence, cues, second)]
    assert near, (second, sentences)
    page.close()


def _said_near(sentence: str, cues, second: int) -> bool:
    """Whether the sentence is in the captions, said within 5 seconds of `second`."""
    try:
        return abs(said_at(sentence, cues) - second) <= 5
    except AssertionError:
        return False  # a heading or note of the answer, not a quoted sentence
