"""Feedback: one vote per answer, changeable, a short comment on a down vote; and saved eval cases."""

from __future__ import annotations

import pytest

from app.errors import BadRequest

ALICE = "browser-alice"


@pytest.fixture
def exchange_id(store) -> int:
    """An exchange of Alice's."""
    return store.conversations.ask(ALICE, "What is RRF?").exchange_id


def test_a_vote_is_recorded_and_can_be_changed(store, exchange_id):
    assert store.votes.vote(ALICE, exchange_id, "up") is True
    assert store.votes.get(ALICE, exchange_id) == ("up", None)

    assert store.votes.vote(ALICE, exchange_id, "down", "  Cites the\nwrong lesson ") is True

    assert store.votes.get(ALICE, exchange_id) == ("down", "Cites the wrong lesson")
    conversation_id = store.conversations.recent(ALICE)[0].id
    assert store.conversations.transcript(ALICE, conversation_id).exchanges[0].vote == "down"


def test_changing_to_up_drops_the_comment(store, exchange_id):
    store.votes.vote(ALICE, exchange_id, "down", "wrong")
    store.votes.vote(ALICE, exchange_id, "up", "ignored")
    assert store.votes.get(ALICE, exchange_id) == ("up", None)


def test_a_bad_vote_or_a_long_comment_is_refused_and_the_old_vote_stays(store, exchange_id):
    store.votes.vote(ALICE, exchange_id, "up")
    with pytest.raises(BadRequest):
        store.votes.vote(ALICE, exchange_id, "sideways")  # type: ignore[arg-type]
    with pytest.raises(BadRequest):
        store.votes.vote(ALICE, exchange_id, "down", "x" * 501)
    assert store.votes.get(ALICE, exchange_id) == ("up", None)


def test_a_vote_on_an_unknown_exchange_is_refused(store):
    assert store.votes.vote(ALICE, 424242, "up") is False


def test_eval_cases_are_saved_listed_and_removed(store):
    first = store.eval_cases.save(
        " What is RRF? ", "Search Basics", 3, "Reciprocal rank fusion adds 1/(k+rank)."
    )
    second = store.eval_cases.save("Who teaches it?", "Search Basics", None)

    cases = store.eval_cases.all()
    assert [(c.id, c.question, c.gold_course, c.gold_lesson) for c in cases] == [
        (first, "What is RRF?", "Search Basics", 3),
        (second, "Who teaches it?", "Search Basics", None),
    ]
    assert cases[0].evidence == "Reciprocal rank fusion adds 1/(k+rank)."

    assert store.eval_cases.remove(first) is True
    assert [c.id for c in store.eval_cases.all()] == [second]
    assert store.eval_cases.remove(first) is False
    with pytest.raises(BadRequest):
        store.eval_cases.save("  ", "Search Basics", 1)
