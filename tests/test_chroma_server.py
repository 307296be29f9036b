"""Scale-out: apps on different "hosts" share one `chroma run` server; a server gone is a clear 503."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.errors import ServiceUnavailable
from tests.conftest import TEST_COURSES, make_config
from tests.servers import start_chroma

pytestmark = pytest.mark.slow


@pytest.fixture
def chroma_server(tmp_path):
    """A running ChromaDB server, stopped after the test."""
    server = start_chroma(tmp_path)
    try:
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
