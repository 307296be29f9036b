"""What storing an answer costs it: the database writes of one answer, p50 and p95, on SQLite and PostgreSQL.

An answer's writes: the question stored as asked (pending exchange), the pending question held for the
stream and claimed by it, the exchange completed, the question logged. PostgreSQL is a real server on
loopback with its default durability (fsync on); the app's connections commit without waiting for the disk.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import ROOT
from bench.index_search import print_table

N = 500
WARMUP = 20
TARGET_MS = 2.0
SOURCES = [
    {
        "label": "RAG in Practice · Lesson 2: Chunking",
        "course_title": "RAG in Practice",
        "lesson_number": 2,
        "lesson_link": "https://example.edu/rag/2",
        "snippet": "Chunks keep whole sentences; the overlap carries context into the next chunk. " * 3,
    }
] * 3
ANSWER = "Chunks are built from whole sentences up to the chunk size [^1]. " * 20
STEPS = ("ask", "hold + claim", "finish", "log")
# Storing the exchange itself: the question as asked, then its answer; the target applies to this.
EXCHANGE = "exchange (ask + finish)"
ANSWER_WRITES = "every write of an answer"


def answer_writes(store, number: int, conversation: str | None) -> tuple[dict[str, float], str]:
    """Make one answer's writes; return milliseconds per step and the conversation id."""
    from app.store.records import Outcome, QuestionEntry
    from app.store.soft import DOWN

    owner = "bench-browser"
    question = f"How are chunks made, question {number}?"
    timings: dict[str, float] = {}

    def timed(step: str, write: Callable[[], object]) -> object:
        start = time.perf_counter()
        result = write()
        timings[step] = (time.perf_counter() - start) * 1000
        if result is DOWN or result is None:
            raise SystemExit(f"store_latency: {step} failed")
        return result

    asked = timed("ask", lambda: store.conversations.ask(owner, question, conversation))
    timed("hold", lambda: store.pending.hold(owner, question, asked.exchange_id))
    outcome = Outcome("answered", ANSWER, SOURCES, "claude", 420, 2100, 0.71)
    timed("finish", lambda: store.conversations.finish(asked.exchange_id, outcome))
    entry = QuestionEntry(
        question,
        "RAG in Practice",
        [("RAG in Practice", 2)],
        False,
        0.71,
        "claude",
        ("RAG in Practice", 2),
        asked.exchange_id,
    )
    timed("log", lambda: store.questions.record(entry))
    return timings, asked.conversation_id


def measure(url: str, count: int = N) -> dict[str, list[float]]:
    """Milliseconds per step and per answer over `count` answers in 5-question conversations."""
    from app.store.store import Store

    store = Store(url)
    store.upgrade()
    results: dict[str, list[float]] = {step: [] for step in (*STEPS, EXCHANGE, ANSWER_WRITES)}
    conversation = None
    try:
        for number in range(WARMUP + count):
            timings, conversation = answer_writes(store, number, conversation if number % 5 else None)
            if number >= WARMUP:
                for step, value in timings.items():
                    results[step].append(value)
                results[EXCHANGE].append(timings["ask"] + timings["finish"])
                results[ANSWER_WRITES].append(sum(timings.values()))
    finally:
        store.close()
    return results


def rows(backend: str, results: dict[str, list[float]]) -> list[tuple[str, ...]]:
    """Table rows: one per step and the whole answer, with p50 and p95."""
    table = []
    for step, values in results.items():
        p50 = statistics.median(values)
        p95 = statistics.quantiles(values, n=20, method="inclusive")[18]
        verdict = ("ok" if p50 <= TARGET_MS else "OVER") if step == EXCHANGE else ""
        table.append((backend, step, f"{p50:.2f}", f"{p95:.2f}", verdict))
    return table


def main(count: int = N) -> None:
    """Time an answer's writes on a SQLite file, then on a PostgreSQL server started on loopback."""
    sys.path.insert(0, str(ROOT))  # tests.servers starts the PostgreSQL server the tests use
    from tests.servers import start_postgres

    table = []
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        table += rows("sqlite", measure(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", count))
        server = start_postgres(Path(tmp), durable=True)
        try:
            table += rows("postgresql", measure(server.url(), count))
        finally:
            server.stop()
    load = os.getloadavg()[0]
    print_table(
        f"Database writes per answer, {count} answers, ms (target: exchange p50 <= {TARGET_MS:g} ms; "
        f"load average {load:.1f} on {os.cpu_count()} CPUs)",
        ("database", "step", "p50", "p95", ""),
        table,
    )


if __name__ == "__main__":
    main()
