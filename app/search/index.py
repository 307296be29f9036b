"""CourseIndex: the course catalog and lesson chunks in ChromaDB, searched with our own embeddings.

A thin facade over the parts that do the work (see ARCHITECTURE.md, "Index"): `IndexWriter` (versioned,
crash-safe writes), `CourseResolver` (course names), `Searcher` (hybrid search), all over one `ChromaStore`
and one `CatalogCache`, whose `CatalogSnapshot` each search takes once and passes on.
"""

from __future__ import annotations

import copy

from app.config import Settings
from app.courses.models import Chunk, Course
from app.errors import LessonNotFound
from app.search.catalog import CatalogCache, CatalogEntry, CatalogSnapshot, catalog_entries
from app.search.embedding import Embedder, get_embedder
from app.search.explain import RankedPassage, explain_ranking
from app.search.models import CourseRecord, Outline, Passage
from app.search.resolver import CourseResolver, mentioned_course
from app.search.searcher import Searcher, SearchRequest, passage
from app.search.store import CATALOG, CONTENT, ChromaStore
from app.search.writer import IndexWriter, OnChunks


def _lesson_list(numbers: list[int]) -> str:
    """Describe lesson numbers briefly: "1–4" when consecutive, else "0, 2, 5"."""
    if not numbers:
        return "none"
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"{numbers[0]}–{numbers[-1]}"
    return ", ".join(str(number) for number in numbers)


def _no_lesson(lesson: int, record: CourseRecord | None) -> LessonNotFound:
    """The LessonNotFound for a lesson number, listing the lessons the course has."""
    if record is None:
        return LessonNotFound(f"No course has a lesson {lesson}.")
    numbers = sorted(info.number for info in record.lessons)
    return LessonNotFound(f"{record.title} has no lesson {lesson}; its lessons are {_lesson_list(numbers)}.")


class CourseIndex:
    """The course catalog and content in ChromaDB: upsert, remove, resolve, search, outline."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None):
        self.settings = settings
        embedder = embedder or get_embedder(settings.embedding_model, settings.embedding_cache_dir)
        self.store = ChromaStore(settings)
        self.catalog = CatalogCache(self._read_catalog, self.store.change_stamp)
        self.writer = IndexWriter(settings, self.store, self.catalog, embedder)
        self.resolver = CourseResolver(self.store, embedder)
        self.searcher = Searcher(settings, self.store, embedder)
        # The course ids this view may read (a course space's); None: every course.
        self.bounds: frozenset[str] | None = None

    def within(self, courses: frozenset[str] | None) -> CourseIndex:
        """A view of this index that reads only these course ids (None: all), sharing every part and cache.

        Listing, resolving a name, outlines and search all start from `entries()`, so a course outside the
        view is never resolved, listed or searched: its chunks are filtered out inside the index query.
        """
        if courses is None and self.bounds is None:
            return self
        view = copy.copy(self)
        view.bounds = courses
        return view

    def entries(self, library: CatalogSnapshot | None = None) -> list[CatalogEntry]:
        """The catalog entries this view may read, sorted by title."""
        entries = (library or self.catalog.snapshot()).entries
        bounds = self.bounds
        return entries if bounds is None else [entry for entry in entries if entry.record.id in bounds]

    @property
    def embedder(self) -> Embedder:
        """The embedding model every part of the index uses."""
        return self.searcher.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        """Use another embedder everywhere (tests count or replace the model's calls)."""
        self.writer.embedder = self.resolver.embedder = self.searcher.embedder = embedder

    @property
    def location(self) -> str:
        """Where the index lives, for the admin page and logs."""
        return self.store.location

    def ping(self) -> int:
        """Count the courses; raises ServiceUnavailable when ChromaDB cannot answer."""
        return self.store.run(CATALOG, "count")

    def _read_catalog(self) -> list[CatalogEntry]:
        """Every catalog record with its live version and settling mark, read from the store."""
        return catalog_entries(self.store.run(CATALOG, "get", include=["metadatas"]))

    # -- catalog ------------------------------------------------------------------------------------

    def courses(self) -> list[CourseRecord]:
        """All indexed courses (this view's), sorted by title."""
        return [entry.record for entry in self.entries()]

    def get_course(self, course_id: str) -> CourseRecord | None:
        """The catalog record of one course id, or None."""
        return next((record for record in self.courses() if record.id == course_id), None)

    def versions(self) -> dict[str, str]:
        """The live version of every course in the catalog, by course id."""
        return dict(self.catalog.snapshot().versions)

    # -- writing ------------------------------------------------------------------------------------

    def version_for(self, content_hash: str, generation: str = "") -> str:
        """A course's version tag: a hash of its content, chunk settings, embedding model and generation."""
        return self.writer.version_for(content_hash, generation)

    def stored_dimension(self) -> int | None:
        """The dimension of the vectors already stored (None while the index is empty)."""
        return self.writer.stored_dimension()

    def stale_encoders(self) -> set[str]:
        """The encoders other than this index's embedder that made some course's vectors (empty if none)."""
        stored = self.writer.stored_encoders()
        # An empty index has none to compare, and needs no model loaded to say so.
        return stored - {self.embedder.fingerprint} if stored else set()

    def model_dimension(self) -> int:
        """The dimension of the vectors the embedding model makes (loads the model)."""
        return len(self.embedder.embed_query("dimension"))

    def upsert_course(
        self, course: Course, chunks: list[Chunk], generation: str = "", on_chunks: OnChunks | None = None
    ) -> CourseRecord:
        """Write a course's new version beside the old, flip the catalog to it, then retire the old chunks."""
        return self.writer.upsert_course(course, chunks, generation, on_chunks)

    def remove_course(self, course_id: str) -> bool:
        """Remove a course from the catalog and its chunks; False when there was no such course."""
        return self.writer.remove_course(course_id)

    def purge_orphans(self) -> int:
        """Finish what a killed write left; return how many orphaned chunks were deleted."""
        return self.writer.purge_orphans()

    def clear(self) -> None:
        """Delete both collections and create them empty."""
        self.store.reset(CATALOG, CONTENT)
        self.catalog.invalidate()
        self.searcher.clear()

    # -- reading ------------------------------------------------------------------------------------

    def resolve_course(self, name: str) -> CourseRecord:
        """The one course a name means (title, id, acronym, words, then meaning), or CourseNotFound."""
        # The same names come again and again (the sidebar's titles, a conversation's course).
        bounds = self.bounds
        return self.catalog.memo(
            ("course", name, bounds),
            lambda entries: self.resolver.resolve(
                name, [entry.record for entry in entries if bounds is None or entry.record.id in bounds]
            ),
        )

    def outline(self, course: str) -> Outline:
        """The outline (title, link, instructor, lessons) of the course a name means."""
        record = self.resolve_course(course)
        return Outline(
            title=record.title, link=record.link, instructor=record.instructor, lessons=record.lessons
        )

    def search(
        self, query: str, course: str | None = None, lesson: int | None = None, k: int | None = None
    ) -> list[Passage]:
        """The k best passages for the query, within a course and/or lesson when given: plain hybrid ranking
        (dense and BM25 fused), the query read as it is (the search tool, the API, the CLI)."""
        request = self._request(query, course, lesson, k or self.settings.max_results)
        return self.searcher.search(request) if request is not None else []

    def nearest(self, query: str, course: str | None = None, lesson: int | None = None) -> Passage | None:
        """The passage nearest the query in meaning alone (the dense ranking's first), within a course and/or
        lesson when given; None when there is none."""
        request = self._request(query, course, lesson, 1)
        if request is None:
            return None
        hits = self.searcher.candidates(request).dense
        return passage(min(hits, key=lambda hit: hit.distance)) if hits else None

    def chunks_at(self, query: str, places: list[tuple[str, int, int]]) -> list[Passage]:
        """The live passages at the places (course title, lesson, chunk index), scored against the query as
        search scores them (cosine); a place no live course holds is left out."""
        entries = {entry.record.title: entry for entry in self.entries()}
        vector = self.embedder.embed_query(query)
        found: list[Passage] = []
        for title, lesson, chunk in places:
            entry = entries.get(title)
            if entry is None:
                continue
            chunks = self.searcher.course_vectors.get(
                entry.record.id, entry.version, entry.record.chunk_count
            )
            hits = chunks.hits(vector, [(lesson, chunk)])
            found += [passage(hit) for hit in hits]
        return found

    def course_mentioned(self, text: str) -> tuple[CourseRecord, str] | None:
        """The one course a text mentions without a naming phrase (acronym, most of its title), and how."""
        return mentioned_course(text, self.courses())

    def explain(
        self, query: str, course: str | None = None, lesson: int | None = None, k: int | None = None
    ) -> list[RankedPassage]:
        """The passages `search` returns, each with its meaning, keyword and fused rank (the playground)."""
        request = self._request(query, course, lesson, k or self.settings.max_results)
        return explain_ranking(self.searcher, request) if request is not None else []

    def corrected(self, text: str, names: bool = False) -> str:
        """The text with misspelled words corrected towards the library's own words ("hypotesis");
        `names`: the text is a name, which is no inflection of a library word ("Skiner" is not skin-er)."""
        return self.searcher.corrected(text, self.catalog.snapshot(), names)

    def rarity(self, terms: list[str]) -> dict[str, float]:
        """How rare each stemmed term is in the library (BM25's idf): "Shapley" weighs more than "game"."""
        return self.searcher.rarity(terms, self.catalog.snapshot())

    def held(self, terms: list[str], course: str | None = None) -> set[str]:
        """The stemmed terms that the named course (or, without one, any course) says somewhere."""
        library = self.catalog.snapshot()
        return self.searcher.held(terms, library, self._scope(library, course, None))

    def covers(self, terms: list[str], course: str) -> bool:
        """True when the named course says every one of the terms that any course says (Searcher.covers)."""
        library = self.catalog.snapshot()
        return self.searcher.covers(terms, library, self._scope(library, course, None), self.entries(library))

    def _request(self, query: str, course: str | None, lesson: int | None, k: int) -> SearchRequest | None:
        """A search of the current catalog within the named course and/or lesson; None when nothing is in
        scope."""
        library = self.catalog.snapshot()
        scope = self._scope(library, course, lesson)
        return SearchRequest(query, library, scope, course, lesson, k) if scope else None

    def _scope(self, library: CatalogSnapshot, course: str | None, lesson: int | None) -> list[CatalogEntry]:
        """Select the catalog entries to search: the named course, narrowed to courses with the lesson."""
        scope = self.entries(library)
        record: CourseRecord | None = None
        if course is not None:
            record = self.resolve_course(course)
            scope = [entry for entry in scope if entry.record.id == record.id]
        if lesson is not None:
            scope = [entry for entry in scope if lesson in {info.number for info in entry.record.lessons}]
            if not scope:
                raise _no_lesson(lesson, record)
        return scope
