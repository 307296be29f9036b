"""A worker imports only what its deployment uses: no model SDK without a key, no embedded ChromaDB engine
beside a ChromaDB server, no gRPC without an OpenTelemetry collector. Each app runs in a fresh process, whose
modules are then read."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, make_config
from tests.servers import start_chroma

# Create the app from the JSON settings in argv[1], answer one question, print which of argv[2:] are loaded.
PROBE = """
import json, sys
from app import create_app
app = create_app(json.loads(sys.argv[1]))
response = app.test_client().post("/api/query", json={"query": "What does a fixture give a test?"})
assert response.status_code == 200, response.get_data(as_text=True)
assert response.get_json()["answer"], "the question was answered"
print(json.dumps(sorted(name for name in sys.argv[2:] if name in sys.modules)))
"""
WATCHED = ("anthropic", "chromadb_rust_bindings", "grpc", "onnxruntime", "openai")


def loaded_after_one_answer(config: dict) -> list[str]:
    """Which WATCHED modules a fresh process holds after its app answered one question."""
    run = [sys.executable, "-c", PROBE, json.dumps(config), *WATCHED]
    result = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_extractive_answers_never_import_the_anthropic_sdk(tmp_path, make_app, docs_dir):
    loaded = loaded_after_one_answer(make_config(tmp_path, docs_dir))
    assert not {"anthropic", "openai", "grpc"} & set(loaded)
    assert "onnxruntime" in loaded  # the answer did embed: the probe sees what the process imported


def test_claude_answers_import_the_sdk(tmp_path, make_app, docs_dir, fake_claude):
    fake_claude.enqueue_text("A fixture gives a test what it needs [1].")
    config = make_config(tmp_path, docs_dir, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url)
    assert "anthropic" in loaded_after_one_answer(config)


@pytest.mark.slow
def test_a_worker_on_a_chromadb_server_never_loads_the_embedded_engine(tmp_path, make_app, docs_dir):
    from app import create_app

    server = start_chroma(tmp_path)
    try:
        config = make_config(tmp_path, docs_dir, CHROMA_HOST="127.0.0.1", CHROMA_PORT=server.port)
        report = create_app(config).extensions["services"].indexer.sync()
        assert not report.problems
        loaded = loaded_after_one_answer(config)
    finally:
        server.stop()
    assert "chromadb_rust_bindings" not in loaded and "grpc" not in loaded
    assert "onnxruntime" in loaded


def test_chromadb_still_builds_its_grpc_trace_exporter_when_a_collector_is_configured():
    code = (
        "import sys\n"
        "from app.search.store import ChromaStore\n"
        "from chromadb.telemetry.opentelemetry import OTLPSpanExporter\n"
        "print('grpc' in sys.modules)\n"
        "exporter = OTLPSpanExporter(endpoint='http://127.0.0.1:4317', insecure=True)\n"
        "print('grpc' in sys.modules, type(exporter).__module__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["False", "True", "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"]
