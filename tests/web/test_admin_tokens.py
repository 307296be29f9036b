"""The admin's MCP access page: a token is made with a label and shown once, listed, and revoked."""

from __future__ import annotations

import re

import pytest

from tests.web.admin_helpers import PASSWORD, Admin

SECRET = re.compile(r'value="(camcp_[^"]+)"')


@pytest.fixture
def admin(make_app) -> Admin:
    """A signed-in admin on an app with CSRF on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    admin.login()
    return admin


def tokens(admin: Admin):
    """The app's token repository."""
    return admin.app.extensions["services"].store.tokens


def test_a_new_token_is_shown_once_and_then_only_listed(admin):
    made = admin.post("/admin/mcp/tokens", {"label": "Office hours bot"})

    assert made.status_code == 201
    assert made.headers["Cache-Control"] == "no-store", "the page holding the secret is never cached"
    [secret] = SECRET.findall(made.get_data(as_text=True))
    assert tokens(admin).check(secret) is not None

    page = admin.client.get("/admin/mcp").get_data(as_text=True)
    assert "Office hours bot" in page
    assert secret not in page and "camcp_" not in page


def test_revoking_a_token_refuses_it_from_then_on(admin):
    made = admin.post("/admin/mcp/tokens", {"label": "Lab laptop"})
    [secret] = SECRET.findall(made.get_data(as_text=True))
    token_id = tokens(admin).all()[0].id

    revoked = admin.post(f"/admin/mcp/tokens/{token_id}/revoke")

    assert revoked.status_code == 303
    assert tokens(admin).check(secret) is None
    page = admin.client.get("/admin/mcp").get_data(as_text=True)
    assert f"Revoked token #{token_id}" in page and "revoked 20" in page
    again = admin.post(f"/admin/mcp/tokens/{token_id}/revoke")
    assert "already revoked" in admin.client.get(again.headers["Location"]).get_data(as_text=True)


def test_a_blank_label_is_refused_on_the_page(admin):
    response = admin.post("/admin/mcp/tokens", {"label": "   "})

    assert response.status_code == 400
    assert "Give the token a label" in response.get_data(as_text=True)
    assert tokens(admin).all() == []


def test_the_forms_need_their_csrf_token(admin):
    made = admin.client.post("/admin/mcp/tokens", data={"label": "No token"})
    assert made.status_code == 400
    assert tokens(admin).all() == []

    issued = tokens(admin).issue("Kept")
    refused = admin.client.post(f"/admin/mcp/tokens/{issued.record.id}/revoke")
    assert refused.status_code == 400
    assert tokens(admin).check(issued.secret) is not None


def test_the_page_and_its_forms_need_the_admin_session(make_app):
    app = make_app(ADMIN_PASSWORD=PASSWORD)
    app.config["WTF_CSRF_ENABLED"] = False  # so it is the missing sign-in that refuses, not the CSRF check
    client = app.test_client()

    assert client.get("/admin/mcp").status_code == 302
    assert client.post("/admin/mcp/tokens", data={"label": "Intruder"}).status_code == 303
    issued = app.extensions["services"].store.tokens.issue("Kept")
    client.post(f"/admin/mcp/tokens/{issued.record.id}/revoke")

    assert [token.label for token in app.extensions["services"].store.tokens.all()] == ["Kept"]
    assert app.extensions["services"].store.tokens.check(issued.secret) is not None


def test_the_admin_pages_link_to_mcp_access(admin):
    for page in ("/admin", "/admin/insights", "/admin/playground"):
        assert 'href="/admin/mcp"' in admin.client.get(page).get_data(as_text=True), page
