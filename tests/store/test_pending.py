"""Asked questions: an opaque id each, mapping the browser's stored exchange to its answer run."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from app.store.models import PendingQuestion, now

ALICE = "browser-alice"
MALLORY = "browser-mallory"


def test_a_held_question_gets_an_opaque_id_that_names_its_exchange_to_its_browser_only(store):
    question = "长" * 2000  # a long non-Latin question never touches a URL
    asked = store.conversations.ask(ALICE, question)
    run_id = store.pending.hold(ALICE, question, asked.exchange_id)

    assert question not in run_id and len(run_id) >= 40
    assert store.pending.runs_for(ALICE, [asked.exchange_id]) == {asked.exchange_id: run_id}
    assert store.pending.runs_for(MALLORY, [asked.exchange_id]) == {}
    assert store.pending.runs_for(ALICE, []) == {}


def test_the_purge_deletes_old_questions_only(store):
    old = store.pending.hold(ALICE, "Long ago?")
    store.pending.hold(ALICE, "Just now?")
    with store.db.writing() as session:
        session.execute(
            update(PendingQuestion)
            .where(PendingQuestion.id == old)
            .values(created_at=now() - timedelta(minutes=6))
        )

    assert store.pending.purge() == 1
    assert store.pending.purge() == 0
