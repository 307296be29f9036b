"""'Which philosopher …?' asks for a person, and a sentence echoing the asked role names no one by that."""

from __future__ import annotations

from app.assistant.extractive.answer_types import PERSON, asked_type, holds
from app.language.tokens import content_words


def test_which_and_a_role_asks_for_a_person():
    assert asked_type("which philosopher said the theory can't be tested?") == PERSON
    assert asked_type("Which economists studied duopolies first?") == PERSON
    # "what researchers found" asks what, not who.
    assert asked_type("what researchers found about sleep") is None


def test_a_sentence_echoing_the_asked_role_holds_no_person():
    known = set(content_words("which philosopher said the theory can't be tested?"))
    assert not holds(PERSON, "The super ego is not some brilliant moral philosopher at all.", known)
    assert holds(PERSON, "The idea was put by the philosopher Karl Popper, who coined it.", known)
    # Asked with "who", the role word still tells that a lower-case name is a person's.
    assert holds(PERSON, "it was studied by a french economist called core know.", set())
