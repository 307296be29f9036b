"""Course spaces in web tests: spaces over the test library's courses, and members signed in to them."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from app.store.spaces import Identity
from app.web.session import USER_KEY

PYTEST = "Python Testing with Pytest"
VECTORS = "Vector Databases from Scratch"
RAG = "Retrieval-Augmented Generation in Practice"
ISSUER = "https://idp.school.test"


def course_ids(app: Flask) -> dict[str, str]:
    """The test library's course ids by title."""
    return {record.title: record.id for record in app.extensions["services"].index.courses()}


def make_spaces(app: Flask) -> dict[str, int]:
    """Two spaces, "Vectors" (the vector databases course) and "Testing" (the pytest course); the RAG
    course belongs to no space. Returns the space ids by name."""
    spaces = app.extensions["services"].store.spaces
    ids = course_ids(app)
    vectors, testing = spaces.create("Vectors"), spaces.create("Testing")
    spaces.set_courses(vectors.id, {ids[VECTORS]})
    spaces.set_courses(testing.id, {ids[PYTEST]})
    return {"Vectors": vectors.id, "Testing": testing.id}


def sign_in(app: Flask, client: FlaskClient, space: str, role: str, subject: str = "opaque-1") -> int:
    """Sign a member in to a space with a role, as a sign-in would leave the session; returns the user id."""
    spaces = app.extensions["services"].store.spaces
    signed = spaces.sign_in(Identity(ISSUER, subject), {space: role})
    [space_id] = signed.roles
    with client.session_transaction() as session:
        session[USER_KEY] = {"user": signed.user_id, "space": space_id}
    return signed.user_id
