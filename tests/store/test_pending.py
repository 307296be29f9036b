"""Pending questions: the stream URL carries an opaque id; the question is claimed once, by its browser."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy import func, select, update

from app.store.models import PendingQuestion, now
from app.store.records import Claim

ALICE = "browser-alice"
MALLORY = "browser-mallory"
CLAIMERS = 12


def test_a_held_question_is_claimed_once_by_its_browser(store):
    question = "长" * 2000  # a long non-Latin question never touches a URL
    pending_id = store.pending.hold(ALICE, question)

    assert question not in pending_id and len(pending_id) >= 40
    assert store.pending.claim(MALLORY, pending_id) is None
    assert store.pending.claim(ALICE, pending_id) == Claim(question=question, exchange_id=None)
    assert store.pending.claim(ALICE, pending_id) is None


def test_the_claim_hands_over_the_pending_exchange(store):
    asked = store.conversations.ask(ALICE, "What is BM25?")
    pending_id = store.pending.hold(ALICE, "What is BM25?", asked.exchange_id)

    assert store.pending.claim(ALICE, pending_id) == Claim("What is BM25?", asked.exchange_id)


def test_a_stale_question_cannot_be_claimed(store):
    pending_id = store.pending.hold(ALICE, "Too late?")
    with store.db.writing() as session:
        session.execute(update(PendingQuestion).values(created_at=now() - timedelta(minutes=6)))

    assert store.pending.claim(ALICE, pending_id) is None
    assert store.pending.purge() == 1


def test_an_unknown_id_claims_nothing(store):
    store.pending.hold(ALICE, "Real")
    assert store.pending.claim(ALICE, "not-an-id") is None


def count(store) -> int:
    """Pending rows in the database."""
    with store.db.reading() as session:
        return session.scalar(select(func.count()).select_from(PendingQuestion))


def test_without_stored_conversations_nothing_of_the_question_outlives_its_claim(make_store):
    store = make_store(store_conversations=False)
    pending_id = store.pending.hold(ALICE, "Private question")
    assert count(store) == 1

    assert store.pending.claim(ALICE, pending_id) == Claim("Private question", None)

    assert count(store) == 0
    assert store.pending.claim(ALICE, pending_id) is None


def race(stores, pending_id: str) -> list:
    """Claim `pending_id` from every store at once, each in its own thread; return every result."""
    start = threading.Barrier(len(stores))

    def claim(store):
        start.wait()
        return store.pending.claim(ALICE, pending_id)

    with ThreadPoolExecutor(len(stores)) as pool:
        return list(pool.map(claim, stores))


def test_concurrent_claims_from_several_processes_worth_of_stores_give_the_question_once(make_store):
    # A store per claimer: its own engine and connections, as separate workers or hosts would have.
    stores = [make_store() for _ in range(CLAIMERS)]
    for round_ in range(5):
        pending_id = stores[0].pending.hold(ALICE, f"Question {round_}")

        results = race(stores, pending_id)

        assert [r for r in results if r is not None] == [Claim(f"Question {round_}", None)]


def test_concurrent_claims_that_delete_the_question_give_it_once(make_store):
    stores = [make_store(store_conversations=False) for _ in range(CLAIMERS)]
    pending_id = stores[0].pending.hold(ALICE, "Once only")

    results = race(stores, pending_id)

    assert [r for r in results if r is not None] == [Claim("Once only", None)]
    assert count(stores[0]) == 0
