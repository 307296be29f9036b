"""Course spaces in the store: settings, courses, and users signed in by issuer and opaque subject."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.errors import BadRequest
from app.store.models import User
from app.store.spaces import Identity, SpaceSettings


def test_a_space_keeps_its_courses_and_its_staffs_settings(store):
    space = store.spaces.create("  Intro   to Statistics ")
    assert space.name == "Intro to Statistics" and space.settings == SpaceSettings()

    store.spaces.set_courses(space.id, {"stats-101", "probability"})
    stored = store.spaces.configure(
        space.id,
        SpaceSettings("hints", (" p-values ", "", "bootstrapping"), " Welcome! ", ("What is a mean?",)),
    )

    assert stored.avoid_topics == ("p-values", "bootstrapping") and stored.welcome == "Welcome!"
    again = store.spaces.get(space.id)
    assert again is not None and again.settings == stored and again.settings.hints
    assert again.courses == {"stats-101", "probability"}
    assert store.spaces.assigned_courses() == {"stats-101", "probability"}
    store.spaces.set_courses(space.id, {"probability"})
    assert store.spaces.assigned_courses() == {"probability"}
    assert [listed.name for listed in store.spaces.all()] == ["Intro to Statistics"]


def test_bad_space_input_is_refused_and_changes_nothing(store):
    space = store.spaces.create("Algebra")
    with pytest.raises(BadRequest):
        store.spaces.create("algebra".title())
    with pytest.raises(BadRequest):
        store.spaces.create("   ")
    with pytest.raises(BadRequest):
        store.spaces.configure(space.id, SpaceSettings(answer_mode="solutions"))
    with pytest.raises(BadRequest):
        store.spaces.configure(space.id, SpaceSettings(suggestions=tuple(f"q{n}" for n in range(50))))
    assert store.spaces.get(space.id).settings == SpaceSettings()
    assert store.spaces.get(space.id + 100) is None


def test_sign_in_keeps_the_opaque_subject_and_replaces_roles(store):
    algebra = store.spaces.create("Algebra")
    geometry = store.spaces.create("Geometry")
    person = Identity("https://idp.example.edu", "opaque-7f3a")

    first = store.spaces.sign_in(person, {"Algebra": "student", "No such space": "staff"})
    assert first.roles == {algebra.id: "student"}
    assert store.spaces.role(first.user_id, algebra.id) == "student"
    assert store.spaces.role(first.user_id, geometry.id) is None

    again = store.spaces.sign_in(person, {"Geometry": "staff"})
    assert again.user_id == first.user_id, "one user per issuer and subject"
    assert store.spaces.role(first.user_id, algebra.id) is None
    assert store.spaces.role(first.user_id, geometry.id) == "staff"

    other_issuer = store.spaces.sign_in(Identity("https://lms.example.edu", "opaque-7f3a"), {})
    assert other_issuer.user_id != first.user_id and other_issuer.roles == {}
    with store.db.reading() as session:
        users = session.scalars(select(User)).all()
    assert len(users) == 2 and all(user.name is None and user.email is None for user in users)
