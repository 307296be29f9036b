"""Hardening under load: gunicorn with two workers, Redis, a ChromaDB server and a fake model at 5 s a call.

Run from this (second) process over loopback, each row checks one promise of the security section:
- a stream read once, then replayed 30 times, produces 1 model answer (the stream is claimed once);
- one client with 50 open slow streams leaves /healthz and another client's page under 200 ms p95;
- a worker holds at least 64 concurrent streamed answers;
- 20,000 requests with random method names leave each worker's memory within 5 MB.
Clients are told apart by X-Forwarded-For (TRUSTED_PROXIES=1, as behind the compose file's nginx).
"""

from __future__ import annotations

import http.client
import json
import random
import re
import shutil
import statistics
import string
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.cold_start import ROOT, app_env, flask_index, free_port, serve
from bench.index_search import DOCS, print_table

MODEL_SECONDS = 5.0
WORKERS = 2
REPLAYS = 30
HOG_STREAMS = 50
PROBE_SECONDS = 10.0
CONCURRENT_ANSWERS = 150  # spread over both workers: at least 64 each when a worker holds 64+
RANDOM_METHODS = 20_000
WARM_METHODS = 2_000


def request(
    port: int, method: str, path: str, client: str, body: dict | None = None, headers: dict | None = None
) -> tuple[int, str, dict[str, str]]:
    """One request over a fresh connection, as `client` (its forwarded address): status, body, headers."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"X-Forwarded-For": client, **({"Content-Type": "application/json"} if data else {})}
        connection.request(method, path, body=data, headers={**sent, **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace"), dict(response.getheaders())
    finally:
        connection.close()


def p95(samples: list[float]) -> float:
    """The 95th percentile."""
    return statistics.quantiles(samples, n=20, method="inclusive")[18] if len(samples) > 1 else samples[0]


def replays(port: int, fake) -> tuple[str, ...]:
    """Ask once with htmx and read the answer; then fetch its stream URL 30 times with no cookie."""
    # The form post needs a CSRF token: take it (and the cookie) from the page first.
    status, page, headers = request(port, "GET", "/", "10.9.0.1")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]  # type: ignore[index]
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    form = f"question=How+do+fixtures+work%3F&csrf_token={token}"
    connection.request(
        "POST",
        "/ask",
        body=form,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "Cookie": cookie,
            "X-Forwarded-For": "10.9.0.1",
        },
    )
    response = connection.getresponse()
    html = response.read().decode()
    # The ask may update the session cookie (the asking browser's identity): read the stream with the newest.
    cookie = (response.getheader("Set-Cookie") or cookie).split(";")[0]
    connection.close()
    url = re.search(r'sse-connect="([^"]+)"', html)[1].replace("&amp;", "&")  # type: ignore[index]
    before = fake.calls
    # The asking browser reads its answer (one model answer); then 30 replays without its cookie.
    request(port, "GET", url, "10.9.0.1", headers={"Cookie": cookie})
    with ThreadPoolExecutor(REPLAYS) as pool:
        list(pool.map(lambda n: request(port, "GET", url, f"10.9.1.{n + 1}"), range(REPLAYS)))
    answers = fake.calls - before
    return (
        f"1 stream + {REPLAYS} replays of its URL",
        f"{answers} model answers",
        "1",
        _verdict(answers == 1),
    )


def hog(port: int) -> tuple[tuple[str, ...], ...]:
    """One client keeps 50 slow streams open; /healthz and another client's page are timed meanwhile."""
    stop = threading.Event()
    refused = answered = 0
    lock = threading.Lock()

    def stream_forever() -> None:
        nonlocal refused, answered
        while not stop.is_set():
            status, _, _ = request(port, "POST", "/api/query", "10.1.0.1", {"query": "Slow?", "stream": True})
            with lock:
                refused += status == 429
                answered += status == 200
            if status == 429:
                stop.wait(0.2)

    threads = [threading.Thread(target=stream_forever, daemon=True) for _ in range(HOG_STREAMS)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # let the streams take their threads
    health = _probe(lambda: request(port, "GET", "/healthz", "10.2.0.1"))
    pages = _probe(lambda: request(port, "GET", "/", "10.2.0.2"))
    stop.set()
    for thread in threads:
        thread.join(timeout=MODEL_SECONDS * 3)
    hogging = f"1 client, {HOG_STREAMS} open slow streams ({refused} tries refused 429)"
    return (
        (f"{hogging}: /healthz", f"p95 {p95(health) * 1000:.0f} ms", "< 200 ms", _verdict(p95(health) < 0.2)),
        (
            f"{hogging}: other client's page",
            f"p95 {p95(pages) * 1000:.0f} ms",
            "< 200 ms",
            _verdict(p95(pages) < 0.2),
        ),
    )


def _probe(call: Callable[[], tuple[int, str, dict[str, str]]]) -> list[float]:
    """Time `call` every 50 ms for half of PROBE_SECONDS; each must answer 200."""
    samples: list[float] = []
    deadline = time.monotonic() + PROBE_SECONDS / 2
    while time.monotonic() < deadline:
        started = time.perf_counter()
        status, _, _ = call()
        samples.append(time.perf_counter() - started)
        assert status == 200, status
        time.sleep(0.05)
    return samples


def concurrent_answers(port: int, fake) -> tuple[str, ...]:
    """150 clients stream one answer each at once: the most model calls in progress together."""
    fake.max_in_flight = 0

    def one(number: int) -> bool:
        status, body, _ = request(
            port,
            "POST",
            "/api/query",
            f"10.3.{number // 250}.{number % 250 + 1}",
            {"query": "Hi?", "stream": True},
        )
        return status == 200 and "event: done" in body

    started = time.perf_counter()
    with ThreadPoolExecutor(CONCURRENT_ANSWERS) as pool:
        done = sum(pool.map(one, range(CONCURRENT_ANSWERS)))
    seconds = time.perf_counter() - started
    per_worker = fake.max_in_flight / WORKERS
    figure = f"{fake.max_in_flight} at once ({per_worker:.0f}/worker)"
    figure += f", {done}/{CONCURRENT_ANSWERS} in {seconds:.1f} s"
    return (
        "concurrent streamed answers, 5 s per call",
        figure,
        ">= 64 per worker",
        _verdict(per_worker >= 64),
    )


def random_methods(port: int, master: int) -> tuple[str, ...]:
    """20,000 requests with random method names: the largest growth of a worker's resident memory."""
    rng = random.Random(17)

    def flood(count: int) -> None:
        def batch(seed: int) -> None:
            local = random.Random(seed)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for _ in range(count // 8):
                method = "".join(local.choice(string.ascii_uppercase) for _ in range(10))
                try:
                    connection.request(method, "/healthz", headers={"X-Forwarded-For": "10.4.0.1"})
                    connection.getresponse().read()
                except (http.client.HTTPException, OSError):
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.close()

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(batch, [rng.randrange(1 << 30) for _ in range(8)]))

    flood(WARM_METHODS)
    before = workers_rss_mb(master)
    flood(RANDOM_METHODS)
    after = workers_rss_mb(master)
    growth = max(after.get(pid, 0.0) - mb for pid, mb in before.items())
    return (
        f"{RANDOM_METHODS:,} random methods",
        f"+{growth:.1f} MB worst worker",
        "<= 5 MB",
        _verdict(growth <= 5),
    )


def workers_rss_mb(master: int) -> dict[int, float]:
    """Resident memory of each of the master's workers, in MB (Linux /proc)."""
    sizes = {}
    for child in Path(f"/proc/{master}/task/{master}/children").read_text().split():
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes[int(child)] = int(line.split()[1]) / 1024
    return sizes


def _verdict(ok: bool) -> str:
    """The last column."""
    return "ok" if ok else "FAILS"


def main() -> None:
    """Start Redis, ChromaDB, the fake model and gunicorn (two workers); print one row per promise."""
    import sys

    sys.path.insert(0, str(ROOT))  # tests.* are the fake Messages API and the server helpers the tests use
    from tests.fake_claude import FakeClaude
    from tests.servers import ChromaServer, RedisServer

    rows: list[tuple[str, ...]] = []
    fake = FakeClaude(default_delay=MODEL_SECONDS).start()
    with tempfile.TemporaryDirectory(prefix="bench-stress-") as tmp:
        root = Path(tmp)
        redis = RedisServer(root / "redis", root / "redis-logs")
        chroma = ChromaServer(root / "chroma", root / "chroma-logs")
        try:
            redis.wait_until(redis.ping, "redis-server answering PING")
            chroma.wait_ready()
            docs = root / "docs"
            shutil.copytree(DOCS, docs)
            port = free_port()
            env = app_env(
                docs,
                root / "instance",
                PORT=str(port),
                WEB_CONCURRENCY=str(WORKERS),
                CHROMA_HOST="127.0.0.1",
                CHROMA_PORT=str(chroma.port),
                RATELIMIT_STORAGE_URI=redis.url,
                RATELIMIT_ASK="100000 per minute",
                TRUSTED_PROXIES="1",
                ANTHROPIC_API_KEY="bench-key",
                ANTHROPIC_BASE_URL=fake.url,
                ANTHROPIC_MAX_RETRIES="0",
            )
            flask_index(env)
            server = serve(env)
            try:
                idle = workers_rss_mb(server.pid)
                rows.append(replays(port, fake))
                rows.extend(hog(port))
                rows.append(concurrent_answers(port, fake))
                busy = workers_rss_mb(server.pid)
                rows.append(random_methods(port, server.pid))
                rows.append(
                    (
                        "worker memory (96 threads)",
                        f"{max(idle.values()):.0f} MB idle, {max(busy.values()):.0f} MB after the answers",
                        "",
                        "",
                    )
                )
            finally:
                server.terminate()
                server.wait(timeout=30)
        finally:
            chroma.stop()
            redis.stop()
            fake.stop()
    print_table(
        f"Hardening: gunicorn {WORKERS} workers, Redis, ChromaDB server, model {MODEL_SECONDS:g} s per call",
        ("scenario", "measured", "promise", "result"),
        rows,
    )


if __name__ == "__main__":
    main()
