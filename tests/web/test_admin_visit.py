"""Opening the admin while signed out leaves the chat working: only a real sign-out rotates the CSRF token."""

from __future__ import annotations

from tests.web.admin_helpers import PASSWORD, Admin
from tests.web.support import csrf_from


def test_a_visitor_opening_the_admin_keeps_their_csrf_token(make_app):
    client = make_app(ADMIN_PASSWORD=PASSWORD).test_client()
    token = csrf_from(client.get("/").get_data(as_text=True))

    assert client.get("/admin").status_code == 302
    response = client.post("/ask", data={"question": "Hello?", "csrf_token": token})

    assert response.status_code == 303, response.get_data(as_text=True)


def test_a_real_sign_out_still_rotates_the_token(make_app):
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    token = csrf_from(admin.client.get("/").get_data(as_text=True))
    admin.post("/admin/logout")
    response = admin.client.post("/ask", data={"question": "Hello?", "csrf_token": token})
    assert response.status_code == 400
