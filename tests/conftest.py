"""Shared fixtures: a small course library indexed once, per-test apps on a copy of it, fake model APIs."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Offline and hermetic: no hub downloads, no telemetry, no real API key from the caller's shell.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


def _isolate_from_the_developer() -> None:
    """Drop every setting the caller's shell may carry and read no .env, in this process and its children."""
    from app.config import ENV_FILE_VARIABLE, Settings

    names = {name.upper() for name in Settings.model_fields} | {"PORT", "BIND", "WEB_CONCURRENCY"}
    for name in list(os.environ):
        if name.upper() in names or name.upper().startswith(("ANTHROPIC_", "RATELIMIT_")):
            del os.environ[name]
    os.environ[ENV_FILE_VARIABLE] = ""
    # The `flask` command loads .env into the environment by itself; the CLI tests run it.
    os.environ["FLASK_SKIP_DOTENV"] = "1"


_isolate_from_the_developer()

ROOT = Path(__file__).resolve().parent.parent
TEST_COURSES = Path(__file__).resolve().parent / "data" / "courses"
SAMPLE_DOCS = ROOT / "docs"


def make_config(tmp: Path, docs_dir: Path, **overrides) -> dict:
    """Settings for an app whose instance folder, index and docs live under `tmp`."""
    config = {
        "SECRET_KEY": "test-secret-key",
        "INSTANCE_PATH": str(tmp / "instance"),
        "CHROMA_PATH": str(tmp / "instance" / "chroma"),
        "DOCS_DIR": str(docs_dir),
        "ANTHROPIC_API_KEY": None,
        "ADMIN_PASSWORD": None,
        "RATELIMIT_ENABLED": False,
    }
    config.update(overrides)
    return config


@pytest.fixture(scope="session")
def library(tmp_path_factory) -> Path:
    """The test courses, copied and indexed once per session; tests work on copies of this folder."""
    from tests.helpers import Library

    root = tmp_path_factory.mktemp("library")
    library = Library.indexed(root, TEST_COURSES)
    # The embedded database, migrated once; each app gets a copy, as `make run` would have migrated it.
    from app.store.store import Store

    store = Store.from_settings(library.settings)
    store.upgrade()
    store.close()
    return root


@pytest.fixture
def docs_dir(tmp_path, library) -> Path:
    """A private copy of the indexed test library's documents."""
    target = tmp_path / "docs"
    shutil.copytree(library / "docs", target)
    return target


@pytest.fixture
def make_app(tmp_path, library, docs_dir):
    """Build an app over a private copy of the indexed library, with extra settings."""
    shutil.copytree(library / "instance" / "chroma", tmp_path / "instance" / "chroma")
    for database in (library / "instance").glob("*.sqlite3"):  # the migrated embedded database
        shutil.copy(database, tmp_path / "instance" / database.name)
    from app import create_app

    def build(**overrides):
        app = create_app(make_config(tmp_path, docs_dir, **overrides))
        app.config["TESTING"] = True
        return app

    return build


@pytest.fixture
def app(make_app):
    """An app in extractive mode over the indexed test library, CSRF off for plain view tests."""
    app = make_app()
    app.config["WTF_CSRF_ENABLED"] = False
    return app


@pytest.fixture
def client(app):
    """A Flask test client."""
    return app.test_client()


@pytest.fixture
def runner(app):
    """A Flask CLI runner."""
    return app.test_cli_runner()


@pytest.fixture
def services(app):
    """The app's service layer (index, indexer, assistant)."""
    return app.extensions["services"]


@pytest.fixture
def fake_claude():
    """A scripted Messages API on 127.0.0.1 that the real anthropic SDK talks to."""
    from tests.fake_claude import FakeClaude

    with FakeClaude() as server:
        yield server


@pytest.fixture
def claude_app(make_app, fake_claude):
    """An app in Claude mode, its SDK pointed at the fake Messages API."""
    app = make_app(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_claude.url)
    app.config["WTF_CSRF_ENABLED"] = False
    return app


@pytest.fixture(scope="session")
def scorer():
    """A sentence scorer of the extractive answer on the real embedding model."""
    from app.assistant.extractive.scoring import SentenceScorer
    from app.search.embedding import get_embedder

    return SentenceScorer(get_embedder())


def openai_config(base_url: str, model: str = "llama-test", **overrides) -> dict:
    """Settings of an app answering with the OpenAI-compatible `model` at `base_url`, without SDK retries."""
    return {
        "MODEL_PROVIDER": "openai",
        "OPENAI_BASE_URL": base_url,
        "OPENAI_MODEL": model,
        "OPENAI_MAX_RETRIES": 0,
        **overrides,
    }


@pytest.fixture
def fake_openai():
    """A scripted OpenAI-compatible chat completions API on 127.0.0.1 that the real openai SDK talks to."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def openai_app(make_app, fake_openai):
    """An app answering with an OpenAI-compatible model (tool calling on), pointed at the fake endpoint."""
    app = make_app(**openai_config(fake_openai.url, OPENAI_TOOLS="on"))
    app.config["WTF_CSRF_ENABLED"] = False
    return app
