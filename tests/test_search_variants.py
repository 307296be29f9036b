"""Keyword search finds a question's number written the transcripts' other way ("5": "five")."""

from __future__ import annotations

from app.search.catalog import CatalogSnapshot
from app.search.lexical import CourseTerms, LexicalIndex
from app.search.variants import variants

CAKES = CatalogSnapshot([], stamp=1, versions={"cakes": "v1"})


def ranked(chunks: list[str], query: str) -> list[int]:
    """The chunk indexes BM25 ranks for the query over the made-up chunks, best first."""
    rows = [
        (text, {"lesson_number": 1, "chunk_index": n, "course_title": "", "lesson_title": ""})
        for n, text in enumerate(chunks)
    ]
    lexical = LexicalIndex(lambda *_: CourseTerms.build([]), lambda _: {"cakes": CourseTerms.build(rows)})
    return [hit.key[1] for hit in lexical.ranked(query, CAKES, ["cakes"], None, 10)]


def test_a_number_in_digits_finds_it_said_in_words_and_back():
    chunks = ["the sponge has seven thin layers of cream", "the tart has many layers of pastry", "4 eggs"]
    assert ranked(chunks, "what are the 7 layers") == [0, 1]
    assert ranked(chunks, "why four eggs") == [2]


def test_variants_are_only_forms_the_library_says():
    said = {"five", "bake"}.__contains__
    # "12" has a word the library never says; "bake" is no number.
    assert variants(["5", "12", "bake"], said) == {"five"}
    assert variants(["one", "0"], lambda term: True) == set()


def test_a_chat_spelling_finds_the_word_and_counts_as_said():
    chunks = ["we pass the plate to the guest", "we pass the batter through a sieve"]
    assert ranked(chunks, "pass thru") == [1, 0]
    assert variants(["thru"], {"through"}.__contains__) == {"through"}


def test_a_verb_asked_in_its_base_word_finds_the_lecture_telling_it_in_the_past():
    chunks = ["the fox ate the grapes at noon", "the fox looks at the grapes", "grapes grow on vines"]
    assert ranked(chunks, "did the fox eat the grapes")[0] == 0
    assert variants(["eat", "wrote"], {"ate", "eaten", "write"}.__contains__) == {"ate", "eaten"}


def test_a_past_form_does_not_bring_in_its_base_word():
    # "drove" is not searched as "drive", a course's everyday word; nor a form that is a word of its own.
    assert variants(["drove", "hide", "find"], lambda term: True) == set()
