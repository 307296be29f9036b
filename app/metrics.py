"""Prometheus metrics, defined once for the whole app (served at /metrics when METRICS_ENABLED)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUEST_SECONDS = Histogram(
    "course_assistant_request_seconds",
    "Time from request to the last byte of the response, by route and status.",
    ["method", "endpoint", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
MODEL_CALL_SECONDS = Histogram(
    "course_assistant_model_call_seconds",
    "Time per model call (Claude Messages or chat completions), including the SDK's retries.",
    buckets=(0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120),
)
TOOL_ROUNDS = Histogram(
    "course_assistant_answer_tool_rounds",
    "Tool rounds per answer, by answer mode.",
    ["mode"],
    buckets=(0, 1, 2, 3, 5, 10),
)
MODEL_TOKENS = Counter(
    "course_assistant_model_tokens",
    "Model tokens by kind (input, output, cache_read_input, cache_creation_input).",
    ["kind"],
)
INDEXED = Gauge(
    "course_assistant_index_size",
    "What the index holds, by unit (courses, chunks).",
    ["unit"],
    multiprocess_mode="livemax",
)
UNVERIFIED_CITATIONS = Counter(
    "course_assistant_unverified_citations",
    "Model citations not in (or not supported by) the passage they name (shown without a marker).",
)

STORE_ERRORS = Counter(
    "course_assistant_store_errors",
    "Database writes lost on the answer path (the answer was still served), by operation.",
    ["operation"],
)

RATELIMIT_STORE_FAILURES = Counter(
    "course_assistant_ratelimit_store_failures",
    "Times the rate-limit store (Redis) failed; the limits then count per process until it is back.",
)


def observe_model_call(seconds: float) -> None:
    """Record one model call's duration."""
    MODEL_CALL_SECONDS.observe(seconds)
