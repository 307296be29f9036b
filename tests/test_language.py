"""The language layer: a text read once into words, compounds and stems, whatever rule asks."""

from __future__ import annotations

from collections import Counter

import pytest

from app.language import tokens as reader
from app.language.tokens import content_words, read, terms, tokens, word_stems


def test_a_reading_holds_the_words_compounds_and_stems_of_a_text():
    reading = read("Re-ranking the passages of two lessons")

    assert reading.words == ("Re", "ranking", "the", "passages", "of", "two", "lessons")
    assert reading.joined == ("Reranking",)
    assert {"rank", "rerank", "passage"} <= reading.stems
    assert reading.content == ("rank", "passage", "two", "rerank")


@pytest.fixture
def calls(monkeypatch) -> Counter[str]:
    """How often the tokenizer ran on each text, from no reading kept."""
    counted: Counter[str] = Counter()
    real = reader.tokenize

    def counting(text: str) -> list[str]:
        counted[text] += 1
        return real(text)

    monkeypatch.setattr(reader, "tokenize", counting)
    read.cache_clear()
    return counted


def test_the_word_functions_answer_from_one_reading_per_text(calls):
    text = "How are glazes fired in a kiln?"

    tokens(text), terms(text), word_stems(text), content_words(text), content_words(text, frozenset())

    assert calls == Counter({text: 1})


@pytest.mark.parametrize("question", ["What is sentence-aware chunking?", "How do fixtures share setup?"])
def test_one_extractive_answer_tokenizes_each_distinct_text_once(services, calls, question):
    answer = services.assistant.answer(question, [])

    assert answer.sources  # the question was answered from the passages
    assert len(calls) > 10  # the question, its passages and their sentences were read
    assert max(calls.values()) == 1
