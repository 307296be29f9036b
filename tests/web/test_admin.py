"""Admin access: turned off without a password, sign-in, session expiry, CSRF, the login rate limit."""

from __future__ import annotations

import io
import time

import pytest

from tests.web.admin_helpers import HX, PASSWORD, Admin, csrf_token, docs_snapshot

PROTECTED = [
    ("GET", "/admin"),
    ("GET", "/admin/sync/status"),
    ("GET", "/admin/rebuild"),
    ("POST", "/admin/sync"),
    ("POST", "/admin/rebuild"),
    ("POST", "/admin/upload"),
    ("POST", "/admin/courses/vector-databases-from-scratch/delete"),
    ("POST", "/admin/trash/20250101T000000Z-x.txt/restore"),
]


@pytest.fixture
def admin_app(make_app):
    """An app with the admin turned on and CSRF checks on."""
    return make_app(ADMIN_PASSWORD=PASSWORD)


@pytest.fixture
def admin(admin_app):
    """A client, not signed in yet."""
    return Admin(admin_app)


@pytest.mark.parametrize(
    "method, url",
    [*PROTECTED, ("GET", "/admin/login"), ("POST", "/admin/login"), ("GET", "/admin/no/such/page")],
)
def test_admin_off_without_password_is_404_that_says_how_to_turn_it_on(make_app, method, url):
    app = make_app()  # CSRF on: the 404 comes before the token check
    response = app.test_client().open(url, method=method, data={"password": "anything"})
    assert response.status_code == 404
    assert "ADMIN_PASSWORD" in response.get_data(as_text=True)
    assert app.extensions["services"].jobs.status() is None


def test_admin_off_answers_json_clients_in_json(make_app):
    response = make_app().test_client().get("/admin", headers={"Accept": "application/json"})
    assert response.status_code == 404
    assert "ADMIN_PASSWORD" in response.get_json()["error"]


@pytest.mark.parametrize("method, url", PROTECTED)
def test_every_admin_url_needs_sign_in(admin, method, url, docs_dir):
    before = sorted(p.name for p in docs_dir.iterdir())
    token = csrf_token(admin.client)
    response = admin.client.open(url, method=method, data={"csrf_token": token})
    assert response.status_code in (302, 303)
    assert response.location.startswith("/admin/login?next=")
    assert admin.jobs.status() is None
    assert sorted(p.name for p in docs_dir.iterdir()) == before


def test_get_redirect_comes_back_to_the_page_after_sign_in(admin):
    response = admin.client.get("/admin/sync/status")
    assert response.status_code == 302
    assert response.location == "/admin/login?next=/admin/sync/status"
    login_page = admin.client.get(response.location).get_data(as_text=True)
    assert 'name="next" value="/admin/sync/status"' in login_page
    token = csrf_token(admin.client)
    signed_in = admin.client.post(
        "/admin/login", data={"password": PASSWORD, "csrf_token": token, "next": "/admin/sync/status"}
    )
    assert signed_in.status_code == 303
    assert signed_in.location == "/admin/sync/status"


def test_htmx_and_json_requests_get_401(admin):
    htmx = admin.client.get("/admin/sync/status", headers=HX)
    assert htmx.status_code == 401
    assert htmx.headers["HX-Redirect"].startswith("/admin/login")
    api = admin.client.get("/admin/sync/status", headers={"Accept": "application/json"})
    assert api.status_code == 401
    assert "Sign in" in api.get_json()["error"]


def test_wrong_password_is_refused(admin):
    response = admin.login("not the password")
    assert response.status_code == 401
    assert "Wrong password" in response.get_data(as_text=True)
    assert admin.client.get("/admin").status_code == 302


def test_right_password_signs_in_and_shows_the_page(admin):
    response = admin.login()
    assert response.status_code == 303
    assert response.location == "/admin"
    page = admin.client.get("/admin")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    for title in ("Retrieval-Augmented Generation in Practice", "Vector Databases from Scratch"):
        assert title in html
    assert "embedded folder" in html
    assert 'accept=".txt,.pdf,.docx,.vtt,.srt,.zip"' in html and "multiple" in html
    assert "Sync with docs" in html and "Rebuild index" in html and "Remove" in html
    cookie = response.headers["Set-Cookie"]
    assert "Expires=" in cookie and "HttpOnly" in cookie


def test_sign_in_flag_expires(admin):
    admin.login()
    assert admin.client.get("/admin").status_code == 200
    with admin.client.session_transaction() as session:
        session["admin"] = {**session["admin"], "until": time.time() - 1}
    assert admin.client.get("/admin").status_code == 302


def test_sign_in_never_redirects_off_site(admin):
    for target in (
        "//evil.example/admin",
        "https://evil.example/",
        "/elsewhere",
        "/\t/evil.example",
        "/\n/evil.example",
        "/admin\\@evil.example",
        "/admin/\r\nSet-Cookie: x=1",
    ):
        client = admin.app.test_client()  # signed out, with the token its login form carries
        response = client.post(
            "/admin/login", data={"password": PASSWORD, "csrf_token": csrf_token(client), "next": target}
        )
        assert response.location == "/admin"


def test_signed_in_login_page_never_redirects_off_site(admin):
    admin.login()
    for target in ("/\t/evil.example", "/\n/evil.example", "//evil.example"):
        response = admin.client.get("/admin/login", query_string={"next": target})
        assert response.status_code == 303 and response.location == "/admin"


def test_logout_ends_the_session(admin):
    admin.login()
    response = admin.post("/admin/logout")
    assert response.status_code == 303
    assert admin.client.get("/admin").status_code == 302


def test_posts_without_csrf_token_are_refused(admin, docs_dir, tmp_path):
    response = admin.client.post("/admin/login", data={"password": PASSWORD})
    assert response.status_code == 400
    assert admin.client.get("/admin").status_code == 302
    admin.login()
    trash = tmp_path / "instance" / "trash"
    trash.mkdir(parents=True)
    (trash / "20260101T000000Z-kites.txt").write_text("Course Title: Kites\n\nLesson 1: Lines\nHold on.\n")
    upload = {"files": (io.BytesIO(b"Course Title: Origami\n\nLesson 1: Cranes\nFold.\n"), "origami.txt")}
    before = docs_snapshot(docs_dir)
    for url, data in (
        ("/admin/sync", {}),
        ("/admin/rebuild", {}),
        ("/admin/courses/vector-databases-from-scratch/delete", {}),
        ("/admin/upload", upload),
        ("/admin/trash/20260101T000000Z-kites.txt/restore", {}),
        ("/admin/insights/purge", {"confirm": "yes"}),
        ("/admin/playground/cases", {"question": "q", "gold": "1:Kites"}),
        ("/admin/playground/cases/1/delete", {}),
        ("/admin/mcp/tokens", {"label": "Agent"}),
        ("/admin/mcp/tokens/1/revoke", {}),
        ("/admin/logout", {}),
    ):
        response = admin.client.post(url, data=data, content_type="multipart/form-data")
        assert response.status_code == 400, url
        assert "CSRF" in response.get_data(as_text=True) or "form" in response.get_data(as_text=True), url
    assert admin.jobs.status() is None
    assert docs_snapshot(docs_dir) == before and (trash / "20260101T000000Z-kites.txt").exists()
    assert admin.client.get("/admin").status_code == 200  # the logout without a token did not sign out


def test_every_state_changing_admin_route_is_covered_by_the_csrf_test(admin):
    # The test above posts to each of these without a token, so none can be (or become) exempt unnoticed.
    posting = {
        rule.rule
        for rule in admin.app.url_map.iter_rules()
        if rule.endpoint.startswith("admin.")
        and "POST" in (rule.methods or ())
        and rule.endpoint != "admin.unknown"
    }
    assert posting == {
        "/admin/login",
        "/admin/logout",
        "/admin/upload",
        "/admin/sync",
        "/admin/rebuild",
        "/admin/courses/<course_id>/delete",
        "/admin/trash/<entry>/restore",
        "/admin/insights/purge",
        "/admin/playground/cases",
        "/admin/playground/cases/<int:case_id>/delete",
        "/admin/mcp/tokens",
        "/admin/mcp/tokens/<int:token_id>/revoke",
    }


def test_a_copy_of_the_admin_cookie_stops_working_at_logout(admin):
    admin.login()
    copy = admin.app.test_client()
    copy.set_cookie("session", admin.client.get_cookie("session").value)
    assert copy.get("/admin").status_code == 200
    assert admin.post("/admin/logout").status_code == 303
    assert copy.get("/admin").status_code == 302  # the copy taken before logout is signed out too


def test_a_new_admin_password_ends_sessions_signed_in_with_the_old_one(make_app, tmp_path):
    first = Admin(make_app(ADMIN_PASSWORD=PASSWORD, SECRET_KEY="one-secret-for-both"))
    assert first.login().status_code == 303
    cookie = first.client.get_cookie("session").value
    restarted = make_app(
        ADMIN_PASSWORD="a brand new password", SECRET_KEY="one-secret-for-both"
    ).test_client()
    restarted.set_cookie("session", cookie)
    assert restarted.get("/admin").status_code == 302
    # The same cookie still works on an app with the old password: only the password changed.
    same = make_app(ADMIN_PASSWORD=PASSWORD, SECRET_KEY="one-secret-for-both").test_client()
    same.set_cookie("session", cookie)
    assert same.get("/admin").status_code == 200


def test_signing_in_issues_a_new_csrf_token(admin):
    before = csrf_token(admin.client)
    admin.login()
    after = csrf_token(admin.client, "/admin")
    assert before != after
    stale = admin.client.post("/admin/sync", data={"csrf_token": before})
    assert stale.status_code == 400 and admin.jobs.status() is None


def test_login_attempts_are_rate_limited(make_app):
    app = make_app(ADMIN_PASSWORD=PASSWORD, RATELIMIT_ENABLED=True, RATELIMIT_LOGIN="5 per minute")
    admin = Admin(app)
    statuses = [admin.login("wrong").status_code for _ in range(5)]
    assert statuses == [401] * 5
    blocked = admin.login()  # even the right password waits now
    assert blocked.status_code == 429
    assert "wait a minute" in blocked.get_data(as_text=True)
    assert admin.client.get("/admin").status_code == 302


def test_rebuild_asks_for_confirmation_in_a_form(admin):
    admin.login()
    html = admin.client.get("/admin/rebuild").get_data(as_text=True)
    assert 'method="post" action="/admin/rebuild"' in html
    assert 'name="csrf_token"' in html
    assert admin.jobs.status() is None
