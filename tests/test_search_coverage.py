"""Keywords weigh as much of a question as the library says: words it never says are matched by meaning."""

from __future__ import annotations

import pytest

from app.search.catalog import CatalogSnapshot
from app.search.index import CourseIndex
from app.search.lexical import CourseTerms, LexicalIndex
from tests.test_index import course_file, index_course, settings_for

# A bank run told in a course's own words ("England", "savers queued"), and a lesson that only shares the
# question's everyday words ("happening").
MONEY_LESSONS = {
    1: "Savers queued for hours outside the bank in England, afraid it would fail; that was a bank run.",
    2: "Whatever is happening in a game, what happens next happens because each player happens to expect it.",
    3: "The bank sets the interest rate it pays to savers every year.",
}


@pytest.fixture(scope="module")
def money(tmp_path_factory) -> CourseIndex:
    """The money course, indexed once (real embedding model and ChromaDB)."""
    index = CourseIndex(settings_for(tmp_path_factory.mktemp("coverage")))
    index_course(index, course_file("Money Games", MONEY_LESSONS, "money.txt"))
    return index


def test_a_question_in_words_the_course_never_says_is_ranked_by_meaning(money):
    question = "what panic was happening in the UK"
    ranks = {ranked.passage.lesson_number: ranked for ranked in money.explain(question, k=3)}
    # Keywords alone prefer the lesson that says "happening"; meaning prefers the bank run.
    assert ranks[2].lexical_rank == 1 and ranks[1].dense_rank == 1
    assert [passage.lesson_number for passage in money.search(question, k=3)][0] == 1


def test_a_question_the_course_says_every_word_of_keeps_its_keywords(money):
    assert money.searcher.lexical.coverage("bank run in England", money.catalog.snapshot()) == 1.0
    assert money.search("savers queued outside the bank", k=1)[0].lesson_number == 1


def coverage(question: str) -> float:
    """The coverage of a question over one made-up course titled "Garden Care" by "Ada Moss"."""
    rows = [
        (text, {"lesson_number": 1, "chunk_index": n, "course_title": "", "lesson_title": ""})
        for n, text in enumerate(["prune the roses in spring", "water the tomatoes at dawn"])
    ]
    lexical = LexicalIndex(lambda *_: CourseTerms.build([]), lambda _: {"garden": CourseTerms.build(rows)})
    record = type("Record", (), {"title": "Garden Care", "instructor": "Ada Moss"})()
    entry = type("Entry", (), {"record": record})()
    library = CatalogSnapshot([entry], stamp=1, versions={"garden": "v1"})  # type: ignore[list-item]
    return lexical.coverage(question, library)


def test_a_misspelling_or_a_course_name_is_no_word_the_library_lacks():
    assert coverage("when to prune roses") == 1.0
    assert coverage("when to prunne tomatoes") == 1.0  # a misspelling of "prune"
    assert coverage("Ada Moss on tomatoes in Garden Care") == 1.0  # the course's instructor and title
    assert 0.0 < coverage("when to prune orchids") < 1.0
    assert coverage("orchids") == 0.0
