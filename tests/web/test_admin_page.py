"""The admin page never leaves the operator stranded: actions disabled during a job, upload results in their
own place, errors back on the page, the last sync from any source."""

from __future__ import annotations

import re
import threading

import pytest

from tests.web.admin_helpers import HX, PASSWORD, Admin, course_text


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def held_writer_lock(admin: Admin):
    """The index's writer lock, held by the test so a started job waits, visibly running."""
    return admin.app.extensions["services"].indexer.writer_lock(wait=True)


def until_the_job_waits(admin: Admin) -> None:
    """Poll (bounded) until the job thread found the writer lock taken and said so."""
    pause = threading.Event()
    for _ in range(2000):
        if getattr(admin.jobs.status(), "note", None):
            return
        pause.wait(0.05)
    raise AssertionError("the job never reported waiting")


def buttons(html: str, label: str) -> list[str]:
    """The opening tags of the buttons whose text is `label`."""
    return re.findall(rf"<button [^>]*>{re.escape(label)}</button>", html)


def test_sync_rebuild_and_remove_are_disabled_while_a_job_runs_and_come_back_when_it_ends(admin):
    page = admin.client.get("/admin").get_data(as_text=True)
    assert all("disabled" not in tag for tag in buttons(page, "Remove") + buttons(page, "Sync with docs"))
    with held_writer_lock(admin):
        started = admin.post("/admin/sync", htmx=True).get_data(as_text=True)
        # The start answer disables the actions and every Remove out of band.
        actions = re.search(r'<div id="sync-actions"[^>]*hx-swap-oob="true">.*?</div>', started, re.S).group(
            0
        )
        assert "disabled" in buttons(actions, "Sync with docs")[0]
        assert "disabled" in buttons(actions, "Rebuild index…")[0]
        assert 'id="courses" class="admin-courses" hx-swap-oob="true"' in started
        assert len(buttons(started, "Remove")) == 3 and all(
            "disabled" in b for b in buttons(started, "Remove")
        )
        until_the_job_waits(admin)
        # A page loaded meanwhile shows them disabled too, and polls are light (no table every second).
        page = admin.client.get("/admin").get_data(as_text=True)
        assert all("disabled" in tag for tag in buttons(page, "Remove") + buttons(page, "Sync with docs"))
        polled = admin.client.get("/admin/sync/status", headers=HX).get_data(as_text=True)
        assert "every 1s" in polled and 'id="courses"' not in polled
    admin.wait_for_job()
    final = admin.client.get("/admin/sync/status", headers=HX)
    html = final.get_data(as_text=True)
    assert final.status_code == 286
    assert buttons(html, "Sync with docs") == ['<button type="submit">Sync with docs</button>']
    assert len(buttons(html, "Remove")) == 3 and not any("disabled" in b for b in buttons(html, "Remove"))


def test_an_upload_refused_during_a_sync_answers_in_its_own_place_and_the_progress_keeps_polling(admin):
    with held_writer_lock(admin):
        admin.post("/admin/sync", htmx=True)
        until_the_job_waits(admin)
        refused = admin.upload([(b"# notes", "notes.md")], htmx=True).get_data(as_text=True)
        # A fresh form (the file picker is empty again) with the result under it; nothing for the sync
        # panel, so the progress there goes on polling.
        assert refused.startswith('<form method="post" action="/admin/upload"')
        assert re.search(r'<div id="upload-result" [^>]*>\s*<section class="upload-result"', refused)
        assert "Refused 1 file" in refused
        assert 'id="sync-progress"' not in refused and 'id="job-panel"' not in refused
    admin.wait_for_job()


def test_an_accepted_upload_shows_its_result_and_its_sync_in_the_sync_panel(admin):
    data = course_text("Beekeeping Basics", "the waggle dance").encode()
    html = admin.upload([(data, "bees.txt")], htmx=True).get_data(as_text=True)
    assert "Saved 1 file" in html and "bees.txt" in html
    progress = re.search(r'<section id="sync-progress"[^>]*>', html).group(0)
    assert 'hx-swap-oob="true"' in progress
    assert re.search(r'<div id="sync-actions"[^>]*hx-swap-oob="true">', html)
    admin.wait_for_job()


def test_the_upload_form_targets_its_own_panel(admin):
    page = admin.client.get("/admin").get_data(as_text=True)
    form = re.search(r'<form method="post" action="/admin/upload"[^>]*>', page, re.S).group(0)
    assert 'hx-target="#upload-panel"' in form and 'id="upload-panel"' in page


def test_the_last_sync_shows_even_when_it_ran_from_the_command_line(admin):
    assert "No sync has run yet" in admin.client.get("/admin").get_data(as_text=True)
    result = admin.app.test_cli_runner().invoke(args=["index"])
    assert result.exit_code == 0, result.output
    page = admin.client.get("/admin").get_data(as_text=True)
    assert "No sync has run yet" not in page
    last = re.search(r'<p class="sync-last">Last index update: <time datetime="([^"]+)">', page)
    assert last and last.group(1).endswith("+00:00")
    assert "3 unchanged" in page


def test_the_column_headers_never_break_inside_a_word():
    from pathlib import Path

    css = (Path(__file__).parents[2] / "static" / "app.css").read_text()
    rule = re.search(r"\.admin-table th \{([^}]*)\}", css).group(1)
    assert "white-space: nowrap" in rule
