"""Cold start: gunicorn from launch to ready, then its first search against warm ones, and its memory.

Indexes the sample library into a temp instance folder first (not timed), then starts one worker and polls
/readyz; the worker warms itself (post_worker_init) before it takes traffic.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from bench.index_search import DOCS, print_table

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WARM_SEARCHES = 30
STARTS = 7
QUERY = "How do vector databases find nearest neighbours quickly?"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def app_env(docs: Path, instance: Path, **extra: str) -> dict[str, str]:
    """An app process's environment on `docs` and `instance`: no .env read, extractive unless `extra` says."""
    env = {
        **os.environ,
        "DOCS_DIR": str(docs),
        "INSTANCE_PATH": str(instance),
        "SECRET_KEY": "bench",
        "COURSE_ASSISTANT_ENV_FILE": "",
        "FLASK_SKIP_DOTENV": "1",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("BIND", None)  # gunicorn.conf.py prefers BIND to PORT
    return {**env, **extra}


def flask_index(env: dict[str, str], root: Path = ROOT) -> None:
    """Prepare an app as `make run` does, each step in its own process (not timed): migrate the database,
    then index the docs of `env`; `root` is the checkout whose code runs."""
    for command in (["db", "upgrade"], ["index"]):
        subprocess.run(
            [str(BIN / "flask"), "--app", "wsgi", *command],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
        )


def status_of(url: str) -> int:
    """The HTTP status of GET `url` (0 when nothing answers)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, ConnectionError):
        return 0


def search_ms(base: str, attempt: int) -> float:
    """One /api/search over a fresh connection, in ms (the attempt number makes each query string unique)."""
    query = urllib.parse.urlencode({"q": f"{QUERY} ({attempt})"})
    started = time.perf_counter()
    assert status_of(f"{base}/api/search?{query}") == 200
    return (time.perf_counter() - started) * 1000


def worker_rss_mb(master: int) -> float:
    """Resident memory of the master's first worker, in MB (Linux /proc)."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    for line in Path(f"/proc/{children[0]}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve(env: dict[str, str], root: Path = ROOT) -> subprocess.Popen:
    """Start `gunicorn -c gunicorn.conf.py wsgi:app` of the checkout `root` with `env` and wait until its
    /readyz answers 200."""
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "wsgi:app"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{env['PORT']}"
    deadline = time.monotonic() + 120
    while status_of(f"{base}/readyz") != 200:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise SystemExit("gunicorn did not become ready")
        time.sleep(0.05)
    return server


def one_start(docs: Path, instance: Path, **extra: str) -> tuple[float, float, list[float], float]:
    """Start gunicorn once: seconds to ready, the first search's ms, later searches' ms, the worker's MB."""
    port = free_port()
    env = app_env(docs, instance, PORT=str(port), WEB_CONCURRENCY="1", **extra)
    if not instance.exists():
        flask_index(env)
    base = f"http://127.0.0.1:{port}"
    launched = time.perf_counter()
    server = serve(env)
    try:
        ready = time.perf_counter() - launched
        first = search_ms(base, 0)
        warm = [search_ms(base, attempt) for attempt in range(1, WARM_SEARCHES + 1)]
        return ready, first, warm, worker_rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


@contextlib.contextmanager
def chroma_server(folder: Path) -> Iterator[dict[str, str]]:
    """A `chroma run` server on a free loopback port, storing in `folder`; the settings that point at it."""
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "chroma"), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while status_of(f"http://127.0.0.1:{port}/api/v2/heartbeat") != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("chroma run did not start")
            time.sleep(0.1)
        yield {"CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": str(port)}
    finally:
        server.terminate()
        server.wait(timeout=30)


def medians(runs: list[tuple[float, float, list[float], float]]) -> tuple[str, ...]:
    """One table row from several starts: medians of ready time, first and warm searches, and memory."""
    ready = statistics.median(run[0] for run in runs)
    first = statistics.median(run[1] for run in runs)
    warm = statistics.median(ms for run in runs for ms in run[2])
    rss = statistics.median(run[3] for run in runs)
    return f"{ready:.1f}", f"{first:.1f}", f"{warm:.1f}", f"{first / warm:.2f}x", f"{rss:.0f}"


def main() -> None:
    """Print launch-to-ready time, the first search against warm ones, and the worker's memory (medians).

    Twice: on the embedded ChromaDB folder (one worker, the default), and on a `chroma run` server, the
    production layout, where a worker holds no index of its own.
    """
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        docs = Path(tmp) / "docs"
        shutil.copytree(DOCS, docs)
        runs = [one_start(docs, Path(tmp) / "instance") for _ in range(STARTS)]
        rows.append(("embedded folder", *medians(runs)))
        with chroma_server(Path(tmp) / "chroma-server") as server:
            runs = [one_start(docs, Path(tmp) / "instance-server", **server) for _ in range(STARTS)]
        rows.append(("chroma server", *medians(runs)))
    print_table(
        f"Cold start: gunicorn launch to /readyz 200, then /api/search (medians of {STARTS} starts)",
        (
            "index",
            "launch to ready s",
            "first search ms",
            "warm search p50 ms",
            "first / warm",
            "worker RSS MB",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
