"""CourseIndex on a real ChromaDB folder with the real model: search, filters, resolution, crash safety."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.courses.chunking import chunk_course
from app.courses.parsing import parse_bytes
from app.errors import CourseNotFound, LessonNotFound, ServiceUnavailable
from app.search.ids import ChunkId
from app.search.index import CourseIndex
from tests.helpers import Library, library_settings

TEST_COURSES = Path(__file__).resolve().parent / "data" / "courses"
ALL_TITLES = (
    "Python Testing with Pytest, Retrieval-Augmented Generation in Practice, Vector Databases from Scratch"
)


settings_for = library_settings


def course_file(title: str, lessons: dict[int, str], name: str = "course.txt"):
    """A parsed course with the given lesson texts, as the parser makes it from a TXT file."""
    lines = [
        f"Course Title: {title}",
        f"Course Link: https://example.com/{name}",
        "Course Instructor: Test Person",
    ]
    for number, text in lessons.items():
        lines += [
            f"Lesson {number}: Part {number}",
            f"Lesson Link: https://example.com/{name}/{number}",
            text,
        ]
    return parse_bytes("\n".join(lines).encode(), name)


def index_course(index: CourseIndex, course, size: int = 800):
    """Chunk and upsert a course."""
    return index.upsert_course(course, chunk_course(course, size, 100))


@pytest.fixture(scope="module")
def library_index(tmp_path_factory) -> CourseIndex:
    """The three test courses, indexed once for the read-only tests of this module."""
    library = Library.indexed(tmp_path_factory.mktemp("index"), TEST_COURSES)
    assert len(library.index.courses()) == 3
    return library.index


@pytest.fixture
def index(tmp_path) -> CourseIndex:
    """An empty index of its own."""
    return CourseIndex(settings_for(tmp_path))


ONIONS_V1 = "Caramelized onions need forty minutes of patience over low heat."
ONIONS_V2 = "Pickled shallots bring sharp acidity to a rich braise."


# -- search -----------------------------------------------------------------------------------------


def test_search_returns_passages_best_first(library_index):
    passages = library_index.search("hierarchical navigable small world graph layers")
    assert 1 <= len(passages) <= 5
    top = passages[0]
    assert top.course_title == "Vector Databases from Scratch"
    assert top.lesson_number == 2
    assert top.lesson_title == "HNSW Graphs"
    assert top.lesson_link == "https://example.com/courses/vectordb/lesson-2"
    assert top.course_link == "https://example.com/courses/vectordb"
    assert "hierarchical navigable small world" in top.text.lower()
    # Ranked by fused rank (meaning and words); the score stays the cosine similarity the answerers read.
    assert all(0 < passage.score <= 1 for passage in passages)
    assert top.score == max(passage.score for passage in passages)


def test_a_passage_is_read_by_its_place_scored_as_search_scores_it(library_index):
    query = "hierarchical navigable small world graph layers"
    found = library_index.search(query)[0]
    title, lesson, _ = found.place
    read = library_index.chunks_at(query, [found.place, (title, lesson, 999), ("No Such Course", 1, 0)])
    assert [passage.place for passage in read] == [found.place]
    assert read[0].text == found.text
    assert read[0].score == pytest.approx(found.score, abs=1e-3)


def test_k_limits_the_number_of_passages(library_index):
    assert len(library_index.search("vectors", k=2)) == 2


def test_course_filter_accepts_a_loose_name(library_index):
    passages = library_index.search("fixture scope", course="RAG", k=10)
    assert passages
    assert {passage.course_title for passage in passages} == {"Retrieval-Augmented Generation in Practice"}


def test_held_terms_are_those_the_named_course_or_any_course_says(library_index):
    terms = ["hnsw", "minilm", "pinecone", "vector"]  # stemmed: MiniLM is said in the RAG course only

    assert library_index.held(terms, "vector databases") == {"hnsw", "vector"}
    assert library_index.held(terms) == {"hnsw", "minilm", "vector"}


def test_lesson_zero_is_a_lesson(library_index):
    passages = library_index.search("what this course covers", course="vector databases", lesson=0)
    assert passages
    assert {(passage.lesson_number, passage.lesson_title) for passage in passages} == {(0, "Introduction")}


def test_lesson_without_a_course_searches_that_lesson_everywhere(library_index):
    passages = library_index.search("how to check the answers", lesson=4, k=10)
    assert passages
    # Only the RAG course has a lesson 4.
    assert {(p.course_title, p.lesson_number) for p in passages} == {
        ("Retrieval-Augmented Generation in Practice", 4)
    }


def test_a_lesson_the_course_does_not_have_says_so(library_index):
    with pytest.raises(LessonNotFound) as caught:
        library_index.search("anything", course="Vector Databases from Scratch", lesson=9)
    assert str(caught.value) == "Vector Databases from Scratch has no lesson 9; its lessons are 0–3."
    assert caught.value.status == 404
    with pytest.raises(LessonNotFound, match="No course has a lesson 42"):
        library_index.search("anything", lesson=42)


def test_an_unknown_course_lists_the_courses(library_index):
    with pytest.raises(CourseNotFound) as caught:
        library_index.search("pods", course="Kubernetes for beginners")
    assert str(caught.value) == f"No course matches 'Kubernetes for beginners'. Courses are: {ALL_TITLES}."


def test_search_in_an_empty_index_finds_nothing(index):
    assert index.search("anything") == []
    with pytest.raises(CourseNotFound, match="No courses are indexed"):
        index.search("anything", course="RAG")


# -- course resolution --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("Vector Databases from Scratch", "Vector Databases from Scratch"),
        ("retrieval-augmented generation in practice", "Retrieval-Augmented Generation in Practice"),
        ("python-testing-with-pytest", "Python Testing with Pytest"),
        ("RAG", "Retrieval-Augmented Generation in Practice"),
        ("the rag course", "Retrieval-Augmented Generation in Practice"),
        ("vector database", "Vector Databases from Scratch"),
        ("the vector database class", "Vector Databases from Scratch"),
        ("testing with pytest", "Python Testing with Pytest"),
        ("pytest", "Python Testing with Pytest"),
        ("the pytest one", "Python Testing with Pytest"),
        ("retrieval augmented gen", "Retrieval-Augmented Generation in Practice"),
        ("VD", "Vector Databases from Scratch"),
        # A distinctive lesson-title term, or the instructor's name.
        ("HNSW", "Vector Databases from Scratch"),
        ("Ada Lovelace", "Retrieval-Augmented Generation in Practice"),
        ("Hopper", "Vector Databases from Scratch"),
        # A word that is not in the title but means one of its words.
        ("vector DBs", "Vector Databases from Scratch"),
    ],
)
def test_names_resolve_to_the_course_they_mean(library_index, name, title):
    assert library_index.resolve_course(name).title == title


@pytest.mark.parametrize(
    "name",
    [
        "Kubernetes for beginners",
        "cooking pasta",
        "unit tests",
        "python programming",
        "machine learning",
        "SQL databases",
        # Letters from the middle of a title's initials ("df" in "vdfs"), and a small word.
        "as",
        "df",
        # An ordinary lesson-title word is not distinctive enough to name a course.
        "fixtures",
    ],
)
def test_unrelated_names_match_nothing(library_index, name):
    with pytest.raises(CourseNotFound) as caught:
        library_index.resolve_course(name)
    assert str(caught.value) == f"No course matches '{name}'. Courses are: {ALL_TITLES}."


def test_an_ambiguous_name_lists_the_candidates(index):
    index_course(index, course_file("Python Basics", {1: "Variables hold values."}, "basics.txt"))
    index_course(index, course_file("Python Testing with Pytest", {1: "Tests assert things."}, "testing.txt"))
    index_course(index, course_file("Sourdough Baking", {1: "Starter needs flour."}, "bread.txt"))
    with pytest.raises(CourseNotFound) as caught:
        index.resolve_course("python")
    message = str(caught.value)
    assert "Python Basics" in message and "Python Testing with Pytest" in message
    assert "Sourdough" not in message


# -- catalog ------------------------------------------------------------------------------------------


def test_outline_lists_lessons_with_links(library_index):
    outline = library_index.outline("RAG")
    assert outline.title == "Retrieval-Augmented Generation in Practice"
    assert outline.link == "https://example.com/courses/rag"
    assert outline.instructor == "Ada Lovelace"
    assert [lesson.number for lesson in outline.lessons] == [1, 2, 3, 4]
    assert outline.lessons[1].title == "Chunking Documents"
    assert outline.lessons[1].link == "https://example.com/courses/rag/lesson-2"


def test_courses_are_sorted_records(library_index):
    records = library_index.courses()
    assert ", ".join(record.title for record in records) == ALL_TITLES
    record = library_index.get_course("vector-databases-from-scratch")
    assert record is not None
    assert record.source_file == "vector_databases.txt"
    assert len(record.content_hash) == 64
    assert record.chunk_count == len(library_index.search("x", course=record.title, k=50))
    assert library_index.get_course("no-such-course") is None
    assert library_index.ping() == 3
    assert library_index.location.startswith("embedded folder ")


def test_an_unreachable_server_is_service_unavailable(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    index = CourseIndex(settings_for(tmp_path, chroma_host="127.0.0.1", chroma_port=port))
    assert index.location == f"ChromaDB server 127.0.0.1:{port}"
    for call in (index.ping, index.courses, lambda: index.search("anything")):
        with pytest.raises(ServiceUnavailable, match="The course index is unavailable"):
            call()


# -- writing ------------------------------------------------------------------------------------------


def test_upsert_replaces_the_old_version(index):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}))
    assert ONIONS_V1 in index.search("onions", course="Kitchen Basics")[0].text
    record = index_course(
        index, course_file("Kitchen Basics", {1: ONIONS_V2, 2: "Knives stay sharp on steel."})
    )
    assert record.chunk_count == 2
    texts = [passage.text for passage in index.search("onions", course="Kitchen Basics", k=50)]
    assert len(texts) == 2
    assert not any(ONIONS_V1 in text for text in texts)
    assert any(ONIONS_V2 in text for text in texts)
    assert index.purge_orphans() == 0


def test_rechunking_the_same_version_leaves_no_stale_chunks(index):
    long_text = " ".join(f"Sentence number {n} talks about stock and broth." for n in range(40))
    course = course_file("Kitchen Basics", {1: long_text})
    small = index_course(index, course, size=200)
    large = index_course(index, course, size=1000)
    assert small.chunk_count > large.chunk_count
    assert len(index.search("broth", course="Kitchen Basics", k=50)) == large.chunk_count


def test_remove_and_clear(index):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    index_course(index, course_file("Garden Basics", {1: "Tomatoes need sun."}, "garden.txt"))
    assert index.remove_course("kitchen-basics") is True
    assert index.remove_course("kitchen-basics") is False
    assert [record.title for record in index.courses()] == ["Garden Basics"]
    assert all(passage.course_title == "Garden Basics" for passage in index.search("onions", k=50))
    index.clear()
    assert index.ping() == 0
    assert index.search("tomatoes") == []


def test_a_crash_before_the_catalog_flip_keeps_the_old_version(index, monkeypatch):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}))

    def crash(*args, **kwargs):
        raise RuntimeError("killed before the flip")

    with monkeypatch.context() as patch:
        patch.setattr(index.writer, "_flip_catalog", crash)
        with pytest.raises(RuntimeError):
            index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}))
    # The new chunks are written but invisible: search sees exactly the old version.
    texts = [passage.text for passage in index.search("onions shallots", k=50)]
    assert texts and all(ONIONS_V1 in text for text in texts)
    assert index.purge_orphans() == 1
    assert [passage.text for passage in index.search("onions shallots", k=50)] == texts
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}))
    assert ONIONS_V2 in index.search("onions shallots")[0].text


def test_a_crash_after_the_flip_shows_only_the_new_version(index, monkeypatch):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}))
    real_run = index.writer._run

    def crash_on_delete(name, operation, /, **kwargs):
        if operation == "delete":
            raise RuntimeError("killed before the old chunks went")
        return real_run(name, operation, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(index.writer, "_run", crash_on_delete)
        with pytest.raises(RuntimeError):
            index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}))
    texts = [passage.text for passage in index.search("onions shallots", k=50)]
    assert texts and all(ONIONS_V2 in text for text in texts)
    assert index.purge_orphans() == 1


def test_leftover_chunks_crowding_the_top_never_shrink_a_library_search(index, monkeypatch):
    vegetables = ["Carrots", "Leeks", "Beets", "Kale", "Radishes", "Peas", "Garlic", "Chard"]
    index_course(
        index,
        course_file("Garden Basics", {n: f"{v} grow well in spring." for n, v in enumerate(vegetables, 1)}),
    )
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    # A write killed before its flip leaves 20 unlisted chunks that match the query better than anything live.
    leftovers = course_file(
        "Kitchen Basics", {n: f"Onions, onions and more onions, take {n}." for n in range(1, 21)}
    )
    with monkeypatch.context() as patch:
        patch.setattr(
            index.writer, "_flip_catalog", lambda *args: (_ for _ in ()).throw(RuntimeError("killed"))
        )
        with pytest.raises(RuntimeError):
            index_course(index, leftovers, size=200)
    hits = index.search("onions", k=5)
    assert len(hits) == 5 and not any("more onions" in hit.text for hit in hits)
    assert hits[0].text.startswith(ONIONS_V1[:20])


@pytest.mark.parametrize("query", ["fixtures and setup", "cosine similarity", "chunk size overlap"])
def test_a_course_search_ranks_by_meaning_exactly_as_the_store_does(library_index, query):
    # The dense half of a course search (in memory) against ChromaDB's filtered query.
    vector = library_index.embedder.embed_query(query)
    for entry in library_index.catalog.entries():
        where = {"$and": [{"course_id": entry.record.id}, {"version": entry.version}]}
        stored = library_index.searcher.query(vector, 50, where)
        searched = library_index.searcher.search_course(entry, vector, 50, None)
        assert [document for document, _, _ in searched] == [document for document, _, _ in stored]
        assert [d for _, _, d in searched] == pytest.approx([d for _, _, d in stored], abs=1e-3)


def test_resolved_names_are_remembered_until_the_catalog_changes(index):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    calls: list[int] = []

    def count(entries):
        calls.append(len(entries))
        return len(entries)

    assert index.catalog.memo("courses", count) == index.catalog.memo("courses", count) == 1
    assert calls == [1]
    index_course(index, course_file("Garden Basics", {1: "Tomatoes need sun."}, "garden.txt"))
    assert index.catalog.memo("courses", count) == 2 and calls == [1, 2]
    assert index.resolve_course("garden").title == "Garden Basics"


def test_a_chunk_id_is_the_chunk_and_its_course_version():
    course = course_file("Kitchen Basics", {1: ONIONS_V1, 2: ONIONS_V2})
    chunk = chunk_course(course, 800, 100)[-1]
    chunk_id = ChunkId.of(chunk, "v1")
    assert str(chunk_id) == f"{chunk.id}@v1" == "kitchen-basics:2:0@v1"
    stored = {"course_id": "kitchen-basics", "lesson_number": 2, "chunk_index": 0, "version": "v1"}
    assert ChunkId.from_metadata(stored) == chunk_id
    assert chunk_id.place == ("kitchen-basics", 2, 0)
