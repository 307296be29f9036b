"""Hybrid search: BM25 over live chunks, fused with the dense ranking, following the catalog per course."""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.search.catalog import CatalogSnapshot
from app.search.index import CourseIndex
from app.search.lexical import K1, B, CourseTerms, LexicalIndex, lexical_terms
from tests.helpers import Library
from tests.test_index import ONIONS_V1, ONIONS_V2, TEST_COURSES, course_file, index_course, settings_for

# Lessons about one topic, one of which names a made-up setting.
STOCK_LESSONS = {
    1: "A good stock starts with roasted bones, cold water and a long, gentle simmer.",
    2: "Skim the stock as it simmers so that it stays clear; never let it boil hard.",
    3: "Set the kettle's qzvlimit dial to seven before the stock simmers overnight.",
    4: "Strain the stock through cloth, cool it quickly and keep it cold for three days.",
}


@pytest.fixture
def index(tmp_path) -> CourseIndex:
    """An empty index of its own."""
    return CourseIndex(settings_for(tmp_path))


def metadata(lesson: int, index: int) -> dict:
    """Chunk metadata as the index stores it (the titles are part of what BM25 reads)."""
    return {"lesson_number": lesson, "chunk_index": index, "course_title": "", "lesson_title": ""}


# A catalog of one course, "fruit", in version "v1".
FRUIT = CatalogSnapshot([], stamp=1, versions={"fruit": "v1"})


def test_bm25_scores_follow_the_okapi_formula():
    chunks = [("apple apple pear", metadata(1, 0)), ("pear plum", metadata(1, 1)), ("plum", metadata(2, 2))]
    lexical = LexicalIndex(lambda *_: CourseTerms.build([]), lambda _: {"fruit": CourseTerms.build(chunks)})
    hits = lexical.ranked("apples", FRUIT, ["fruit"], None, 5)
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    average = (3 + 2 + 1) / 3
    expected = idf * 2 * (K1 + 1) / (2 + K1 * (1 - B + B * 3 / average))
    assert [(hit.course_id, hit.version, hit.key) for hit in hits] == [("fruit", "v1", (1, 0))]
    assert hits[0].score == pytest.approx(expected)
    # A lesson filter leaves only that lesson's chunks; a shorter chunk with the same count ranks higher.
    assert [hit.key for hit in lexical.ranked("plum", FRUIT, ["fruit"], 2, 5)] == [(2, 2)]
    assert [hit.key for hit in lexical.ranked("plum", FRUIT, ["fruit"], None, 5)] == [
        (2, 2),
        (1, 1),
    ]


def test_terms_are_stemmed_and_function_words_dropped():
    assert lexical_terms("How are the databases indexing?") == ["database", "index"]


@pytest.fixture(scope="module")
def both_rankings(tmp_path_factory) -> tuple[CourseIndex, CourseIndex]:
    """The test courses indexed once, searched hybrid and by meaning alone."""
    root = tmp_path_factory.mktemp("lexical")
    hybrid = Library.indexed(root, TEST_COURSES).index
    return hybrid, CourseIndex(settings_for(root, hybrid_search=False), embedder=hybrid.embedder)


def test_a_word_that_meaning_alone_misses_is_found_first(both_rankings):
    hybrid, dense = both_rankings
    # "cutoff" occurs once in the test courses ("that knowledge stops at a cutoff date").
    assert "cutoff date" in hybrid.search("cutoff")[0].text
    assert not any("cutoff" in passage.text for passage in dense.search("cutoff"))
    # A passage's score stays its cosine similarity to the question, whichever ranking offered it.
    by_meaning = {passage.text: passage.score for passage in dense.search("cutoff", k=50)}
    assert [passage.score for passage in hybrid.search("cutoff")] == [
        by_meaning[passage.text] for passage in hybrid.search("cutoff")
    ]


def test_meaning_alone_reads_no_keywords(both_rankings):
    _, dense = both_rankings
    assert dense.search("knowledge cutoff")
    assert dense.searcher.lexical._view.size == 0  # never consulted, so nothing was read for it


def test_course_and_lesson_filters_apply_to_keyword_hits(index):
    index_course(index, course_file("Kitchen Basics", STOCK_LESSONS, "kitchen.txt"), size=200)
    index_course(
        index, course_file("Garage Basics", {1: "The qzvlimit of the jack is two tons."}, "garage.txt")
    )
    in_course = index.search("qzvlimit", course="Garage Basics", k=5)
    assert {passage.course_title for passage in in_course} == {"Garage Basics"}
    in_lesson = index.search("qzvlimit", course="Kitchen Basics", lesson=1, k=5)
    assert {passage.lesson_number for passage in in_lesson} == {1}
    library_lesson = index.search("qzvlimit", lesson=3, k=5)
    assert [passage.course_title for passage in library_lesson][:1] == ["Kitchen Basics"]
    assert all(passage.lesson_number == 3 for passage in library_lesson)


def test_the_keyword_index_reads_only_the_courses_that_changed(index, monkeypatch):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    index_course(index, course_file("Garden Basics", {1: "Zucchini glut: blanch and freeze."}, "garden.txt"))
    assert "onions" in index.search("onions")[0].text.lower()  # the first search reads the library at once
    loaded: list[str] = []
    load = index.searcher._load_course_terms
    monkeypatch.setattr(
        index.searcher.lexical, "_load_course", lambda *key: loaded.append(key[0]) or load(*key)
    )
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}, "kitchen.txt"))
    texts = [passage.text for passage in index.search("onions shallots zucchini", k=5)]
    assert loaded == ["kitchen-basics"]
    assert any("Zucchini" in text for text in texts) and any(ONIONS_V2 in text for text in texts)
    assert not any(ONIONS_V1 in text for text in texts)
    index.search("shallots")
    assert loaded == ["kitchen-basics"]  # an unchanged catalog reads nothing


def test_a_course_being_written_is_not_found_by_keyword_until_its_flip(index, monkeypatch):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    index.search("onions")
    with monkeypatch.context() as patch:
        patch.setattr(
            index.writer, "_flip_catalog", lambda *args: (_ for _ in ()).throw(RuntimeError("killed"))
        )
        with pytest.raises(RuntimeError):
            index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}, "kitchen.txt"))
    assert not any(ONIONS_V2 in passage.text for passage in index.search("pickled shallots", k=5))


def test_words_written_by_another_process_are_found_by_keyword(tmp_path):
    reader = CourseIndex(settings_for(tmp_path))
    writer = CourseIndex(settings_for(tmp_path), embedder=reader.embedder)
    index_course(writer, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    assert ONIONS_V1 in reader.search("onions")[0].text
    index_course(writer, course_file("Garden Basics", {1: "Zucchini glut: blanch and freeze."}, "garden.txt"))
    texts = [passage.text for passage in reader.search("zucchini glut", k=5)]
    assert any("Zucchini" in text for text in texts)


def test_clearing_the_index_forgets_every_keyword(index):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    assert index.search("onions")
    index.clear()
    assert index.search("onions") == []
    assert index.searcher.lexical._view.size == 0


def test_searches_go_on_while_another_reads_a_changed_course(index, monkeypatch):
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V1}, "kitchen.txt"))
    index_course(index, course_file("Garden Basics", {1: "Zucchini glut: blanch and freeze."}, "garden.txt"))
    assert index.search("onions")
    reading, release = threading.Event(), threading.Event()
    load = index.searcher._load_course_terms

    def slow_load(*key):
        reading.set()
        assert release.wait(30), "the test never released the reader"
        return load(*key)

    monkeypatch.setattr(index.searcher.lexical, "_load_course", slow_load)
    index_course(index, course_file("Kitchen Basics", {1: ONIONS_V2}, "kitchen.txt"))
    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(index.search, "pickled shallots")
        assert reading.wait(30)
        # Another search, meanwhile: answered from the current keyword view, without waiting for the read.
        meanwhile = index.search("pickled shallots onions zucchini", k=5)
        assert not release.is_set()
        assert not any(ONIONS_V1 in passage.text for passage in meanwhile)  # never the retired version
        assert any(ONIONS_V2 in passage.text for passage in meanwhile)
        release.set()
        assert ONIONS_V2 in first.result(timeout=30)[0].text


def test_the_keyword_index_follows_the_catalog_by_its_snapshot_stamp():
    chunks = [("apple pear", metadata(1, 0))]
    reads: list[str] = []

    def load_course(course_id, version):
        reads.append(f"{course_id}@{version}")
        return CourseTerms.build(chunks)

    def load_all(versions):
        reads.extend(f"all:{course_id}@{version}" for course_id, version in versions.items())
        return {course_id: CourseTerms.build(chunks) for course_id in versions}

    lexical = LexicalIndex(load_course, load_all)
    assert lexical.ranked("apple", FRUIT, ["fruit"], None, 5)
    # A later read of an unchanged catalog (a new stamp, the same versions) reads no course again.
    assert lexical.ranked("apple", CatalogSnapshot([], stamp=2, versions={"fruit": "v1"}), ["fruit"], None, 5)
    assert reads == ["all:fruit@v1"]
    changed = CatalogSnapshot([], stamp=3, versions={"fruit": "v2"})
    assert [hit.version for hit in lexical.ranked("apple", changed, ["fruit"], None, 5)] == ["v2"]
    assert reads == ["all:fruit@v1", "fruit@v2"]
