"""Conversations: stored as asked, completed as answered, listed, renamed, deleted, exported, purged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from app.assistant.base import Source
from app.errors import BadRequest
from app.store.export import to_markdown
from app.store.models import Conversation, Exchange, now
from app.store.records import Outcome
from app.web.chat.exchanges import dump_sources, load_sources

ALICE = "browser-alice"
MALLORY = "browser-mallory"
SOURCE = {
    "label": "RAG in Practice · Lesson 2: Chunking",
    "course_title": "RAG in Practice",
    "lesson_number": 2,
    "lesson_link": "https://example.edu/rag/2",
    "snippet": "Chunks keep whole sentences.",
}


def answered(text: str = "Chunks keep **whole** sentences.") -> Outcome:
    """An answered outcome with one source."""
    return Outcome(
        status="answered", answer=text, sources=[SOURCE], mode="claude", total_ms=900, confidence=0.8
    )


def test_a_question_is_stored_when_asked_and_completed_when_answered(store):
    asked = store.conversations.ask(ALICE, "  How are\n chunks made?  ")

    pending = store.conversations.transcript(ALICE, asked.conversation_id)
    assert pending.conversation.title == "How are chunks made?"
    assert [(e.question, e.status, e.answer) for e in pending.exchanges] == [
        ("  How are\n chunks made?  ", "pending", "")
    ]

    assert store.conversations.finish(asked.exchange_id, answered()) is True

    (exchange,) = store.conversations.transcript(ALICE, asked.conversation_id).exchanges
    assert (exchange.status, exchange.answer, exchange.sources) == ("answered", answered().answer, [SOURCE])
    assert (exchange.mode, exchange.confidence, exchange.vote) == ("claude", 0.8, None)


def test_a_timed_source_keeps_its_video_second_in_the_store(store):
    timed = Source(
        label="RAG in Practice · Lesson 2: Chunking",
        course_title="RAG in Practice",
        lesson_number=2,
        lesson_link="https://example.edu/rag/2.mp4",
        snippet="Chunks keep whole sentences.",
        start_seconds=95.0,
    )
    untimed = timed.model_copy(update={"start_seconds": None})
    asked = store.conversations.ask(ALICE, "How are chunks made?")
    outcome = Outcome(status="answered", answer="Whole sentences.", sources=dump_sources([timed, untimed]))
    assert store.conversations.finish(asked.exchange_id, outcome) is True

    (exchange,) = store.conversations.transcript(ALICE, asked.conversation_id).exchanges
    # An untimed source is stored without the key, as before timings existed.
    assert ["start_seconds" in item for item in exchange.sources] == [True, False]
    assert load_sources(exchange.sources) == [timed, untimed]
    assert [source.link for source in load_sources(exchange.sources)] == [
        "https://example.edu/rag/2.mp4#t=95",
        "https://example.edu/rag/2.mp4",
    ]


def test_follow_ups_join_the_conversation_in_order_and_unfinished_ones_say_how_they_ended(store):
    first = store.conversations.ask(ALICE, "First?")
    second = store.conversations.ask(ALICE, "Second?", first.conversation_id)
    third = store.conversations.ask(ALICE, "Third?", first.conversation_id)
    store.conversations.finish(first.exchange_id, answered())
    store.conversations.finish(second.exchange_id, Outcome(status="interrupted", answer="Half an"))
    store.conversations.finish(third.exchange_id, Outcome(status="failed"))

    transcript = store.conversations.transcript(ALICE, first.conversation_id)

    assert {second.conversation_id, third.conversation_id} == {first.conversation_id}
    assert [(e.question, e.status) for e in transcript.exchanges] == [
        ("First?", "answered"),
        ("Second?", "interrupted"),
        ("Third?", "failed"),
    ]
    assert transcript.conversation.title == "First?"


def test_a_long_first_question_makes_a_short_title(store):
    asked = store.conversations.ask(ALICE, "why " * 100)
    title = store.conversations.transcript(ALICE, asked.conversation_id).conversation.title
    assert len(title) <= 120 and title.endswith("…")


def test_finishing_an_unknown_exchange_says_so(store):
    assert store.conversations.finish(999_999, answered()) is False


def test_a_browser_lists_its_own_conversations_most_recent_first(store):
    older = store.conversations.ask(ALICE, "Older conversation")
    newer = store.conversations.ask(ALICE, "Newer conversation")
    store.conversations.ask(MALLORY, "Someone else's")
    assert [c.id for c in store.conversations.recent(ALICE)] == [newer.conversation_id, older.conversation_id]

    store.conversations.ask(ALICE, "A follow-up brings it back up", older.conversation_id)

    listed = store.conversations.recent(ALICE)
    assert [c.title for c in listed] == ["Older conversation", "Newer conversation"]
    assert [c.title for c in store.conversations.recent(MALLORY)] == ["Someone else's"]
    assert store.conversations.recent("browser-new") == []


def test_ids_are_long_and_random(store):
    ids = {store.conversations.ask(ALICE, f"Question {n}").conversation_id for n in range(5)}
    assert len(ids) == 5
    assert all(len(conversation_id) >= 40 for conversation_id in ids)


def test_another_browser_can_neither_read_nor_change_nor_extend_a_conversation(store):
    asked = store.conversations.ask(ALICE, "Mine")
    store.conversations.finish(asked.exchange_id, answered())
    conversation_id = asked.conversation_id

    assert store.conversations.transcript(MALLORY, conversation_id) is None
    assert store.conversations.rename(MALLORY, conversation_id, "Stolen") is False
    assert store.conversations.delete(MALLORY, conversation_id) is False
    assert store.conversations.ask(MALLORY, "Sneaked in?", conversation_id) is None
    assert store.votes.vote(MALLORY, asked.exchange_id, "down") is False

    transcript = store.conversations.transcript(ALICE, conversation_id)
    assert transcript.conversation.title == "Mine"
    assert [e.question for e in transcript.exchanges] == ["Mine"]
    assert transcript.exchanges[0].vote is None


def test_a_guessed_id_opens_nothing(store):
    store.conversations.ask(ALICE, "Mine")
    assert store.conversations.transcript(ALICE, "A" * 43) is None


def test_the_owner_renames_a_conversation(store):
    asked = store.conversations.ask(ALICE, "Original")

    assert store.conversations.rename(ALICE, asked.conversation_id, "  Chunking\nnotes ") is True

    assert store.conversations.recent(ALICE)[0].title == "Chunking notes"
    with pytest.raises(BadRequest):
        store.conversations.rename(ALICE, asked.conversation_id, "   ")


def test_the_owner_deletes_a_conversation_with_its_exchanges_and_votes(store):
    asked = store.conversations.ask(ALICE, "Delete me")
    store.conversations.finish(asked.exchange_id, answered())
    store.votes.vote(ALICE, asked.exchange_id, "down", "wrong")
    kept = store.conversations.ask(ALICE, "Keep me")

    assert store.conversations.delete(ALICE, asked.conversation_id) is True

    assert store.conversations.transcript(ALICE, asked.conversation_id) is None
    assert store.votes.get(ALICE, asked.exchange_id) is None
    assert [c.id for c in store.conversations.recent(ALICE)] == [kept.conversation_id]
    assert store.conversations.delete(ALICE, asked.conversation_id) is False


def test_the_export_holds_every_exchange_and_source_in_markdown(store):
    asked = store.conversations.ask(ALICE, "How are chunks made?")
    store.conversations.finish(asked.exchange_id, answered())
    follow = store.conversations.ask(ALICE, "And [links]?", asked.conversation_id)
    store.conversations.finish(follow.exchange_id, Outcome(status="interrupted", answer="Links are"))

    markdown = to_markdown(store.conversations.transcript(ALICE, asked.conversation_id), answer=str)

    assert markdown.startswith("# How are chunks made?\n")
    assert "## 1. Question\n\n> How are chunks made?" in markdown
    assert "Chunks keep **whole** sentences." in markdown
    assert "1. [RAG in Practice · Lesson 2: Chunking](<https://example.edu/rag/2>)" in markdown
    assert "> Chunks keep whole sentences." in markdown
    assert "## 2. Question\n\n> And \\[links\\]?" in markdown
    assert "Links are\n\n_The answer was interrupted._" in markdown


def test_retention_purges_conversations_untouched_for_the_period(store):
    old = store.conversations.ask(ALICE, "Old")
    store.votes.vote(ALICE, old.exchange_id, "up")
    recent = store.conversations.ask(ALICE, "Recent")
    with store.db.writing() as session:
        session.execute(
            update(Conversation)
            .where(Conversation.id == old.conversation_id)
            .values(updated_at=now() - timedelta(days=91))
        )

    assert store.conversations.purge(older_than_days=90) == 1

    assert [c.id for c in store.conversations.recent(ALICE)] == [recent.conversation_id]
    assert store.conversations.transcript(ALICE, old.conversation_id) is None


def test_the_store_purges_with_its_retention_setting(make_store):
    store = make_store(retention_days=7)
    old = store.conversations.ask(ALICE, "A week and a day ago")
    store.conversations.ask(ALICE, "Today")
    with store.db.writing() as session:
        session.execute(
            update(Conversation)
            .where(Conversation.id == old.conversation_id)
            .values(updated_at=now() - timedelta(days=8))
        )

    assert store.purge_expired().conversations == 1
    assert [c.title for c in store.conversations.recent(ALICE)] == ["Today"]


def test_a_question_left_pending_by_a_dead_worker_reads_as_interrupted(store):
    lost = store.conversations.ask(ALICE, "Asked before the worker died")
    live = store.conversations.ask(ALICE, "Still being answered", lost.conversation_id)
    with store.db.writing() as session:
        session.execute(
            update(Exchange)
            .where(Exchange.id == lost.exchange_id)
            .values(created_at=now() - timedelta(minutes=11))
        )

    exchanges = store.conversations.transcript(ALICE, lost.conversation_id).exchanges

    assert [(e.id, e.status) for e in exchanges] == [
        (lost.exchange_id, "interrupted"),
        (live.exchange_id, "pending"),
    ]
