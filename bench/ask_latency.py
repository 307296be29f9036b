"""Latency of POST /ask (no JavaScript: answer, store, redirect) via the Flask test client, fake Claude with
zero delay: the server's cost. Streamed answers are timed by bench.stream_latency."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from bench import ROOT, bench_app

N = 200
WARMUP = 5
QUESTIONS = (
    "What does the first lesson cover?",
    "How do I get started?",
    "What are the common mistakes?",
    "Explain the trade-offs.",
)


def p95(values: list[float]) -> float:
    """The 95th percentile."""
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def measure(client, script: Callable[[int], None], count: int) -> list[float]:
    """Milliseconds per POST /ask, each after `script(i)` queued the fake model's replies."""
    results = []
    for number in range(count):
        script(number)
        question = QUESTIONS[number % len(QUESTIONS)]
        start = time.perf_counter()
        response = client.post("/ask", data={"question": question})
        elapsed = (time.perf_counter() - start) * 1000
        if response.status_code != 303:
            raise SystemExit(
                f"POST /ask failed ({response.status_code}): {response.get_data(as_text=True)[:300]}"
            )
        results.append(elapsed)
    return results


def main(count: int = N) -> None:
    """Index the sample docs into a temp folder, then time POST /ask with and without one search round."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))  # tests.fake_claude is the scripted Messages API the tests use
    from tests.fake_claude import FakeClaude

    fake = FakeClaude().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            app = bench_app(tmp, ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=fake.url)
            app.extensions["services"].indexer.sync()
            client = app.test_client()
            answer = "A short **markdown** answer citing the lesson.\n\n- one point\n- another point"

            def text_only(_: int) -> None:
                """The model answers at once."""
                fake.enqueue_text(answer)

            embedder = app.extensions["services"].index.embedder

            def one_search(number: int) -> None:
                """The model searches the courses once (embedding + ChromaDB), then answers."""
                embedder.embed_query.cache_clear()  # a new question: its vector is not cached yet
                fake.enqueue_tool_use("search_course_content", {"query": QUESTIONS[number % len(QUESTIONS)]})
                fake.enqueue_text(answer)

            rows = []
            for label, script in (("text answer", text_only), ("1 search round + answer", one_search)):
                measure(client, script, WARMUP)
                values = measure(client, script, count)
                rows.append((label, statistics.median(values), p95(values), min(values)))
    finally:
        fake.stop()

    print(f"POST /ask (plain form, 303) via Flask test client, fake Claude with zero delay, N={count}")
    print(f"{'case':<26} {'median ms':>10} {'p95 ms':>8} {'min ms':>8}")
    for label, median, p95_ms, low in rows:
        print(f"{label:<26} {median:>10.1f} {p95_ms:>8.1f} {low:>8.1f}")


if __name__ == "__main__":
    main()
