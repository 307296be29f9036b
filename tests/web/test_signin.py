"""Campus sign-in (OIDC) against a fake identity provider with a real RSA key and real signed id tokens."""

from __future__ import annotations

import http.client
import logging
from urllib.parse import urlsplit

import pytest
from sqlalchemy import func, select

from app.store.models import User
from app.web.session import USER_KEY
from tests.fake_idp import CLIENT_ID, CLIENT_SECRET, TAMPERS, FakeIdentityProvider
from tests.web.spaces_support import PYTEST, RAG, VECTORS, make_spaces


@pytest.fixture
def idp():
    """The fake identity provider, listening on loopback."""
    with FakeIdentityProvider() as server:
        yield server


@pytest.fixture
def oidc_app(make_app, idp):
    """An app whose campus sign-in is the fake provider; the groups claim maps to the two test spaces."""
    app = make_app(
        OIDC_ISSUER=idp.url,
        OIDC_CLIENT_ID=CLIENT_ID,
        OIDC_CLIENT_SECRET=CLIENT_SECRET,
        OIDC_SPACE_ROLES="vec-ta=Vectors:staff, vec=Vectors:student, test=Testing:student",
    )
    make_spaces(app)
    return app


def through_provider(client, path: str = "/signin"):
    """Sign in as a browser would: to the provider and back; returns the callback's response."""
    start = client.get(path)
    assert start.status_code == 302, start.get_data(as_text=True)
    authorize = urlsplit(start.headers["Location"])
    connection = http.client.HTTPConnection(authorize.hostname, authorize.port, timeout=10)
    connection.request("GET", f"{authorize.path}?{authorize.query}")
    answer = connection.getresponse()
    assert answer.status == 302
    back = urlsplit(answer.getheader("location"))
    connection.close()
    return client.get(f"{back.path}?{back.query}")


def users(app) -> int:
    """How many users the store holds."""
    with app.extensions["services"].store.db.reading() as session:
        return session.scalar(select(func.count()).select_from(User))


def test_a_group_claim_signs_the_user_in_to_its_space_with_its_role(oidc_app, idp):
    idp.user = {"sub": "opaque-42", "groups": ["vec", "vec-ta", "unrelated"], "name": "Dana Staff"}
    client = oidc_app.test_client()
    assert RAG in client.get("/").get_data(as_text=True), "before sign-in: the courses of no space"

    finished = through_provider(client)

    assert finished.status_code == 303 and urlsplit(finished.headers["Location"]).path == "/"
    with client.session_transaction() as session:
        signed = session[USER_KEY]
    store = oidc_app.extensions["services"].store
    [vectors] = [space for space in store.spaces.all() if space.name == "Vectors"]
    assert signed["space"] == vectors.id
    assert store.spaces.role(signed["user"], vectors.id) == "staff", "staff wins over student"
    page = client.get("/").get_data(as_text=True)
    assert VECTORS in page and PYTEST not in page and "Sign out" in page
    courses = {course["title"] for course in client.get("/api/courses").get_json()["courses"]}
    assert courses == {VECTORS}
    assert users(oidc_app) == 1
    assert all("client_secret" not in form for form in idp.token_requests), "the secret went in a header"


@pytest.mark.parametrize("tamper", TAMPERS)
def test_an_id_token_that_does_not_verify_is_refused_logged_and_stores_no_user(oidc_app, idp, tamper, caplog):
    idp.user = {"sub": "opaque-7", "groups": ["vec"]}
    idp.tamper = tamper
    client = oidc_app.test_client()

    with caplog.at_level(logging.WARNING, logger="app.web.signin"):
        refused = through_provider(client)

    assert refused.status_code == 401
    assert "could not be verified" in refused.get_data(as_text=True)
    assert any("sign-in refused" in record.getMessage() for record in caplog.records)
    assert users(oidc_app) == 0
    with client.session_transaction() as session:
        assert USER_KEY not in session
    assert {course["title"] for course in client.get("/api/courses").get_json()["courses"]} == {RAG}


def test_a_callback_without_its_state_is_refused(oidc_app, idp):
    client = oidc_app.test_client()

    refused = client.get("/signin/callback?code=made-up&state=made-up")

    assert refused.status_code == 401 and users(oidc_app) == 0


def test_a_user_whose_groups_grant_no_space_is_told_so(oidc_app, idp):
    idp.user = {"sub": "opaque-9", "groups": ["elsewhere"]}
    client = oidc_app.test_client()

    told = through_provider(client)

    assert told.status_code == 403 and "not in any course space" in told.get_data(as_text=True)
    with client.session_transaction() as session:
        assert USER_KEY not in session


def test_signing_out_needs_the_csrf_token_and_ends_the_membership_view(oidc_app, idp):
    idp.user = {"sub": "opaque-5", "groups": ["test"]}
    client = oidc_app.test_client()
    through_provider(client)

    assert client.post("/signout").status_code == 400, "no CSRF token"
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    assert client.post("/signout", data={"csrf_token": token}).status_code == 303

    with client.session_transaction() as session:
        assert USER_KEY not in session
    assert {course["title"] for course in client.get("/api/courses").get_json()["courses"]} == {RAG}


def test_without_an_identity_provider_there_is_no_sign_in(app):
    assert app.test_client().get("/signin").status_code == 404
