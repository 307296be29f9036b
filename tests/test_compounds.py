"""Hyphenated compounds and short terms: "re-ranking", "reranking" and "rerank" are one word to search."""

from __future__ import annotations

from collections import Counter

import pytest

from app.assistant.extractive.confidence import passage_words, signals
from app.language.tokens import content_words, terms, tokens
from app.search.catalog import CatalogSnapshot
from app.search.index import CourseIndex
from app.search.lexical import CourseTerms, LexicalIndex
from app.search.models import Passage
from app.search.spelling import Speller
from tests.test_index import course_file, index_course, settings_for

SHOP = CatalogSnapshot([], stamp=1, versions={"shop": "v1"})


def chunk(lesson: int, index: int) -> dict:
    """Chunk metadata as the index stores it."""
    return {"lesson_number": lesson, "chunk_index": index, "course_title": "", "lesson_title": ""}


def keyword_index(*texts: str) -> LexicalIndex:
    """BM25 over one made-up course whose chunks are the texts, one lesson each."""
    chunks = [(text, chunk(number, number)) for number, text in enumerate(texts, start=1)]
    return LexicalIndex(lambda *_: CourseTerms.build([]), lambda _: {"shop": CourseTerms.build(chunks)})


def keys(index: LexicalIndex, query: str) -> list[int]:
    """The lessons whose chunks share a term with the query, best first."""
    return [hit.key[0] for hit in index.ranked(query, SHOP, ["shop"], None, 10)]


def passage_of(text: str) -> Passage:
    """A passage of made-up text."""
    return Passage(course_title="C", lesson_number=1, lesson_title="L", chunk_index=0, score=0.5, text=text)


def test_a_hyphenated_compound_is_its_parts_and_one_word():
    # The joined forms follow the words as written, so runs of words stay as written.
    assert terms("Re-ranking with a cross-encoder") == [
        "Re", "ranking", "with", "a", "cross", "encoder", "Reranking", "crossencoder"
    ]  # fmt: skip
    assert content_words("How does re-ranking work?") == ["rank", "work", "rerank"]


@pytest.mark.parametrize(
    "text",
    [
        "state-of-the-art models",  # a phrase, not a word
        "the Flask-HTMX course and the HX-Request header",  # names with acronyms
        'see example.com/fine-tuning/ and slug="fine-tuning"',  # an address and code
        "GPT-4 and Llama-3",  # digits
    ],
)
def test_phrases_names_and_code_are_not_joined(text):
    assert terms(text) == tokens(text)


def test_a_compound_is_searched_as_the_word_the_library_writes():
    index = keyword_index(
        "Rerank the shortlist with a slower model.",
        "Ranking tables list the teams by points; re-entry is free.",
        "Re-ranking fixes the order of the shortlist.",
    )
    # Written with a hyphen, joined or as the library's stem: the same chunks, never the one about "ranking".
    assert keys(index, "Re-ranking") == keys(index, "reranking") == keys(index, "rerank")
    assert sorted(keys(index, "re-ranking")) == [1, 3]
    # "ranking" alone still finds every chunk that says it, the compound's too.
    assert sorted(keys(index, "ranking")) == [2, 3]


def test_two_words_the_library_writes_as_one_find_it():
    index = keyword_index("A cross-encoder reads both texts at once.", "Cross the bridge to the depot.")
    assert keys(index, "cross encoder")[0] == 1
    assert keys(index, "crossencoder") == [1]


def test_a_joined_form_does_not_make_a_chunk_longer():
    joined = CourseTerms.build([("a cross-encoder model", chunk(1, 0))])
    apart = CourseTerms.build([("a cross encoder model", chunk(1, 0))])
    assert joined.lengths.tolist() == apart.lengths.tolist() == [3.0]
    assert "crossencoder" in joined.postings and "crossencoder" not in apart.postings


def test_spelling_leaves_a_compound_whole():
    speller = Speller(Counter({"model": 9, "retrieval": 3, "hypothesis": 2}))
    assert speller.corrected("multi-modal retrieval") == "multi-modal retrieval"
    assert speller.corrected("a hypotesis") == "a hypothesis"


def test_words_written_apart_are_joined_as_the_library_writes_them():
    speller = Speller(
        Counter({"reranker": 3, "re": 2, "ranking": 4, "cross": 1, "encoder": 2, "crossencoder": 1})
    )
    # "ranker" alone is no word of the library; "reranker" is.
    assert speller.corrected("why use a re ranker?") == "why use a reranker?"
    # Both words are the library's own: left apart (the keyword search finds the joined word too).
    assert speller.corrected("a cross encoder and re ranking") == "a cross encoder and re ranking"


def test_a_passage_says_a_compound_joined_too():
    assert {"crossencoder", "cross", "encoder"} <= passage_words(passage_of("A cross-encoder scores pairs."))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("the id and the ego", ["id", "ego"]),
        ("is a vector db fast?", ["vector", "db", "fast"]),
        ("so we'll go up, um, if it's ok", []),
        ("AI on ML", ["ai", "ml"]),
    ],
)
def test_a_two_letter_word_naming_something_is_a_content_word(text, words):
    assert content_words(text) == words


def test_search_finds_a_compound_however_it_is_written(tmp_path):
    index = CourseIndex(settings_for(tmp_path))
    lessons = {
        1: "An encoder turns a sentence into a vector; the encoder of a transformer reads the whole sentence "
        "at once and encodes it.",
        2: "Sorting the shortlist again costs time. We pass each pair to a cross-encoder, which is slow but "
        "precise, and keep the best ten.",
        3: "Encoders and decoders: the decoder writes text while the encoder reads it, and cross attention "
        "joins the two.",
        4: "Ranking the teams by points decides who plays the final; a ranked list is sorted by score.",
    }
    index_course(index, course_file("Search Basics", lessons, "search.txt"))
    # Were "cross-encoder" two words only, the lessons about encoders would come first for each of these.
    for query in (
        "what does a cross-encoder do?",
        "what does a crossencoder do?",
        "what does a cross encoder do?",
    ):
        assert index.search(query, k=3)[0].lesson_number == 2, query


def even(words: list[str], *_: object) -> dict[str, float]:
    """The same rarity and meaning for every word."""
    return dict.fromkeys(words, 1.0)


def test_a_compound_written_apart_in_the_passage_counts_as_said():
    question = "what is top-k retrieval?"
    words = content_words(question)
    assert words == ["top", "retrieval", "topk"]
    said = signals(
        question, words, [passage_of("Retrieval returns the top k chunks.")], even, lambda _, w: even(w)
    )
    assert said.coverage == 1.0
    # A passage saying neither the compound nor one of its parts is judged by the parts alone: half of them.
    half = signals(
        question, words, [passage_of("Retrieval returns the best chunks.")], even, lambda _, w: even(w)
    )
    assert half.coverage == pytest.approx(0.5)
