"""The embedded index catches up with writes made by another process (a `flask index` beside a live app)."""

from __future__ import annotations

import pytest

from app.library.state import StatePaths
from tests.servers import flask_command

OLD_PHRASE = "sentence-aware chunking"
NEW_PHRASE = "tidal chunk weaving"


def texts(passages) -> str:
    """All passage texts, joined, for phrase checks."""
    return " ".join(passage.text for passage in passages)


@pytest.mark.slow
def test_a_live_app_sees_a_sync_made_by_another_process(tmp_path, make_app, docs_dir):
    index = make_app().extensions["services"].index
    assert OLD_PHRASE in texts(index.search(OLD_PHRASE, course="rag"))
    rag = docs_dir / "rag_in_practice.txt"
    rag.write_text(rag.read_text().replace(OLD_PHRASE, NEW_PHRASE))

    result = flask_command(tmp_path, docs_dir, "index")

    assert result.returncode == 0, result.stderr
    assert "1 updated" in result.stdout
    # Without catching up, the live client would still rank the deleted chunks and fail to fetch them.
    found = texts(index.search(NEW_PHRASE, course="rag"))
    assert NEW_PHRASE in found and OLD_PHRASE not in found
    assert OLD_PHRASE not in texts(index.search(OLD_PHRASE, course="rag", k=10))


def test_writes_in_this_process_announce_themselves_without_reopening(app):
    index = app.extensions["services"].index
    store = index.store
    index.search("anything")
    client = store._client
    stamp_file = StatePaths.of(app.extensions["services"].settings).index_stamp
    before = stamp_file.read_text() if stamp_file.exists() else ""

    index.remove_course("python-testing-with-pytest")

    assert stamp_file.read_text() != before
    index.search("fixtures")
    assert store._client is client  # our own write needs no reopen


def test_a_stamp_from_another_writer_makes_the_next_call_reopen(app):
    index = app.extensions["services"].index
    store = index.store
    index.search("anything")
    client = store._client
    StatePaths.of(app.extensions["services"].settings).index_stamp.write_text("another-process")

    assert index.search("hierarchical navigable small world")
    assert store._client is not client
