"""Load: concurrent users asking POST /api/query of gunicorn, with a fake model that takes 1 s per call.

Each user sends one question after another over fresh connections for a fixed time. Claude mode answers
through the real SDK from the fake Messages API (one call of MODEL_SECONDS); extractive mode searches and
quotes on the CPU. The ceiling for Claude mode is workers x threads answers per MODEL_SECONDS.
Then bench.stress checks the hardening promises under load (Redis, a ChromaDB server, 5 s model calls).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench import stress
from bench.cold_start import ROOT, app_env, flask_index, free_port, serve
from bench.index_search import DOCS, print_table

MODEL_SECONDS = 1.0
USERS = (50, 200)
SECONDS = 20
WORKERS = 2
THREADS = 96  # gunicorn.conf.py's threads per worker
TIMEOUT = 120


def ask(base: str, number: int) -> tuple[float, bool]:
    """One POST /api/query: its seconds and whether it answered 200 with an answer."""
    body = json.dumps({"query": f"How do fixtures share setup between tests? ({number})"}).encode()
    request = urllib.request.Request(
        f"{base}/api/query", data=body, headers={"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            ok = response.status == 200 and bool(json.loads(response.read()).get("answer"))
    except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
        ok = False
    return time.perf_counter() - started, ok


def run_users(base: str, users: int, seconds: float) -> dict[str, float]:
    """`users` threads asking until `seconds` pass; throughput, latency percentiles and errors."""
    latencies: list[float] = []
    in_window = 0  # answers finished before the deadline: the throughput, without the stragglers' tail
    errors = 0
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def user(index: int) -> None:
        nonlocal errors, in_window
        count = 0
        while time.perf_counter() < deadline:
            elapsed, ok = ask(base, index * 100_000 + count)
            count += 1
            with lock:
                if ok:
                    latencies.append(elapsed)
                    in_window += time.perf_counter() <= deadline
                else:
                    errors += 1

    threads = [threading.Thread(target=user, args=(n,), daemon=True) for n in range(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cuts = statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else [0.0] * 99
    return {
        "answers": len(latencies),
        "throughput": in_window / seconds,
        "p50": statistics.median(latencies) if latencies else 0.0,
        "p95": cuts[94],
        "p99": cuts[98],
        "errors": errors,
    }


def main() -> None:
    """One table row per mode and user count."""
    sys.path.insert(0, str(ROOT))  # tests.fake_claude is the scripted Messages API the tests use
    from tests.fake_claude import FakeClaude

    fake = FakeClaude(default_delay=MODEL_SECONDS).start()
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
            docs = Path(tmp) / "docs"
            shutil.copytree(DOCS, docs)
            base_env = app_env(
                docs, Path(tmp) / "instance", RATELIMIT_ENABLED="false", WEB_CONCURRENCY=str(WORKERS)
            )
            flask_index(base_env)
            modes = {
                "claude": {"ANTHROPIC_API_KEY": "bench-key", "ANTHROPIC_BASE_URL": fake.url},
                "extractive": {"ANTHROPIC_API_KEY": ""},
            }
            for mode, extra in modes.items():
                env = {**base_env, **extra, "PORT": str(free_port())}
                server = serve(env)
                try:
                    for users in USERS:
                        figures = run_users(f"http://127.0.0.1:{env['PORT']}", users, SECONDS)
                        ceiling = WORKERS * THREADS / MODEL_SECONDS if mode == "claude" else float("nan")
                        rows.append(
                            (
                                mode,
                                str(users),
                                f"{figures['answers']:.0f}",
                                f"{figures['throughput']:.1f}",
                                f"{figures['throughput'] / ceiling:.0%}" if mode == "claude" else "CPU-bound",
                                f"{figures['p50']:.2f}",
                                f"{figures['p95']:.2f}",
                                f"{figures['p99']:.2f}",
                                f"{figures['errors']:.0f}",
                            )
                        )
                finally:
                    server.terminate()
                    server.wait(timeout=30)
    finally:
        fake.stop()
    print_table(
        f"Load: POST /api/query for {SECONDS} s per row, {WORKERS} workers x {THREADS} threads, "
        f"fake model {MODEL_SECONDS:g} s per call",
        ("mode", "users", "answers", "answers/s", "of ceiling", "p50 s", "p95 s", "p99 s", "errors"),
        rows,
    )


if __name__ == "__main__":
    main()
    stress.main()
