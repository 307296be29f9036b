"""Sync jobs from the admin: progress and polling, changes, removals, crashes, concurrency, trash."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import flask
import pytest

from app.library.jobs import SyncJobs
from app.library.state import StatePaths
from app.search.models import SyncJob
from tests.conftest import ROOT
from tests.web.admin_helpers import HX, JOB_TIMEOUT, PASSWORD, Admin, course_titles, search_texts

OLD_RAG = "Cutting every 500 characters is simple"
OLD_VECTORS = "Exact nearest neighbour search compares the query with every stored vector"


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def _rewrite(path: Path, old: str, new: str) -> None:
    """Replace a sentence in a course file (it must be there)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new))


def _held_writer_lock(admin: Admin):
    """The index's writer lock, held by the test so a started job waits, visibly running."""
    return admin.app.extensions["services"].indexer.writer_lock(wait=True)


def _until_job_notes_the_wait(admin: Admin) -> None:
    """Poll (bounded) until the job thread has found the writer lock taken and said so."""
    pause = threading.Event()
    for _ in range(2000):
        if getattr(admin.jobs.status(), "note", None):
            return
        pause.wait(0.05)
    raise AssertionError(f"the job never reported waiting: {admin.jobs.status()}")


def test_progress_goes_from_zero_to_done_and_the_poll_stops_with_286(admin):
    with _held_writer_lock(admin):
        started = admin.post("/admin/sync", htmx=True)
        html = started.get_data(as_text=True)
        assert started.status_code == 200
        assert 'hx-get="/admin/sync/status"' in html and 'hx-trigger="every 1s"' in html
        assert 'hx-swap="outerHTML"' in html
        _until_job_notes_the_wait(admin)
        polled = admin.client.get("/admin/sync/status", headers=HX)
        assert polled.status_code == 200 and "every 1s" in polled.get_data(as_text=True)
        assert "Waiting for another sync" in polled.get_data(as_text=True)
        running = admin.jobs.status()
        assert running.state == "running" and running.done == 0
        page = admin.client.get("/admin/sync/status")  # without JavaScript: a self-refreshing page
        assert '<meta http-equiv="refresh" content="1">' in page.get_data(as_text=True)
        assert "every 1s" in admin.client.get("/admin").get_data(as_text=True)
    final = admin.wait_for_job()
    assert final["done"] == final["total"] == 3
    assert final["summary"]["unchanged"] == 3 and final["finished_at"]
    done = admin.client.get("/admin/sync/status", headers=HX)
    html = done.get_data(as_text=True)
    assert done.status_code == 286
    assert "every 1s" not in html and "Sync finished" in html and '<progress max="3" value="3">' in html
    assert 'id="courses" class="admin-courses" hx-swap-oob="true"' in html  # the table refreshes too
    page = admin.client.get("/admin/sync/status").get_data(as_text=True)
    assert "http-equiv" not in page and "Sync finished" in page


def test_no_job_yet_stops_the_poll_at_once(admin):
    response = admin.client.get("/admin/sync/status", headers=HX)
    assert response.status_code == 286
    assert "No sync has run yet" in response.get_data(as_text=True)


def test_sync_without_javascript_redirects_to_the_status_page(admin):
    response = admin.post("/admin/sync")
    assert response.status_code == 303 and response.location == "/admin/sync/status"
    admin.wait_for_job()


def test_changed_file_is_reindexed_and_removed_file_disappears(admin, docs_dir):
    _rewrite(docs_dir / "rag_in_practice.txt", OLD_RAG, "Slicing by the saffron hedgehog rule is simple")
    (docs_dir / "pytest_testing.txt").unlink()
    admin.post("/admin/sync")
    final = admin.wait_for_job()
    statuses = {result["file"]: result["status"] for result in final["results"]}
    assert statuses["rag_in_practice.txt"] == "updated" and statuses["pytest_testing.txt"] == "removed"
    assert any("saffron hedgehog" in text for text in search_texts(admin.client, "saffron hedgehog rule"))
    assert not any(OLD_RAG in text for text in search_texts(admin.client, OLD_RAG))
    assert "Python Testing with Pytest" not in course_titles(admin.client)
    html = admin.client.get("/admin").get_data(as_text=True)
    table = html[html.index('id="courses"') :]
    assert "Python Testing with Pytest" not in table and "1 removed" in html


def test_unparseable_file_keeps_its_old_version_and_the_page_shows_why(admin, docs_dir):
    (docs_dir / "vector_databases.txt").write_bytes(b"Course Title: Vector Databases\x00\x00 broken")
    admin.post("/admin/sync")
    final = admin.wait_for_job()
    assert final["summary"]["failed"] == 1
    assert "Vector Databases from Scratch" in course_titles(admin.client)
    assert search_texts(admin.client, "vector index nearest neighbours")
    html = admin.client.get("/admin").get_data(as_text=True)
    row = html[html.index('id="course-vector-databases-from-scratch"') :]
    row = row[: row.index("</tr>")]
    assert "could not read this file" in row and "NUL" in row


def test_rebuild_reindexes_everything_and_keeps_what_cannot_be_read(admin, docs_dir):
    index = admin.app.extensions["services"].index
    before = index.versions()
    (docs_dir / "vector_databases.txt").write_bytes(b"Course Title: Vector Databases\x00\x00 broken")
    confirm = admin.client.get("/admin/rebuild").get_data(as_text=True)
    assert "Searches keep finding every course" in confirm and "keeps its current version" in confirm
    response = admin.post("/admin/rebuild", htmx=True)
    assert response.status_code == 200 and "Rebuild running" in response.get_data(as_text=True)
    final = admin.wait_for_job()
    assert final["rebuild"] is True
    assert (final["summary"]["updated"], final["summary"]["failed"], final["summary"]["added"]) == (2, 1, 0)
    after = index.versions()
    assert after["vector-databases-from-scratch"] == before["vector-databases-from-scratch"]
    assert all(
        after[course] != before[course] for course in before if course != "vector-databases-from-scratch"
    )
    assert len(course_titles(admin.client)) == 3
    assert any(OLD_VECTORS in text for text in search_texts(admin.client, OLD_VECTORS))


def test_two_concurrent_syncs_start_one_job(admin, make_app):
    second = Admin(admin.app)
    assert second.login().status_code == 303
    barrier = threading.Barrier(2)
    answers: list[dict] = []

    def press(operator: Admin) -> None:
        """One operator pressing 'Sync with docs'."""
        barrier.wait(timeout=30)
        response = operator.post("/admin/sync", headers={"Accept": "application/json"})
        answers.append(response.get_json())

    with _held_writer_lock(admin):
        threads = [threading.Thread(target=press, args=(operator,)) for operator in (admin, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        # Another worker process (its own SyncJobs over the same folder) sees the same job too.
        other_worker = SyncJobs(admin.app.extensions["services"].settings, lambda: None).start()
    assert len(answers) == 2
    assert answers[0]["id"] == answers[1]["id"] == other_worker.id
    assert sorted(bool(answer.get("already_running")) for answer in answers) == [False, True]
    admin.wait_for_job()


def test_removing_a_course_moves_its_file_to_the_trash_and_restore_brings_it_back(admin, docs_dir, tmp_path):
    response = admin.post("/admin/courses/vector-databases-from-scratch/delete")
    assert response.status_code == 303
    assert not (docs_dir / "vector_databases.txt").exists()
    trashed = list((tmp_path / "instance" / "trash").iterdir())
    assert len(trashed) == 1 and trashed[0].name.endswith("-vector_databases.txt")
    assert "Vector Databases from Scratch" not in course_titles(admin.client)
    html = admin.client.get("/admin").get_data(as_text=True)
    assert "Its file is in the trash" in html and f"/admin/trash/{trashed[0].name}/restore" in html

    restored = admin.post(f"/admin/trash/{trashed[0].name}/restore")
    assert restored.status_code == 303
    assert (docs_dir / "vector_databases.txt").exists() and not trashed[0].exists()
    admin.wait_for_job()
    assert "Vector Databases from Scratch" in course_titles(admin.client)


def test_restoring_into_a_docs_folder_that_is_gone_creates_the_folder(admin, docs_dir, tmp_path):
    assert admin.post("/admin/courses/vector-databases-from-scratch/delete").status_code == 303
    (trashed,) = (tmp_path / "instance" / "trash").iterdir()
    docs_dir.rename(tmp_path / "docs-moved-away")  # an operator moved or deleted DOCS_DIR meanwhile
    restored = admin.post(f"/admin/trash/{trashed.name}/restore")
    assert restored.status_code == 303
    assert docs_dir.is_dir() and (docs_dir / "vector_databases.txt").is_file()
    admin.wait_for_job()
    assert course_titles(admin.client) == ["Vector Databases from Scratch"]


def test_removing_an_unknown_course_lands_back_on_the_admin_page_with_the_message(admin):
    response = admin.post("/admin/courses/no-such-course/delete")
    assert response.status_code == 303 and response.headers["Location"] == "/admin"
    page = admin.client.get("/admin").get_data(as_text=True)
    assert '<p class="admin-error">There is no course with id' in page
    # Shown once: a reload of the admin page repeats nothing and shows no stale message.
    assert "There is no course with id" not in admin.client.get("/admin").get_data(as_text=True)
    # JSON clients still get the status.
    assert (
        admin.post("/admin/courses/no-such-course/delete", headers={"Accept": "application/json"}).status_code
        == 404
    )


def test_removing_during_a_sync_is_refused_on_the_admin_page(admin, docs_dir):
    with _held_writer_lock(admin):
        response = admin.post("/admin/courses/vector-databases-from-scratch/delete")
    assert response.status_code == 303 and response.headers["Location"] == "/admin"
    assert "try again when it has finished" in admin.client.get("/admin").get_data(as_text=True)
    assert (docs_dir / "vector_databases.txt").exists()
    assert "Vector Databases from Scratch" in course_titles(admin.client)


def test_a_removal_goes_through_once_and_reloading_the_page_removes_nothing_more(admin, docs_dir):
    response = admin.post("/admin/courses/vector-databases-from-scratch/delete")
    assert response.status_code == 303 and response.headers["Location"] == "/admin"
    trash = admin.app.extensions["services"].trash
    assert len(trash.entries()) == 1
    for _ in range(2):  # what a reload does after post/redirect/get: GET the admin page
        assert admin.client.get("/admin").status_code == 200
    assert len(trash.entries()) == 1 and "Vector Databases from Scratch" not in course_titles(admin.client)
    assert sorted(course_titles(admin.client)) == [
        "Python Testing with Pytest",
        "Retrieval-Augmented Generation in Practice",
    ]


def test_a_job_whose_process_died_is_reported_interrupted_and_a_new_one_starts(admin):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    job_file = StatePaths.of(admin.app.extensions["services"].settings).job_file
    job_file.write_text(
        json.dumps(
            {
                "id": "old",
                "state": "running",
                "rebuild": False,
                "done": 1,
                "total": 3,
                "pid": dead.pid,
                "current_file": "x.txt",
                "note": None,
                "results": [],
                "errors": [],
                "failure": None,
                "summary": {},
                "seconds": None,
                "started_at": "2025-01-01T00:00:00+00:00",
                "finished_at": None,
            }
        )
    )
    status = admin.jobs.status()
    assert status.state == "interrupted"
    assert "interrupted" in admin.client.get("/admin").get_data(as_text=True)
    assert admin.client.get("/admin/sync/status", headers=HX).status_code == 286
    admin.post("/admin/sync")
    assert admin.wait_for_job()["id"] != "old"


KILLABLE_SYNC = """
import threading
from app import create_app
from app.search.writer import IndexWriter

flips = []
original = IndexWriter._flip_catalog

def flip(self, course, version, chunk_count):
    # Stop for good between writing the second course's new chunks and making them live: the worst moment.
    flips.append(course.title)
    if len(flips) == 2:
        print("BLOCKED", course.title, flush=True)
        threading.Event().wait()
    return original(self, course, version, chunk_count)

IndexWriter._flip_catalog = flip
jobs = create_app().extensions["services"].jobs
print("STARTED", jobs.start().id, flush=True)
jobs.wait()
print("FINISHED", flush=True)
"""


@pytest.mark.slow
def test_a_sync_killed_half_way_leaves_every_course_searchable_and_the_next_sync_completes(
    make_app, docs_dir, tmp_path
):
    (docs_dir / "pytest_testing.txt").write_text(
        (docs_dir / "pytest_testing.txt").read_text()
        + "\nThe cobalt pelican fixture pattern keeps tests apart.\n"
    )
    _rewrite(docs_dir / "rag_in_practice.txt", OLD_RAG, "Slicing by the saffron hedgehog rule is simple")
    _rewrite(
        docs_dir / "vector_databases.txt", OLD_VECTORS, "A tangerine glacier search compares every vector"
    )
    env = {
        **os.environ,
        "DOCS_DIR": str(docs_dir),
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "CHROMA_PATH": str(tmp_path / "instance" / "chroma"),
        "SECRET_KEY": "test-secret-key",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    # The make_app fixture has already copied the indexed library to tmp_path; the child syncs that copy.
    child = subprocess.Popen(
        [sys.executable, "-c", KILLABLE_SYNC], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        lines = [child.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("STARTED") and lines[1].startswith("BLOCKED"), lines
        job = json.loads(StatePaths(tmp_path / "instance", tmp_path / "instance").job_file.read_text())
        assert job["state"] == "running" and job["done"] >= 1 and job["pid"] == child.pid
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=JOB_TIMEOUT)

    # A fresh app (as a restarted worker would be) over what the killed sync left behind.
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    assert admin.jobs.status().state == "interrupted"
    assert sorted(course_titles(admin.client)) == [
        "Python Testing with Pytest",
        "Retrieval-Augmented Generation in Practice",
        "Vector Databases from Scratch",
    ]
    # The first course is in its new version, the one cut off mid-write and the untouched one in their old.
    assert any("cobalt pelican" in t for t in search_texts(admin.client, "cobalt pelican fixture pattern"))
    assert any(OLD_RAG in t for t in search_texts(admin.client, OLD_RAG))
    assert not any("saffron hedgehog" in t for t in search_texts(admin.client, "saffron hedgehog rule"))
    assert any(OLD_VECTORS in t for t in search_texts(admin.client, OLD_VECTORS))

    admin.post("/admin/sync")
    final = admin.wait_for_job()
    statuses = {result["file"]: result["status"] for result in final["results"]}
    assert statuses == {
        "pytest_testing.txt": "unchanged",
        "rag_in_practice.txt": "updated",
        "vector_databases.txt": "updated",
    }
    assert any("saffron hedgehog" in t for t in search_texts(admin.client, "saffron hedgehog rule"))
    assert not any(OLD_RAG in t for t in search_texts(admin.client, OLD_RAG))
    assert any("tangerine glacier" in t for t in search_texts(admin.client, "tangerine glacier search"))
    assert not any(OLD_VECTORS in t for t in search_texts(admin.client, OLD_VECTORS))


def test_the_progress_fragment_moves_with_the_chunks_of_a_large_file(admin):
    job = SyncJob(
        id="big",
        done=1,
        total=4,
        current_file="huge.pdf",
        chunks_done=96,
        chunks_total=384,
        step="Embedding and writing chunks",
        started_at="now",
        pid=1,
    )
    with admin.app.test_request_context("/admin/sync/status"):
        html = flask.render_template("admin/_sync_progress.html", job=job)
    assert 'value="1.25"' in html and 'max="4"' in html
    assert (
        'Working on <code>huge.pdf</code>: <span class="sync-step">Embedding and writing chunks</span> '
        '<span class="sync-chunks">(96 of 384 chunks)</span>'
    ) in html
