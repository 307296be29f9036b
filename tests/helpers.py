"""Test helpers: real PDF and DOCX course files, embedder doubles, and an indexed library."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np


def make_pdf(path: Path, text: str) -> Path:
    """Write `text` as a PDF (fpdf2, core font), one line per line; characters outside latin-1 become '?'."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in text.replace("\r\n", "\n").split("\n"):
        # The core fonts only cover latin-1.
        safe = line.encode("latin-1", "replace").decode("latin-1")
        if safe.strip():
            pdf.multi_cell(0, 6, safe, new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.ln(6)
    path = Path(path)
    pdf.output(str(path))
    return path


def make_docx(path: Path, text: str) -> Path:
    """Write `text` as a Word document with one paragraph per line."""
    import docx

    document = docx.Document()
    for line in text.replace("\r\n", "\n").split("\n"):
        document.add_paragraph(line)
    path = Path(path)
    document.save(str(path))
    return path


# -- embedders ----------------------------------------------------------------------------------------


class CountingEmbedder:
    """Wrap an embedder and count what it is asked to embed: every text, and documents alone."""

    def __init__(self, inner):
        self.inner = inner
        self.texts = 0  # queries and documents
        self.documents = 0  # documents only

    @property
    def loaded(self) -> bool:
        """Whether the wrapped model is loaded."""
        return self.inner.loaded

    @property
    def fingerprint(self) -> str:
        """The wrapped model's."""
        return self.inner.fingerprint

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Count, then embed."""
        self.texts += len(texts)
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str):
        """Count, then embed."""
        self.texts += 1
        return self.inner.embed_query(text)

    def vocabulary(self) -> frozenset[str]:
        """The wrapped model's words."""
        return self.inner.vocabulary()


class FakeEmbedder:
    """Deterministic vectors without a model, for tests that need vectors but not meaning.

    Each word adds one to a dimension chosen by its hash, so equal texts get equal vectors and texts that
    share words are closer; a text without words gets the first unit vector. The dimension differs from the
    real model's (384) unless asked, as another embedding model's would.
    """

    loaded = True

    def __init__(self, dimension: int = 8):
        self.dimension = dimension
        self.fingerprint = f"fake {dimension}"

    def embed_query(self, text: str) -> np.ndarray:
        """One text's unit-length vector."""
        vector = np.zeros(self.dimension, dtype=np.float32)
        for word in text.lower().split():
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        if not vector.any():
            vector[0] = 1.0
        vector /= np.linalg.norm(vector)
        vector.flags.writeable = False
        return vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text."""
        return [self.embed_query(text).tolist() for text in texts]

    def vocabulary(self) -> frozenset[str]:
        """No words: a fake model knows none."""
        return frozenset()


# -- an indexed library -------------------------------------------------------------------------------


def course_text(title: str, *lessons: str) -> str:
    """A TXT course document with one lesson per text."""
    return titled_course_text(title, *((f"Part {number}", text) for number, text in enumerate(lessons, 1)))


def titled_course_text(title: str, *lessons: tuple[str, str]) -> str:
    """A TXT course document with one lesson per (title, text)."""
    lines = [f"Course Title: {title}", "Course Instructor: Test Person"]
    for number, (name, text) in enumerate(lessons, start=1):
        lines += [f"Lesson {number}: {name}", f"Lesson Link: https://example.com/{number}", text]
    return "\n".join(lines) + "\n"


def library_settings(root: Path, **overrides):
    """Settings whose docs (root/docs), instance folder and index (root/instance) live under `root`."""
    from app.config import load_settings

    return load_settings({"docs_dir": root / "docs", "instance_path": root / "instance", **overrides})


class Library:
    """A docs folder, an index and an indexer under one folder: the one way tests build an indexed library."""

    def __init__(self, root: Path, courses: Path | None = None, embedder=None, **overrides):
        from app.library.sync import Indexer
        from app.search.index import CourseIndex

        self.docs = root / "docs"
        if courses is not None:
            shutil.copytree(courses, self.docs)
        self.docs.mkdir(parents=True, exist_ok=True)
        self.settings = library_settings(root, **overrides)
        self.index = CourseIndex(self.settings, embedder=embedder)
        self.indexer = Indexer(self.settings, self.index)

    @classmethod
    def indexed(cls, root: Path, courses: Path, **overrides) -> Library:
        """A library of the given course files, synced once; fails when any file did not index."""
        return cls(root, courses, **overrides).synced()

    def synced(self) -> Library:
        """This library after one sync; fails when any file did not index."""
        report = self.indexer.sync()
        assert not report.problems, report.problems
        return self

    def answerer(self):
        """An extractive answerer over this library's index."""
        from app.assistant.extractive import ExtractiveAnswerer
        from app.assistant.tools import ToolBox

        return ExtractiveAnswerer(ToolBox(self.index), self.index.embedder)

    @classmethod
    def answerer_over(cls, root: Path, title: str, *lessons: str):
        """An extractive answerer over one course of made-up lessons, synced; fails when it did not index."""
        library = cls(root)
        library.write("course.txt", title, *lessons)
        return library.synced().answerer()

    def write(self, name: str, title: str, *lessons: str) -> Path:
        """Write a course file into the docs folder."""
        path = self.docs / name
        path.write_text(course_text(title, *lessons))
        return path

    @staticmethod
    def statuses(report) -> dict[str, str]:
        """File name -> status of a sync report."""
        return {result.file: result.status for result in report.results}

    def texts(self, query: str, course: str | None = None) -> list[str]:
        """Texts of every passage the search returns."""
        return [passage.text for passage in self.index.search(query, course=course, k=50)]
