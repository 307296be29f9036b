"""The question log: per day and course, per lesson, the gap candidates, CSV rows and the purge."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from app.store.models import LoggedQuestion
from app.store.questions import CSV_HEADER
from app.store.records import QuestionEntry

RAG = "RAG in Practice"
SEARCH = "Search Basics"
DAY_1 = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
DAY_2 = datetime(2026, 11, 3, 23, 59, tzinfo=UTC)


def log(store, asked_at: datetime, **fields) -> int:
    """Log one question as if asked at `asked_at`."""
    log_id = store.questions.record(QuestionEntry(**fields))
    with store.db.writing() as session:
        session.execute(update(LoggedQuestion).where(LoggedQuestion.id == log_id).values(created_at=asked_at))
    return log_id


def test_questions_are_counted_per_day_and_course_within_the_period(store):
    log(store, DAY_1, question="a", course=RAG)
    log(store, DAY_1 + timedelta(hours=2), question="b", course=RAG)
    log(store, DAY_1, question="c", course=SEARCH)
    log(store, DAY_2, question="d", course=RAG)
    log(store, DAY_2, question="e")
    log(store, DAY_2 + timedelta(days=5), question="outside the period", course=RAG)

    rows = store.questions.per_day(since=DAY_1 - timedelta(hours=9), until=DAY_2 + timedelta(minutes=1))

    assert [(row.day.isoformat(), row.course, row.count) for row in rows] == [
        ("2026-11-02", RAG, 2),
        ("2026-11-02", SEARCH, 1),
        ("2026-11-03", None, 1),
        ("2026-11-03", RAG, 1),
    ]


def test_answers_are_counted_per_cited_lesson_with_their_latest_questions(store):
    log(store, DAY_1, question="How are chunks made?", course=RAG, lessons=[(RAG, 2)])
    log(store, DAY_2, question="Chunk overlap?", course=RAG, lessons=[(RAG, 2), (RAG, 3)])
    log(store, DAY_2, question="Cited twice", course=RAG, lessons=[(RAG, 3), (RAG, 3)])
    log(store, DAY_2, question="Declined", declined=True)

    rows = store.questions.per_lesson()

    assert [(row.course, row.lesson, row.count) for row in rows] == [(RAG, 2, 2), (RAG, 3, 2)]
    assert rows[0].examples[0] == "Chunk overlap?" and set(rows[0].examples) == {
        "How are chunks made?",
        "Chunk overlap?",
    }
    assert [(row.lesson, row.count) for row in store.questions.per_lesson(since=DAY_2)] == [(3, 2), (2, 1)]


def test_gaps_are_declined_low_confidence_and_down_voted_questions(store):
    owner = "browser-alice"
    voted = store.conversations.ask(owner, "Why is the sky blue?")
    store.votes.vote(owner, voted.exchange_id, "down", "Not in the course")
    liked = store.conversations.ask(owner, "What is BM25?")
    store.votes.vote(owner, liked.exchange_id, "up")
    log(store, DAY_1, question="Quantum RAG?", declined=True, closest=(RAG, 4))
    log(store, DAY_1 + timedelta(hours=1), question="Vague one", confidence=0.1, course=SEARCH)
    log(store, DAY_2, question="Why is the sky blue?", confidence=0.9, exchange_id=voted.exchange_id)
    log(store, DAY_2, question="What is BM25?", confidence=0.9, exchange_id=liked.exchange_id)
    log(store, DAY_2, question="Fine", confidence=0.5, course=RAG)

    gaps = store.questions.gaps(low_confidence=0.3)

    assert [(gap.question, gap.reasons) for gap in gaps] == [
        ("Why is the sky blue?", ["down_voted"]),
        ("Vague one", ["low_confidence"]),
        ("Quantum RAG?", ["declined"]),
    ]
    assert gaps[0].comment == "Not in the course"
    assert gaps[2].closest == (RAG, 4) and gaps[1].closest is None
    assert [gap.question for gap in store.questions.gaps(until=DAY_2)] == ["Vague one", "Quantum RAG?"]
    # The CSV keeps the 👎 comment beside its question.
    header, *rows = store.questions.csv_rows()
    commented = {row[header.index("question")]: row[header.index("comment")] for row in rows}
    assert commented["Why is the sky blue?"] == "Not in the course" and commented["What is BM25?"] == ""


def test_csv_rows_hold_every_question_and_no_formula(store):
    log(
        store,
        DAY_1,
        question="How are chunks made?",
        course=RAG,
        lessons=[(RAG, 2)],
        confidence=0.8,
        mode="claude",
    )
    log(store, DAY_2, question='=HYPERLINK("http://x")', declined=True, mode="extractive")

    rows = list(store.questions.csv_rows())

    assert rows[0] == CSV_HEADER
    assert rows[1] == [
        "2026-11-02T09:30:00+00:00",
        "How are chunks made?",
        RAG,
        f"{RAG} 2",
        "no",
        "0.800",
        "claude",
        "",
        "",
    ]
    assert rows[2][1] == '\'=HYPERLINK("http://x")' and rows[2][4] == "yes"
    written = io.StringIO()
    csv.writer(written).writerows(rows)
    assert len(list(csv.reader(io.StringIO(written.getvalue())))) == 3


def test_the_log_is_purged_by_age_or_whole(store):
    log(store, datetime.now(UTC) - timedelta(days=100), question="old", lessons=[(RAG, 1)])
    log(store, datetime.now(UTC), question="new", lessons=[(RAG, 1)])

    assert store.questions.purge(older_than_days=90) == 1
    assert [row[1] for row in list(store.questions.csv_rows())[1:]] == ["new"]
    assert [row.count for row in store.questions.per_lesson()] == [1]

    assert store.questions.purge() == 1
    assert list(store.questions.csv_rows()) == [CSV_HEADER]
    assert store.questions.per_lesson() == []


def test_a_very_long_course_title_is_cut_to_fit_not_lost(store):
    title = "A" * 300
    log_id = store.questions.record(
        QuestionEntry(question="q", course=title, lessons=[(title, 1)], closest=(title, 1))
    )

    assert isinstance(log_id, int)
    assert [(row.course, row.lesson) for row in store.questions.per_lesson()] == [("A" * 200, 1)]
