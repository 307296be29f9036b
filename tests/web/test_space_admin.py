"""Course spaces administered: the operator makes spaces and assigns courses on the admin page; a space's
staff set its settings on their own page and get 403 on another space's."""

from __future__ import annotations

import pytest

from tests.web.admin_helpers import PASSWORD, Admin, csrf_token
from tests.web.spaces_support import PYTEST, VECTORS, course_ids, make_spaces, sign_in


@pytest.fixture
def admin_app(make_app):
    """An app with the admin on, course spaces on, and CSRF checked."""
    return make_app(ADMIN_PASSWORD=PASSWORD, COURSE_SPACES=True)


def test_the_operator_makes_a_space_assigns_courses_and_sets_its_settings(admin_app):
    admin = Admin(admin_app)
    admin.login()
    ids = course_ids(admin_app)

    assert admin.client.post("/admin/spaces", data={"name": "Vectors"}).status_code == 400, "no CSRF token"
    assert admin.post("/admin/spaces", {"name": "Vectors"}).status_code == 303
    assert admin.post("/admin/spaces", {"name": "Vectors"}).status_code == 400, "a taken name"
    [space] = admin_app.extensions["services"].store.spaces.all()
    saved = admin.post(f"/admin/spaces/{space.id}/courses", {"course": [ids[VECTORS], "no-such-course"]})
    assert saved.status_code == 303
    answered = admin.post(
        f"/admin/spaces/{space.id}/settings",
        {"answer_mode": "hints", "avoid_topics": "graph pruning\n\n", "welcome": "Hi", "suggestions": "Why?"},
    )
    assert answered.status_code == 303

    [space] = admin_app.extensions["services"].store.spaces.all()
    assert space.courses == {ids[VECTORS]}
    assert space.settings.hints and space.settings.avoid_topics == ("graph pruning",)
    page = admin.client.get("/admin/spaces").get_data(as_text=True)
    assert "Vectors" in page and "graph pruning" in page
    assert admin.post(f"/admin/spaces/{space.id}/settings", {"answer_mode": "answers"}).status_code == 400


def test_spaces_admin_needs_the_operator(admin_app):
    client = admin_app.test_client()

    assert client.get("/admin/spaces").status_code == 302
    token = csrf_token(client)
    assert client.post("/admin/spaces", data={"name": "X", "csrf_token": token}).status_code == 303
    assert admin_app.extensions["services"].store.spaces.all() == []


def test_staff_set_their_spaces_settings_and_get_403_on_anothers(admin_app):
    ids = make_spaces(admin_app)
    staff = admin_app.test_client()
    sign_in(admin_app, staff, "Vectors", "staff", subject="staff-1")

    page = staff.get(f"/spaces/{ids['Vectors']}/settings")
    assert page.status_code == 200 and VECTORS in page.get_data(as_text=True)
    token = csrf_token(staff, f"/spaces/{ids['Vectors']}/settings")
    saved = staff.post(
        f"/spaces/{ids['Vectors']}/settings",
        data={"csrf_token": token, "answer_mode": "hints", "avoid_topics": "quantization"},
    )
    assert saved.status_code == 303
    assert admin_app.extensions["services"].store.spaces.get(ids["Vectors"]).settings.hints

    assert staff.get(f"/spaces/{ids['Testing']}/settings").status_code == 403
    other = f"/spaces/{ids['Testing']}/settings"
    forged = staff.post(other, data={"csrf_token": token, "answer_mode": "hints"})
    assert forged.status_code == 403
    assert not admin_app.extensions["services"].store.spaces.get(ids["Testing"]).settings.hints
    assert PYTEST not in staff.get(f"/spaces/{ids['Vectors']}/settings").get_data(as_text=True)

    student = admin_app.test_client()
    sign_in(admin_app, student, "Vectors", "student", subject="student-1")
    assert student.get(f"/spaces/{ids['Vectors']}/settings").status_code == 403
    assert admin_app.test_client().get(f"/spaces/{ids['Vectors']}/settings").status_code == 403
