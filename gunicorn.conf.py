"""Gunicorn settings: `gunicorn -c gunicorn.conf.py wsgi:app` (`make serve`)."""

from __future__ import annotations

import os
import threading

from app.config import load_settings
from app.memory import release_free_memory

_settings = load_settings()

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
# A Claude call is slow I/O: threads, not processes, carry the concurrency. A streamed answer holds its
# thread until its last event, so one worker serves at most `threads` answers (streamed or not) at once;
# an answer mostly waits on the model, so a worker keeps many threads (bench/load.py measures 64+ answers
# at once beside fast pages). MAX_STREAMS_PER_CLIENT keeps one client from taking them all. An idle thread
# costs a stack's worth of virtual memory; the figures are in the README.
worker_class = "gthread"
threads = 96
# Threads warmed at start (the model's runtime sets up per thread, ~6 ms); the others do it on first use.
WARM_THREADS = 8
workers = int(os.environ.get("WEB_CONCURRENCY") or 1)
# The longest answer: up to MAX_TOOL_ROUNDS + 1 Claude calls, each up to ANTHROPIC_TIMEOUT per attempt over
# 1 + ANTHROPIC_MAX_RETRIES attempts, with the SDK's back-off (at most 8 s) between attempts.
_retries = _settings.anthropic_max_retries
_longest_call = _settings.anthropic_timeout * (_retries + 1) + 8 * _retries
_longest_answer = (_settings.max_tool_rounds + 1) * _longest_call
# For gthread workers `timeout` is a heartbeat, not a request limit: the worker's main loop tells the
# master it is alive every second while request threads wait on Claude, so it never cuts a slow answer
# (the SDK's timeout and retries bound those). It restarts a worker whose main loop is stuck (a deadlock,
# a C call holding the GIL). It stays above the longest answer so that `--worker-class sync`, where a
# busy request does stop the heartbeat, never kills an answer in progress either.
timeout = int(_longest_answer + 30)
# On a restart, requests in flight get this long to finish; a longer answer is cut.
graceful_timeout = 30
# Seconds an idle keep-alive connection stays open. gunicorn's default (2 s) closes connections that a proxy
# or a client pool keeps for reuse: a question posted on one as it closes is a connection reset, and a POST
# is never retried. Longer than the proxy's idle upstream timeout (deploy/nginx.conf, 60 s), so the proxy
# always closes first. An idle connection waits in the worker's poller, not in a thread.
keepalive = 75
# The embedding model loads lazily in each worker; a master that loaded it would hang forked workers.
preload_app = False
# Nothing here uses gunicornc; a control socket in $HOME would clash between two deployments on one host.
control_socket_disable = True
# The app logs one structured line per request (with its id, answer mode and tokens) instead of an access log.
accesslog = None
errorlog = "-"


def on_starting(server) -> None:
    """Warn when several worker processes would share one embedded ChromaDB folder."""
    if server.cfg.workers > 1 and not _settings.uses_chroma_server:
        server.log.warning(
            "%d workers on the embedded ChromaDB folder %s: embedded ChromaDB is built for one process "
            "(each worker reopens the folder after every write elsewhere, and concurrent writers can "
            "collide); set CHROMA_HOST (a `chroma run` server) or WEB_CONCURRENCY=1",
            server.cfg.workers,
            _settings.resolved_chroma_path,
        )


def post_worker_init(worker) -> None:
    """Warm each worker before it takes traffic (the master never does): the model, the index, one request."""
    app = worker.wsgi
    services = app.extensions["services"]
    services.warm_up()
    # One request through the whole stack, so the first visitor does not pay for its first-use costs either.
    with app.test_client() as client:
        client.get("/api/search", query_string={"q": "warm up", "k": 1})
    _warm_request_threads(worker, lambda question: services.index.search(question, k=1))
    release_free_memory()  # the warm-up freed more than it keeps
    # Operators (and the deployment tests) read from this line that every worker takes traffic.
    if services.warm:
        worker.log.info("Worker %s is warm and takes requests", worker.pid)
    else:
        worker.log.warning("Worker %s takes requests cold: its warm-up failed (see above)", worker.pid)


def _warm_request_threads(worker, search) -> None:
    """Search once in each of the worker's request threads: the model's runtime sets up per thread (~6 ms)."""
    pool = getattr(worker, "tpool", None)  # gthread workers build their thread pool before this hook
    if pool is None:
        return
    # Every task waits for all the others, so the pool starts that many threads, one task each.
    count = min(worker.cfg.threads, WARM_THREADS)
    barrier = threading.Barrier(count, timeout=30)

    def warm(number: int) -> None:
        barrier.wait()
        search(f"warm up request thread {number}")

    try:
        for task in [pool.submit(warm, number) for number in range(count)]:
            task.result(timeout=60)
    except Exception as exc:  # noqa: BLE001 - a slower first question is no reason to stop the worker
        worker.log.warning("warming the request threads failed: %s", exc)


def child_exit(server, worker) -> None:
    """Drop an exited worker's live gauges from the shared Prometheus folder, when metrics span workers."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# On a restart, answers a worker is still making get this long to finish (within graceful_timeout).
SETTLE_SECONDS = 20


def worker_exit(server, worker) -> None:
    """Let the answers this worker makes in the background finish; end the rest as interrupted."""
    from app.web.chat.run import settle

    settle(SETTLE_SECONDS)
