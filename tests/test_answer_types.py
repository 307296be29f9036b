"""Answer-type matching: a question asking who, when or how many is answered by a sentence holding one."""

from __future__ import annotations

import pytest

from app.assistant.extractive import answer_types
from app.assistant.extractive.answer_types import NUMBER, PERSON, TIME, asked_type, bonus, holds
from app.assistant.extractive.quotes import SentenceScorer, lead
from app.search.models import Passage

# A spoken passage: the experiment described at length, its inventor named once, in passing.
LECTURE = (
    "The bell experiment works like this. "
    "A dog hears a bell every time food arrives, and after a while the bell alone makes the dog salivate. "
    "Um, it was thought up by a Marlowe, a long time ago. "
    "The dog has learned that the bell predicts food, and the bell experiment shows learning by association."
)


def passage(text: str, score: float = 0.6) -> Passage:
    """A search hit of made-up course text."""
    return Passage(
        course_title="Mind Lectures",
        lesson_number=2,
        lesson_title="Learning",
        chunk_index=0,
        score=score,
        text=text,
    )


@pytest.fixture(scope="module")
def scorer():
    """A sentence scorer on the real embedding model."""
    from app.search.embedding import get_embedder

    return SentenceScorer(get_embedder())


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("who thought up the bell experiment?", PERSON),
        ("and who first came up with it?", PERSON),
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
        (PERSON, "Um, it was thought up by a marlowe.", True),  # captions spell names lower-case
        (PERSON, "At the time a student of Anna Berg was toying with this idea.", True),
        (PERSON, "It was studied by a French economist called quill.", True),
        (PERSON, "The dog has learned that the bell predicts food.", False),
        (PERSON, "And I think the Bell experiment shows it.", False),  # a word of the question is no answer
        (TIME, "That was back in 1927, in the spring.", True),
        (TIME, "The dog learned it quickly.", False),
        (NUMBER, "It strikes about one in a thousand people.", True),
        (NUMBER, "30% on the midterm and 40% on the final.", True),
        (NUMBER, "It strikes people, mostly boys.", False),
    ],
)
def test_whether_a_sentence_holds_the_kind_of_fact(kind, sentence, held):
    known = {"bell", "experiment"}
    assert holds(kind, sentence, known) is held


def test_only_a_sentence_of_the_asked_kind_gains():
    where = passage(LECTURE)
    assert bonus(PERSON, "who thought it up?", where, "It was thought up by a Marlowe.") == answer_types.BONUS
    assert bonus(PERSON, "who thought it up?", where, "The dog learned it.") == 0.0
    assert bonus(None, "explain it", where, "It was thought up by a Marlowe.") == 0.0


def test_a_who_question_leads_with_the_sentence_naming_someone(scorer):
    question = "who first came up with the bell experiment?"
    answer = lead(scorer.quotes(question, [passage(LECTURE)]), False)
    assert "Um, it was thought up by a Marlowe, a long time ago." in [quote.sentence for quote in answer]


def test_without_the_bonus_the_sentence_naming_someone_does_not_lead(scorer, monkeypatch):
    # What the rule changes: by meaning and shared words, the sentences repeating the topic score higher.
    monkeypatch.setattr(answer_types, "BONUS", 0.0)
    question = "who first came up with the bell experiment?"
    answer = lead(scorer.quotes(question, [passage(LECTURE)]), False)
    assert answer[0].sentence != "Um, it was thought up by a Marlowe, a long time ago."
