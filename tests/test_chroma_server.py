"""Scale-out: apps on different "hosts" share one `chroma run` server; a server gone is a clear 503."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app.errors import ServiceUnavailable
from tests.conftest import TEST_COURSES, make_config

pytestmark = pytest.mark.slow

CHROMA = Path(sys.executable).parent / "chroma"
STARTUP_SECONDS = 60


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def heartbeat(port: int) -> bool:
    """True when the ChromaDB server on `port` answers its heartbeat."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


class ChromaServer:
    """A `chroma run` process on a free loopback port, with its data in a temp folder."""

    def __init__(self, data: Path, log: Path):
        self.port = free_port()
        self.log = log
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(
            [str(CHROMA), "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )

    def wait_ready(self) -> None:
        """Poll the heartbeat until it answers; fail with the log if the server dies or takes too long."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while not heartbeat(self.port):
            try:
                # Waiting on the process doubles as the pause between polls and notices an early exit.
                self.process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    pytest.fail(f"chroma run did not answer within {STARTUP_SECONDS} s:\n{self.output()}")
            else:
                pytest.fail(f"chroma run exited with {self.process.returncode}:\n{self.output()}")

    def stop(self) -> None:
        """Terminate the server and wait for it to exit."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log_file.close()

    def output(self) -> str:
        """The server's log so far."""
        self._log_file.flush()
        return self.log.read_text(errors="replace")[-3000:]


@pytest.fixture
def chroma_server(tmp_path):
    """A running ChromaDB server, stopped after the test."""
    if not CHROMA.exists():
        pytest.fail(f"{CHROMA} is missing: the chromadb package installs it")
    server = ChromaServer(tmp_path / "server-data", tmp_path / "chroma.log")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def server_app(root: Path, docs: Path, port: int):
    """An app (a worker on some host) with its own instance folder, using the ChromaDB server."""
    from app import create_app

    app = create_app(make_config(root, docs, CHROMA_HOST="127.0.0.1", CHROMA_PORT=port))
    app.config["TESTING"] = True
    return app


def test_workers_on_different_hosts_share_one_chroma_server(tmp_path, chroma_server):
    docs = tmp_path / "docs"
    shutil.copytree(TEST_COURSES, docs)
    writer = server_app(tmp_path / "host-a", docs, chroma_server.port)
    report = writer.extensions["services"].indexer.sync()
    assert report.count("added") == 3 and not report.problems
    assert "127.0.0.1" in writer.extensions["services"].index.location

    # A second app, built separately and sharing no folder with the first, sees what the first wrote.
    reader = server_app(tmp_path / "host-b", docs, chroma_server.port)
    index = reader.extensions["services"].index
    assert [course.title for course in index.courses()] == [
        "Python Testing with Pytest",
        "Retrieval-Augmented Generation in Practice",
        "Vector Databases from Scratch",
    ]
    passages = index.search("nearest neighbour search over embeddings", course="vector databases")
    assert passages and {p.course_title for p in passages} == {"Vector Databases from Scratch"}
    client = reader.test_client()
    assert client.get("/readyz").status_code == 200
    assert len(client.get("/api/courses").get_json()["course_titles"]) == 3
    assert not (tmp_path / "host-b" / "instance" / "chroma").exists(), "CHROMA_HOST set: no embedded folder"

    chroma_server.stop()

    with pytest.raises(ServiceUnavailable) as caught:
        index.ping()
    assert f"ChromaDB server 127.0.0.1:{chroma_server.port}" in caught.value.detail
    response = client.get("/readyz")
    assert response.status_code == 503
