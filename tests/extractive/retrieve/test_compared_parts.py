"""A comparison's parts are searched too: each part's first passage follows the whole question's first."""

from __future__ import annotations

import pytest

from app.search.models import Passage
from app.search.parts import course_scope, keep_parts
from app.search.searcher import SearchRequest
from tests.helpers import Library, course_text

BREAD = (
    "Proofing lets the dough rise slowly: the yeast in the starter makes gas that the gluten traps.",
    "A cold proof in the fridge overnight slows the rise and deepens the sour flavour of the dough.",
    "Shaping the dough tightens its surface so that it rises upwards during the final proof.",
    "Test the proof by pressing the dough with a finger: if the dent springs back slowly, it is done.",
    "Scoring the loaf with a blade lets it rise in the oven, the oven spring, without tearing at random.",
    "Feeding the starter twice a day keeps its yeast active, so the dough rises in four hours, not ten.",
    "The starter is a living culture of wild yeast and bacteria; keep the culture at room temperature and "
    "feed it flour and water.",
    "A sluggish culture smells of acetone: discard half of the culture and feed it more often until it "
    "bubbles again.",
)
CHEESE = (
    "Warm the milk to thirty degrees and stir in the culture; the bacteria turn lactose into lactic acid.",
    "Rennet is an enzyme that makes the milk protein clot: within an hour the milk sets into a firm curd.",
    "Cut the curd into cubes and stir gently while the whey drains away.",
    "Salt the cheese and press it in a mould, then age it in a cool cellar for months.",
)
# Most of its words are the bread half's: searched whole, the cheese course's culture passage comes third.
COMPARISON = "How is the culture fed in Baker's course, and what does Fromage say about the culture?"


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    """Two courses told apart by their instructors, both about a culture."""
    library = Library(tmp_path_factory.mktemp("parts"))
    for name, title, instructor, lessons in (
        ("bread.txt", "Sourdough Bread Baking", "Ada Baker", BREAD),
        ("cheese.txt", "Home Cheesemaking", "Carl Fromage", CHEESE),
    ):
        text = course_text(title, *lessons).replace("Test Person", instructor)
        (library.docs / name).write_text(text)
    return library.synced()


def whole_only(library: Library, query: str, k: int) -> list[Passage]:
    """The whole question's ranking alone, without its parts."""
    index = library.index
    snapshot = index.catalog.snapshot()
    return index.searcher.search(SearchRequest(query, snapshot, snapshot.entries, None, None, k))


def test_each_compared_part_has_a_passage_among_the_first_ones(library):
    assert {p.course_title for p in whole_only(library, COMPARISON, 2)} == {"Sourdough Bread Baking"}

    found = library.index.search_question(COMPARISON, k=2)

    assert [p.course_title for p in found] == ["Sourdough Bread Baking", "Home Cheesemaking"]
    assert "stir in the culture" in found[1].text
    # The whole question's first passage stays first.
    assert found[0].text == whole_only(library, COMPARISON, 1)[0].text


def test_a_part_passage_is_scored_by_its_cosine_to_the_whole_question(library):
    found = library.index.search_question(COMPARISON, k=2)
    by_whole = {p.text: p.score for p in whole_only(library, COMPARISON, 12)}
    assert [p.score for p in found] == pytest.approx([by_whole[p.text] for p in found], abs=1e-3)


@pytest.mark.parametrize(
    "query",
    ["How is the culture kept at room temperature?", "What does rennet do to the milk?"],
)
def test_a_question_comparing_nothing_is_ranked_whole(library, query):
    assert [p.text for p in library.index.search_question(query, k=4)] == [
        p.text for p in whole_only(library, query, 4)
    ]


def test_a_part_with_no_words_of_its_own_adds_no_passage(library):
    query = "How is the culture fed, and where is it?"
    noise = whole_only(library, "where is it?", 1)[0]
    assert noise.text not in [p.text for p in whole_only(library, query, 3)]

    found = library.index.search_question(query, k=3)

    first_part = whole_only(library, "How is the culture fed?", 1)
    expected = keep_parts(whole_only(library, query, 3), first_part, 3)
    assert [p.text for p in found] == [p.text for p in expected]
    assert noise.text not in [p.text for p in found]


def test_asking_for_one_passage_gets_the_whole_questions_first(library):
    assert [p.text for p in library.index.search_question(COMPARISON, k=1)] == [
        p.text for p in whole_only(library, COMPARISON, 1)
    ]


def test_the_playground_explains_the_same_order_as_the_search(library):
    explained = library.index.explain(COMPARISON, k=3)
    assert [r.passage.text for r in explained] == [p.text for p in library.index.search(COMPARISON, k=3)]


def test_the_plain_search_ranks_a_comparison_whole(library):
    # What the search tool, the API and the CLI run: Claude splits a comparison into searches itself.
    assert [p.text for p in library.index.search(COMPARISON, k=2)] == [
        p.text for p in whole_only(library, COMPARISON, 2)
    ]


def passage(course: str, chunk: int) -> Passage:
    """A passage of lesson 1 of a course."""
    return Passage(
        course_title=course, lesson_number=1, lesson_title="L", chunk_index=chunk, score=0.5, text="t"
    )


def test_parts_first_passages_follow_the_first_once_each_and_k_in_all():
    whole = [passage("a", 0), passage("a", 1), passage("a", 2), passage("b", 0)]
    firsts = [passage("a", 0), passage("b", 0), passage("b", 0)]
    # The first part's passage is already first; the second's moves up; nothing is repeated.
    kept = keep_parts(whole, firsts, 3)
    assert [(p.course_title, p.chunk_index) for p in kept] == [("a", 0), ("b", 0), ("a", 1)]
    assert keep_parts([], [passage("b", 3)], 3) == [passage("b", 3)]


# The second part names no course; the whole question names one (Fromage's), which says the part's words.
ONE_COURSE_NAMED = "what does Fromage cut vs what the culture makes"


def test_a_part_naming_no_course_is_searched_in_the_one_course_the_question_names(library):
    # Searched over every course, the second part's first passage is the bread course's.
    elsewhere = whole_only(library, "what the culture makes", 1)[0]
    assert elsewhere.course_title == "Sourdough Bread Baking"

    found = [p.text for p in library.index.search_question(ONE_COURSE_NAMED, k=3)]

    assert any("stir in the culture" in text for text in found)


def test_a_part_the_named_course_never_speaks_of_is_searched_everywhere(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    cheese = next(record for record in snapshot.records if record.title == "Home Cheesemaking")

    def scope(part: str) -> tuple[set[str], str | None]:
        entries, course = course_scope(index.searcher, part, snapshot, snapshot.entries, None, cheese)
        return {entry.record.title for entry in entries}, course

    assert scope("what the culture makes") == ({"Home Cheesemaking"}, cheese.id)
    # The cheese course never says "starter"; a part naming a place of its own keeps to it.
    assert scope("what the starter makes") == ({"Home Cheesemaking", "Sourdough Bread Baking"}, None)
    assert scope("what the culture makes in the bread lesson")[1] is None
