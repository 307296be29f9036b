"""A delete or restore that loses the race for the index says what happened, without paths or PIDs."""

from __future__ import annotations

import os
import re

import pytest

from tests.web.admin_helpers import PASSWORD, Admin, course_text

JSON = {"Accept": "application/json"}


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def assert_no_internals(body: str) -> None:
    """No filesystem path and no process id in a response."""
    assert str(os.getpid()) not in body
    assert not re.search(r"/(tmp|srv|home|var|root|work)/", body), body


def test_a_delete_that_loses_the_race_says_nothing_was_removed(admin, docs_dir):
    services = admin.app.extensions["services"]
    course_id = services.index.courses()[0].id
    with services.indexer.writer_lock(wait=False):
        response = admin.post(f"/admin/courses/{course_id}/delete", headers=JSON)
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "The course was not removed" in response.get_json()["error"]
    assert_no_internals(body)
    assert services.index.get_course(course_id) is not None


def test_a_restore_that_loses_the_race_says_nothing_was_restored(admin, docs_dir):
    services = admin.app.extensions["services"]
    (docs_dir / "later.txt").write_text(course_text("Later Course", "later"))
    entry = services.trash.keep(docs_dir / "later.txt", "later.txt").name
    with services.indexer.writer_lock(wait=False):
        response = admin.post(f"/admin/trash/{entry}/restore", headers=JSON)
    assert response.status_code == 409
    assert "The file was not restored" in response.get_json()["error"]
    assert_no_internals(response.get_data(as_text=True))
    assert not (docs_dir / "later.txt").exists()
