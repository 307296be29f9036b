"""Answer-type matching: a question asking who, when or how many is answered by a sentence holding one."""

from __future__ import annotations

import pytest

from app.assistant.extractive import answer_types
from app.assistant.extractive.answer_types import NUMBER, PERSON, TIME, asked_type, bonus, holds
from app.assistant.extractive.quotes import lead
from app.search.models import Passage

# Two sentences of a lecture that share the question's words alike; only one names who thought it up.
NAMED = "The bell experiment was first thought up by Marlowe in a lab with dogs, a long time ago."
UNNAMED = "The bell experiment was first thought up in a lab with dogs, a long time ago."
QUESTION = "who first thought of the bell experiment?"


def passage(text: str, score: float = 0.6, chunk: int = 0) -> Passage:
    """A search hit of made-up course text."""
    return Passage(
        course_title="Mind Lectures",
        lesson_number=2,
        lesson_title="Learning",
        chunk_index=chunk,
        score=score,
        text=text,
    )


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("who thought up the bell experiment?", PERSON),
        ("and who first thought of it?", PERSON),
        ("When was the bell experiment run?", TIME),
        ("what year did the study appear", TIME),
        ("how many dogs took part?", NUMBER),
        ("what percentage of the grade is the final?", NUMBER),
        ("How common is the disorder?", NUMBER),
        ("what happens to dogs who hear the bell?", None),  # "who" inside a clause asks for no person
        ("explain the bell experiment", None),
    ],
)
def test_the_kind_of_fact_a_question_asks_for(question, kind):
    assert asked_type(question) == kind


@pytest.mark.parametrize(
    ("kind", "sentence", "held"),
    [
        (PERSON, "Um, it was thought up by a Marlowe.", True),
        (PERSON, "The bell experiment shows learning by association.", False),
        (PERSON, "At the time a student of Anna Berg was toying with this idea.", True),
        (PERSON, "It was studied by an economist called quill.", True),  # captions spell names lower-case
        (PERSON, "The dog has learned that the bell predicts food.", False),
        (PERSON, "And I think the Bell experiment shows it.", False),  # a word of the question is no answer
        (TIME, "That was back in 1927, in the spring.", True),
        (TIME, "The dog learned it quickly.", False),
        (TIME, "Some of you may have seen this episode.", False),  # "may" the verb is no month
        (TIME, "The paper came out in May.", True),
        (NUMBER, "It strikes about one in a thousand people.", True),
        (NUMBER, "30% on the midterm and 40% on the final.", True),
        (NUMBER, "It strikes people, mostly boys.", False),
    ],
)
def test_whether_a_sentence_holds_the_kind_of_fact(kind, sentence, held):
    known = {"bell", "experiment"}
    assert holds(kind, sentence, known) is held


def test_only_a_sentence_of_the_asked_kind_gains():
    where = passage(NAMED)
    assert bonus(PERSON, "who thought it up?", where, "It was thought up by a Marlowe.") == answer_types.BONUS
    assert bonus(PERSON, "who thought it up?", where, "The dog learned it.") == 0.0
    assert bonus(None, "explain it", where, "It was thought up by a Marlowe.") == 0.0


def test_a_who_question_leads_with_the_sentence_naming_someone(scorer):
    found = scorer.quotes(QUESTION, [passage(UNNAMED, chunk=0), passage(NAMED, chunk=1)])
    assert lead(found, False)[0].sentence == NAMED


def test_without_the_bonus_the_sentence_naming_no_one_leads(scorer, monkeypatch):
    # What the rule changes: by meaning and shared words alone the other sentence scores a little higher.
    monkeypatch.setattr(answer_types, "BONUS", 0.0)
    found = scorer.quotes(QUESTION, [passage(UNNAMED, chunk=0), passage(NAMED, chunk=1)])
    assert lead(found, False)[0].sentence == UNNAMED
