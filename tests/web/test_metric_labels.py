"""Metric labels stay bounded: random methods and paths add no series, and no memory with metrics off."""

from __future__ import annotations

import gc
import logging
import os
import random
import string
import tracemalloc

from prometheus_client import REGISTRY

FLOOD = 1500


def random_word(rng: random.Random, length: int = 10) -> str:
    """An upper-case token that is a valid HTTP method name nobody uses."""
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(length))


def flood(client, rng: random.Random, count: int) -> None:
    """`count` requests with random method names and random paths."""
    for _ in range(count):
        path = f"/{random_word(rng).lower()}/{random_word(rng).lower()}"
        # Closing the response runs its on-close work: the log line and the metric, as a server does.
        client.open(path, method=random_word(rng)).close()


def series() -> set[tuple]:
    """Every label set of every app metric in the default registry."""
    return {
        (sample.name, tuple(sorted(sample.labels.items())))
        for metric in REGISTRY.collect()
        if metric.name.startswith("course_assistant")
        for sample in metric.samples
    }


def test_random_methods_and_paths_add_a_bounded_number_of_series(make_app):
    client = make_app(METRICS_ENABLED="true").test_client()
    rng = random.Random(17)
    before = series()
    flood(client, rng, 200)
    grown = series() - before
    # At most the `other` method with the statuses an unknown route answers (404, 405), one histogram each.
    assert len(grown) <= 2 * 20, sorted(grown)[:5]
    body = client.get("/metrics").get_data(as_text=True)
    assert 'method="other"' in body


def test_a_flood_of_random_methods_does_not_grow_memory_with_metrics_off(make_app):
    client = make_app().test_client()
    rng = random.Random(18)
    flood(client, rng, 300)  # warm every cache the request path has
    # The log lines still get written (that path is measured too), to nowhere: pytest's capture handlers
    # on that logger would keep every record.
    logger = logging.getLogger("course_assistant.requests")
    kept = logger.handlers[:]
    with open(os.devnull, "w") as devnull:
        logger.handlers = [logging.StreamHandler(devnull)]
        gc.collect()
        tracemalloc.start()
        try:
            start = tracemalloc.take_snapshot()
            flood(client, rng, FLOOD)
            gc.collect()
            stats = tracemalloc.take_snapshot().compare_to(start, "filename")
            grown = sum(stat.size_diff for stat in stats)
        finally:
            tracemalloc.stop()
            logger.handlers = kept
    assert grown < 512 * 1024, f"{grown} bytes kept after {FLOOD} requests: {stats[:3]}"
