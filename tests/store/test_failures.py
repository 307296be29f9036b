"""A database that is down costs records, never an answer: writes on the answer path return DOWN."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from app.store.records import Outcome, QuestionEntry
from app.store.soft import DOWN, OPERATIONS, StoreUnavailable
from app.store.store import Store
from tests.servers import start_postgres

ALICE = "browser-alice"
METRIC = "course_assistant_store_errors_total"


def errors(operation: str) -> float:
    """The store error counter for `operation`."""
    return REGISTRY.get_sample_value(METRIC, {"operation": operation}) or 0.0


def answer_path(store: Store, exchange_id: int) -> dict[str, object]:
    """Every write an answer makes, each result by its operation's name."""
    return {
        "ask": store.conversations.ask(ALICE, "Still answered?"),
        "hold": store.pending.hold(ALICE, "Still answered?"),
        "finish": store.conversations.finish(exchange_id, Outcome(status="answered", answer="Yes")),
        "log": store.questions.record(QuestionEntry(question="Still answered?")),
        "journal": store.runs.append("some-run", 0, {"kind": "start"}),
    }


def test_every_operation_has_its_series_from_the_start():
    assert {operation: errors(operation) >= 0 for operation in OPERATIONS} == dict.fromkeys(OPERATIONS, True)
    assert REGISTRY.get_sample_value(METRIC, {"operation": "ask"}) is not None


def test_a_postgresql_server_stopped_mid_traffic_gives_down_a_warning_and_a_metric(tmp_path, caplog):
    server = start_postgres(tmp_path)
    store = Store(server.url())
    try:
        store.upgrade()
        asked = store.conversations.ask(ALICE, "Before the outage")
        assert asked is not DOWN and store.ping()
        before = {operation: errors(operation) for operation in OPERATIONS}

        server.stop()
        with caplog.at_level(logging.WARNING, logger="app.store.soft"):
            results = answer_path(store, asked.exchange_id)

        assert results == dict.fromkeys(OPERATIONS, DOWN)
        assert {op: errors(op) - before[op] for op in OPERATIONS} == dict.fromkeys(OPERATIONS, 1.0)
        warnings = [record for record in caplog.records if record.name == "app.store.soft"]
        assert len(warnings) == len(OPERATIONS)
        assert all(record.exc_info is None for record in warnings)  # one line each, no traceback
        assert not any("Still answered?" in record.getMessage() for record in warnings)
        assert store.ping() is False
        with pytest.raises(StoreUnavailable):
            store.conversations.recent(ALICE)
    finally:
        store.close()
        server.stop()


def test_a_sqlite_file_that_cannot_be_opened_gives_down(tmp_path):
    (tmp_path / "a-folder.sqlite3").mkdir()
    store = Store(f"sqlite:///{tmp_path / 'a-folder.sqlite3'}")
    try:
        before = errors("ask")

        assert store.conversations.ask(ALICE, "Still answered?") is DOWN

        assert errors("ask") == before + 1
        assert store.ping() is False
        with pytest.raises(StoreUnavailable):
            store.votes.vote(ALICE, 1, "up")
    finally:
        store.close()


def test_a_healthy_database_answers_the_ping(store):
    assert store.ping() is True


def test_connections_the_server_dropped_are_renewed_without_losing_a_record(postgres):
    import psycopg

    store = Store(postgres.create_database("dropped_connections"))
    try:
        store.upgrade()
        asked = store.conversations.ask(ALICE, "Before the restart")
        before = errors("finish")
        # What a server restart does to the pool's idle connections: the server ends their sessions.
        with psycopg.connect(postgres.url("postgres").replace("+psycopg", ""), autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = 'dropped_connections' AND pid <> pg_backend_pid()"
            )

        assert store.conversations.finish(asked.exchange_id, Outcome(status="answered", answer="Yes")) is True

        assert errors("finish") == before
        assert store.conversations.recent(ALICE)[0].title == "Before the restart"
    finally:
        store.close()
