"""Observability: a request id on every response, one structured log line per request, Prometheus metrics."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import uuid
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)

from app.assistant.base import Answer
from app.metrics import INDEXED, MODEL_TOKENS, REQUEST_SECONDS, TOOL_ROUNDS, UNVERIFIED_CITATIONS
from app.services import services

REQUEST_ID_HEADER = "X-Request-ID"
# An unverified citation's text is cut to this length in the log line, and at most this many are logged.
LOGGED_QUOTE_CHARS = 120
LOGGED_QUOTES = 5
# A caller's (or proxy's) id is kept only when it is short and plain, so it cannot forge log lines.
INCOMING_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
log = logging.getLogger("course_assistant.requests")
# Metric labels must come from a bounded set: any other method name (a client picks it) is `other`.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def register(app: Flask) -> None:
    """Give every request an id and a log line; serve /metrics when METRICS_ENABLED."""
    _log_to_stderr()
    app.before_request(_start)
    app.after_request(_finish)
    if app.extensions["services"].settings.metrics_enabled:
        app.add_url_rule("/metrics", "metrics", metrics)


def record_answer(answer: Answer) -> None:
    """Note the answer's mode, tool rounds and tokens for this request's log line and the metrics."""
    record = g.get("request_record")
    if record is not None:
        record.update(mode=answer.mode, tool_rounds=answer.tool_rounds, tokens=answer.usage or {})
        if answer.unverified_citations:
            quotes = answer.unverified_citations
            record["unverified_citations"] = [quote[:LOGGED_QUOTE_CHARS] for quote in quotes[:LOGGED_QUOTES]]
    if answer.unverified_citations:
        UNVERIFIED_CITATIONS.inc(len(answer.unverified_citations))
    TOOL_ROUNDS.labels(answer.mode).observe(answer.tool_rounds)
    for kind, count in (answer.usage or {}).items():
        MODEL_TOKENS.labels(kind.removesuffix("_tokens")).inc(count)


def metrics() -> Response:
    """Prometheus metrics of this process, or of every worker when PROMETHEUS_MULTIPROC_DIR is set."""
    records = services().index.courses()
    INDEXED.labels("courses").set(len(records))
    INDEXED.labels("chunks").set(sum(record.chunk_count for record in records))
    registry: Any = None
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Several gunicorn workers: each writes its samples to that folder; add them up at scrape time.
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    body = generate_latest(registry) if registry is not None else generate_latest()
    return Response(body, mimetype=CONTENT_TYPE_LATEST)


def _start() -> None:
    """Stamp the request with its id and start time."""
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_record = {
        "request_id": incoming if INCOMING_ID.fullmatch(incoming) else uuid.uuid4().hex,
        "started": time.perf_counter(),
    }


def _finish(response: Response) -> Response:
    """Echo the request id; log and measure once the last byte is sent (a stream ends after this returns)."""
    record = g.get("request_record")
    if record is None:  # a request that failed before _start ran (e.g. routing in another before_request)
        return response
    response.headers[REQUEST_ID_HEADER] = record["request_id"]
    endpoint = request.endpoint or "unmatched"
    method, path = request.method, request.path
    response.call_on_close(lambda: _log(record, method, path, endpoint, response.status_code))
    return response


def _log(record: dict[str, Any], method: str, path: str, endpoint: str, status: int) -> None:
    """Write the request's log line and observe its duration."""
    seconds = time.perf_counter() - record["started"]
    REQUEST_SECONDS.labels(method_label(method), endpoint, status_label(status)).observe(seconds)
    line: dict[str, Any] = {
        "request_id": record["request_id"],
        "method": method,
        "path": path,
        "status": status,
        "duration_ms": round(seconds * 1000, 1),
    }
    _write(line, record)


def log_answer_run(record: dict[str, Any], ended: str | None) -> None:
    """The log line of an answer made in the background (chat/run.py), under its question's request id."""
    seconds = time.perf_counter() - record["started"]
    line: dict[str, Any] = {"request_id": record["request_id"], "answer": ended or "unfinished"}
    line["duration_ms"] = round(seconds * 1000, 1)
    _write(line, record)


def _write(line: dict[str, Any], record: dict[str, Any]) -> None:
    """Log `line` as JSON, with what the answer noted in `record` (mode, tool rounds, tokens)."""
    for key in ("mode", "tool_rounds", "tokens", "unverified_citations"):
        if key in record:
            line[key] = record[key]
    log.info(json.dumps(line, separators=(",", ":")))


def method_label(method: str) -> str:
    """The method as a metric label: a known one, or `other`."""
    return method if method in KNOWN_METHODS else "other"


def status_label(status: int) -> str:
    """The status as a metric label: the app sets it, but keep it to three digits whatever happens."""
    return str(status) if 100 <= status <= 599 else "other"


def _log_to_stderr() -> None:
    """Send the request log to stderr (gunicorn's and Flask's own handlers don't carry app loggers)."""
    if log.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
