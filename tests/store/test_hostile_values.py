"""Values no database row can hold (control characters, ids past 32 bits) are bad input, never an outage."""

from __future__ import annotations

from prometheus_client import REGISTRY

from app.store.models import PendingQuestion
from app.store.records import Outcome, QuestionEntry
from app.store.soft import DOWN, OPERATIONS

ALICE = "browser-alice"
METRIC = "course_assistant_store_errors_total"
# Past PostgreSQL's integer; SQLite takes it, so both must find no row, alike.
HUGE_ID = 2**31
HUGER_ID = 2**70


def store_errors() -> dict[str, float]:
    """The store error counter of every operation."""
    return {op: REGISTRY.get_sample_value(METRIC, {"operation": op}) or 0.0 for op in OPERATIONS}


def test_control_characters_are_dropped_from_every_stored_text_alike(store):
    before = store_errors()
    asked = store.conversations.ask(ALICE, "How do I\x00 temper\x1b[31m chocolate?\x7f")
    assert asked is not DOWN and asked is not None
    assert store.conversations.finish(
        asked.exchange_id, Outcome(status="answered", answer="Melt it\x00 slowly.\x08")
    )
    assert store.votes.vote(ALICE, asked.exchange_id, "down", "too\x00 short\x07")
    assert store.conversations.rename(ALICE, asked.conversation_id, "Choco\x00late\x0c notes")
    assert (
        store.questions.record(QuestionEntry(question="How do I\x00 temper?", course="Baking\x00 101"))
        != DOWN
    )
    held = store.pending.hold(ALICE, "Another\x00 one")
    assert held is not DOWN
    assert store.eval_cases.save("Which\x00 pan?", "Baking\x00 101", 1, "the\x00 evidence") > 0

    found = store.conversations.transcript(ALICE, asked.conversation_id)
    assert found.conversation.title == "Chocolate notes"
    exchange = found.exchanges[0]
    assert (exchange.question, exchange.answer) == ("How do I temper[31m chocolate?", "Melt it slowly.")
    assert store.votes.get(ALICE, asked.exchange_id) == ("down", "too short")
    with store.db.reading() as session:
        assert session.get(PendingQuestion, held).question == "Another one"
    [case] = store.eval_cases.all()
    assert (case.question, case.gold_course, case.evidence) == ("Which pan?", "Baking 101", "the evidence")
    [row] = [row for row in store.questions.csv_rows() if "temper" in ",".join(row)]
    assert "How do I temper?" in row and "Baking 101" in row
    assert store_errors() == before  # nothing was counted as the database being down


def test_tabs_and_line_breaks_are_kept_in_long_text(store):
    asked = store.conversations.ask(ALICE, "First line\n\tindented\r\nlast")
    exchange = store.conversations.transcript(ALICE, asked.conversation_id).exchanges[0]
    assert exchange.question == "First line\n\tindented\r\nlast"


def test_ids_past_32_bits_find_nothing_and_count_no_outage(store):
    asked = store.conversations.ask(ALICE, "Is this stored?")
    before = store_errors()
    for exchange_id in (HUGE_ID, HUGER_ID, -HUGE_ID - 1):
        assert store.votes.vote(ALICE, exchange_id, "up") is False
        assert store.votes.get(ALICE, exchange_id) is None
        assert store.conversations.finish(exchange_id, Outcome(status="answered", answer="x")) is False
        assert store.eval_cases.remove(exchange_id) is False
    assert store_errors() == before
    assert store.votes.vote(ALICE, asked.exchange_id, "up") is True
