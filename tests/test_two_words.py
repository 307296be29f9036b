"""A word a question writes as one that a transcript writes as two ("minibatch": "mini batch")."""

from __future__ import annotations

from app.assistant.extractive.confidence import signals
from app.language.tokens import content_words
from app.language.two_words import said_apart, split
from tests.test_compounds import SHOP, even, keys, keyword_index, passage_of


def test_a_word_is_split_into_two_words_the_library_says():
    said = {"mini", "batch", "auto", "encoder", "sun", "flower"}.__contains__
    assert split("minibatching", said) == ("mini", "batching")
    assert split("autoencoders", said) == ("auto", "encoders")
    # Halves shorter than three letters or stopwords never count: "in" + "formation" is no compound.
    assert split("information", {"formation", "in"}.__contains__) is None
    assert split("sunflower", said) == ("sun", "flower")
    assert split("pytorch", said) is None


def test_a_passage_says_a_compound_when_it_says_both_halves_side_by_side():
    assert said_apart("minibatching", "We average over a mini batch of examples.")
    assert said_apart("minibatch", "Mini batch sizes are small.")
    # Both halves, but not together: not the compound.
    assert not said_apart("minibatch", "A batch of mini examples.")


def test_search_finds_a_compound_the_library_writes_apart():
    index = keyword_index(
        "Take the gradient over a mini batch of data points.",
        "Our batch jobs run at night.",
        "The weather is mild.",
    )
    # The library never writes "minibatching": without its halves the query would find nothing.
    assert keys(index, "minibatching")[0] == 1


def test_a_compound_said_apart_counts_as_said_for_the_decline():
    question = "what is minibatching?"
    words = content_words(question)
    assert words == ["minibatch"]
    apart = [passage_of("We average the gradient over a mini batch.")]
    assert signals(question, words, apart, even, lambda _, w: even(w)).coverage == 1.0
    elsewhere = [passage_of("We average the gradient over a batch of mini examples.")]
    assert signals(question, words, elsewhere, even, lambda _, w: even(w)).coverage == 0.0


def test_an_english_word_is_never_taken_for_two():
    index = keyword_index("Edison was an inven ted genius.", "The fund holds the money.")
    # Unknown to the vocabulary, "invented" would be searched as its halves "inven" + "ted" ...
    assert keys(index, "invented") == [1]
    # ... but it is an English word: not a compound, and the library never says it.
    assert index.ranked("invented", SHOP, ["shop"], None, 10, frozenset({"invented"})) == []


def test_halves_no_chunk_says_together_are_no_compound():
    index = keyword_index("The sub was late.", "A field of wheat.", "Mini golf.")
    # "sub" and "field" are said, but never in one passage: "subfields" is not searched as them.
    assert keys(index, "subfields") == []
