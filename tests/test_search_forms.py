"""Keyword search finds a question's word that the library only says as its noun ("react": "reaction")."""

from __future__ import annotations

from app.search.catalog import CatalogSnapshot
from app.search.forms import families, other_forms
from app.search.lexical import CourseTerms, LexicalIndex

BAKERY = CatalogSnapshot([], stamp=1, versions={"bakery": "v1"})
# English words: never read as the shortening of a longer library word (`shortened`), as the app's
# vocabulary (the embedding model's) makes them.
ENGLISH = frozenset({"react", "baker", "how", "did", "the"})


def lexical_over(chunks: list[str]) -> LexicalIndex:
    """A keyword index over made-up chunks of one course."""
    rows = [
        (text, {"lesson_number": 1, "chunk_index": n, "course_title": "", "lesson_title": ""})
        for n, text in enumerate(chunks)
    ]
    return LexicalIndex(lambda *_: CourseTerms.build([]), lambda _: {"bakery": CourseTerms.build(rows)})


def ranked(chunks: list[str], query: str) -> list[int]:
    """The chunk indexes BM25 ranks for the query, best first."""
    return [hit.key[1] for hit in lexical_over(chunks).ranked(query, BAKERY, ["bakery"], None, 10, ENGLISH)]


def test_a_verb_the_library_never_says_finds_its_noun():
    chunks = ["the baker sighed at the oven", "the baker's reaction was calm at the oven", "dough rises"]
    assert ranked(chunks, "how did the baker react")[0] == 1
    assert ranked(chunks, "react") == [1]


def test_a_word_the_library_says_keeps_to_its_own_form():
    said = {"react", "reaction"}.__contains__
    assert other_forms("react", said) == set()
    assert other_forms("react", {"reaction", "reactment"}.__contains__) == {"reaction", "reactment"}
    # A short term is too often the start of another word ("art": "artment" is no form of it).
    assert other_forms("art", {"artion"}.__contains__) == set()


def test_terms_sharing_a_form_are_one_family():
    said = {"information", "oven"}.__contains__
    assert sorted(map(sorted, families(["inform", "information", "oven"], said))) == [
        ["inform", "information"],
        ["oven"],
    ]


def test_a_noun_the_library_says_covers_the_verb():
    lexical = lexical_over(["the baker's reaction was calm", "dough rises"])
    assert lexical.coverage("react", BAKERY, ENGLISH) == 1.0
