"""Course spaces enforced in the data: a member reads only their space's courses, everywhere they look."""

from __future__ import annotations

import pytest

from tests.web.spaces_support import PYTEST, RAG, VECTORS, course_ids, make_spaces, sign_in


@pytest.fixture
def spaces_app(make_app):
    """An app with course spaces on, two spaces over the test library, CSRF off for plain view tests."""
    app = make_app(COURSE_SPACES=True)
    app.config["WTF_CSRF_ENABLED"] = False
    make_spaces(app)
    return app


def titles(response) -> set[str]:
    """The course titles of an /api/courses response."""
    assert response.status_code == 200, response.get_data(as_text=True)
    return {course["title"] for course in response.get_json()["courses"]}


def test_without_course_spaces_every_visitor_reads_every_course(make_app):
    app = make_app()
    make_spaces(app)  # spaces stored, but COURSE_SPACES is off: the deployment stays open

    assert titles(app.test_client().get("/api/courses")) == {PYTEST, VECTORS, RAG}


def test_a_student_lists_searches_and_opens_only_their_spaces_courses(spaces_app):
    client = spaces_app.test_client()
    sign_in(spaces_app, client, "Vectors", "student")

    assert titles(client.get("/api/courses")) == {VECTORS}
    page = client.get("/").get_data(as_text=True)
    assert VECTORS in page and PYTEST not in page and RAG not in page

    found = client.get("/api/search", query_string={"q": "pytest fixtures and assertions", "k": 8})
    assert found.status_code == 200
    assert {hit["course_title"] for hit in found.get_json()["results"]} <= {VECTORS}
    named = client.get("/api/search", query_string={"q": "fixtures", "course": PYTEST})
    assert named.status_code == 404, "a course of another space is not found, not searched"
    lesson = client.get("/api/search", query_string={"q": "testing", "lesson": 1, "k": 8})
    assert {hit["course_title"] for hit in lesson.get_json()["results"]} <= {VECTORS}

    ids = course_ids(spaces_app)
    assert client.get(f"/courses/{ids[VECTORS]}").status_code == 200
    assert client.get(f"/courses/{ids[PYTEST]}").status_code == 404


def test_a_question_naming_another_spaces_course_gets_no_passage_from_it(spaces_app):
    client = spaces_app.test_client()
    sign_in(spaces_app, client, "Vectors", "student")

    response = client.post("/api/query", json={"query": f"What does {PYTEST} teach about fixtures?"})

    assert response.status_code == 200
    cited = {citation["course"] for citation in response.get_json()["citations"]}
    assert PYTEST not in cited and cited <= {VECTORS}
    other = spaces_app.test_client()
    sign_in(spaces_app, other, "Testing", "student", subject="opaque-2")
    answered = other.post("/api/query", json={"query": "How do pytest fixtures work?"}).get_json()
    assert {citation["course"] for citation in answered["citations"]} == {PYTEST}


def test_a_visitor_who_is_not_signed_in_reads_only_courses_of_no_space(spaces_app):
    client = spaces_app.test_client()

    assert titles(client.get("/api/courses")) == {RAG}
    found = client.get("/api/search", query_string={"q": "vector index HNSW graphs", "k": 8}).get_json()
    assert {hit["course_title"] for hit in found["results"]} <= {RAG}


def test_a_member_removed_from_their_space_loses_its_courses_at_once(spaces_app):
    client = spaces_app.test_client()
    sign_in(spaces_app, client, "Vectors", "student", subject="leaver")
    assert titles(client.get("/api/courses")) == {VECTORS}

    from app.store.spaces import Identity
    from tests.web.spaces_support import ISSUER

    spaces_app.extensions["services"].store.spaces.sign_in(Identity(ISSUER, "leaver"), {})

    assert titles(client.get("/api/courses")) == {RAG}


def test_a_spaces_search_filters_by_its_courses_inside_the_index_query(spaces_app):
    client = spaces_app.test_client()
    sign_in(spaces_app, client, "Vectors", "student")
    store = spaces_app.extensions["services"].index.store
    wheres: list = []
    run = store.run

    def recording(name, operation, /, **kwargs):
        if operation == "query":
            wheres.append(kwargs.get("where"))
        return run(name, operation, **kwargs)

    store.run = recording
    client.get("/api/search", query_string={"q": "how tests are written and indexes are built", "k": 8})

    vectors_id = course_ids(spaces_app)[VECTORS]
    assert wheres and all(f"'$in': ['{vectors_id}']" in str(where) for where in wheres)
