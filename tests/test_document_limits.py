"""Files placed directly in DOCS_DIR have a size limit (MAX_DOCUMENT_MB) and a bound on their chunks."""

from __future__ import annotations

from app.library import limits
from tests.helpers import FakeEmbedder, Library, course_text


def test_a_file_over_max_document_mb_is_refused_at_sync_with_the_reason(tmp_path):
    lib = Library(tmp_path, embedder=FakeEmbedder(), max_document_mb=0.01)
    lib.write("small.txt", "Small Course", "A short lesson.")
    big = lib.docs / "big.txt"
    big.write_text(course_text("Big Course", "x" * 20_000))

    report = lib.indexer.sync()

    assert lib.statuses(report) == {"small.txt": "added", "big.txt": "failed"}
    [failed] = [result for result in report.results if result.file == "big.txt"]
    assert "MAX_DOCUMENT_MB" in failed.error and "0.01 MB" in failed.error
    assert [record.title for record in lib.index.courses()] == ["Small Course"]


def test_a_one_line_document_cannot_become_unbounded_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_CHUNKS_PER_DOCUMENT", 5)
    embedder = FakeEmbedder()
    lib = Library(tmp_path, embedder=embedder)
    lib.docs.joinpath("one_line.txt").write_text(course_text("One Line", "word " * 2000))

    report = lib.indexer.sync()

    [result] = report.results
    assert result.status == "failed" and "more than the 5 one course may have" in result.error
    assert lib.index.courses() == []


def test_the_setting_is_documented_in_the_readme_and_env_example():
    from pathlib import Path

    root = Path(__file__).parents[1]
    assert "`MAX_DOCUMENT_MB`" in (root / "README.md").read_text()
    assert "# MAX_DOCUMENT_MB=" in (root / ".env.example").read_text()
