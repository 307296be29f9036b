"""Choosing the sentence that answers: not the lecturer's question, not filler, with its context."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.assistant.extractive import quotes, replies, scoring
from app.assistant.extractive.definitions import subject
from app.assistant.extractive.intent import defined_term
from app.assistant.extractive.quotes import lead, more
from app.assistant.extractive.scoring import Quote, SentenceScorer
from app.assistant.extractive.sentences import is_filler, is_question, root
from app.search.models import Passage
from tests.helpers import CountingEmbedder

# A spoken passage in the way lectures are transcribed: filler, a question asked aloud, then its answer.
LECTURE = (
    "All right. So the army had crossed the sea and landed on a hostile shore. "
    "The enemy was larger and the soldiers wanted to sail home. "
    "So what did the general do to stop his soldiers from retreating? "
    "He burned his boats, right? "
    "With no boats left there was no way home, so his soldiers had to fight. "
    "Okay, so, um, let's see."
)
QUESTION = "What did the general do to stop his soldiers from retreating?"


def passage(text: str, score: float, lesson: int = 1, chunk: int = 0, title: str = "Commitment") -> Passage:
    """A search hit of made-up course text."""
    return Passage(
        course_title="Strategy Lectures",
        lesson_number=lesson,
        lesson_title=title,
        chunk_index=chunk,
        score=score,
        text=text,
    )


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("So what did the general do?", True),
        ("He burned his boats, right?", False),  # a closing tag does not make a question
        ("Is that clear, okay?", False),
        ("Which lion eats first?", True),
        ("The lion eats first.", False),
    ],
)
def test_a_question_ends_in_a_question_mark_that_is_no_closing_tag(sentence, asks):
    assert is_question(sentence) is asks


@pytest.mark.parametrize(
    ("sentence", "filler"),
    [
        ("All right.", True),
        ("Okay, so, um, let's see.", True),
        ("So this is the thing, right?", True),
        ("He burned his boats.", False),
        ("There's an externality.", True),  # kept only after a question or sharing the question's words
    ],
)
def test_filler_has_fewer_than_two_words_of_content(sentence, filler):
    assert is_filler(sentence) is filler


def test_the_lecturers_question_is_not_quoted_but_its_answer_is(scorer):
    found = scorer.quotes(QUESTION, [passage(LECTURE, 0.6)])
    asked = next(quote for quote in found if quote.asks)
    # The question echoes the student's words: by meaning alone it is the closest sentence.
    assert asked.similarity == max(quote.similarity for quote in found)
    chosen = lead(found, False) + more(found, lead(found, False))
    sentences = [quote.sentence for quote in chosen]
    assert sentences[0] == "He burned his boats, right?"
    assert not any(quote.asks or quote.filler for quote in chosen)


def test_a_short_answer_after_a_question_is_kept_though_it_shares_no_word(scorer):
    found = scorer.quotes(
        "Why is the effort too low in the partnership?",
        [
            passage(
                "Each partner bears the whole cost of extra effort but gets only half the profit. "
                "So what is the general term economists use for this? "
                "It's an externality. "
                "I don't take into account the benefit to my partner.",
                0.6,
            )
        ],
    )
    answer = lead(found, False)
    assert "It's an externality." in [quote.sentence for quote in answer]


def test_without_the_question_rule_the_question_leads(scorer, monkeypatch):
    # What the rule changes: read as a statement, the question would lead the answer.
    monkeypatch.setattr(scoring, "is_question", lambda sentence: False)
    found = scorer.quotes(QUESTION, [passage(LECTURE, 0.6)])
    assert lead(found, False)[0].sentence.startswith("So what did the general do")


def test_only_likely_sentences_are_embedded(scorer):
    # The best passage is read whole; another passage only where it shares the question's words (and
    # around them): the rest is never embedded.
    counting = CountingEmbedder(scorer.embedder)
    fresh = SentenceScorer(counting)
    unrelated = " ".join(f"Sentence {n} describes the weather over the harbour in spring." for n in range(30))
    found = fresh.quotes(QUESTION, [passage(LECTURE, 0.6), passage(unrelated, 0.3, chunk=1)])
    assert counting.documents == len(scoring.split_sentences(LECTURE))
    assert {quote.embedded for quote in found if quote.passage.chunk_index == 1} == {False}


def made_up(sentence: str, score: float, where: Passage, position: int) -> Quote:
    """A scored sentence without an embedding model, for the lead's arithmetic."""
    return Quote(where, position, sentence, similarity=score, score=score, shared=1.0)


def test_a_definition_leads_when_it_scores_nearly_as_well(monkeypatch):
    first = passage("x", 0.5, chunk=0)
    second = passage("y", 0.5, chunk=1)
    found = [
        made_up("RAG is not magic either.", 0.70, first, 0),
        made_up("If retrieval returns the wrong passages the answer is wrong.", 0.17, first, 1),
        made_up("A bad chunk boundary leaves the answer incomplete.", 0.20, first, 2),
        made_up("Retrieval-augmented generation, or RAG, is the pattern that closes a gap.", 0.49, second, 0),
        made_up("A RAG system has two halves.", 0.62, second, 1),
        made_up("The offline half is ingestion.", 0.20, second, 2),
    ]
    assert lead(found, False, ["rag"])[0].sentence.startswith("Retrieval-augmented generation")
    # Without the preference the best-scoring sentence leads.
    monkeypatch.setattr(quotes, "DEFINITION_GAP", -1.0)
    assert lead(found, False, ["rag"])[0].sentence == "RAG is not magic either."


def test_a_question_about_a_thing_leads_with_its_definition_and_explanation(monkeypatch):
    # "How does a bloom filter work?": the best-ranked passage has a short line repeating the name, which
    # scores high for saying little; the passage that defines the thing and goes on to explain it leads.
    later = passage("x", 0.45, chunk=1)
    defining = passage("y", 0.25, chunk=0)
    sentences = [
        "A bloom filter is a bit array with several hash functions that answers set membership.",
        "Adding an item sets the bit that each hash function points to.",
        "A lookup checks those bits and says no when any of them is unset.",
        "False positives happen when other items happened to set all the bits.",
        "Clearing bits would break other items, so plain filters cannot delete.",
    ]
    scores = [0.41, 0.38, 0.36, 0.30, 0.30]
    found = [
        made_up("Lookups cost a few hash computations whatever the size of the set.", 0.42, later, 0),
        made_up("Two numbers size a bloom filter.", 0.66, later, 1),
        made_up("The bits per item set the false positive rate.", 0.42, later, 2),
    ] + [
        Quote(defining, position, sentence, similarity=0.3, score=score, shared=1.0, defining=position == 0)
        for position, (sentence, score) in enumerate(zip(sentences, scores, strict=True))
    ]
    led = lead(found, False)
    assert [quote.sentence for quote in led] == sentences
    # Extra quotes complete a short sentence with what it introduces.
    assert [quote.sentence for quote in more(found, led)][:2] == [
        "Two numbers size a bloom filter.",
        "The bits per item set the false positive rate.",
    ]
    # Counted per sentence rather than per word, the short line carries its run past the definition.
    monkeypatch.setattr(quotes, "_weighed", quotes._mean)
    assert lead(found, False)[0].passage is later


def test_a_definition_near_its_passages_end_still_leads(monkeypatch):
    # "a bloom filter" as one half of a comparison: the best passage lists kinds of filter in short lines
    # that score high for repeating the name; the passage that says what the thing is ends one sentence
    # after its definition, and that two-sentence run is judged as a run.
    kinds = passage("x", 0.65, chunk=3)
    basics = passage("y", 0.53, chunk=1)
    found = [
        made_up("There are counting filters.", 0.64, kinds, 0),
        made_up("If you want to delete items.", 0.31, kinds, 1),
        made_up("Those are counting filters that keep a number per bit.", 0.57, kinds, 2),
        made_up("We start small with the parts of a set index.", 0.45, basics, 0),
        Quote(
            basics,
            1,
            "Its basic unit appears to be the bloom filter, a bit array with hashes.",
            0.6,
            0.54,
            1.0,
            defining=True,
        ),
        made_up("Each hash function points at one bit.", 0.30, basics, 2),
    ]
    assert lead(found, False)[0].sentence.startswith("Its basic unit")
    # Judged only as a full three-sentence run, the definition would have no run at all.
    monkeypatch.setattr(quotes, "MIN_RUN", quotes.LEAD_SENTENCES)
    assert lead(found, False)[0].passage is kinds


def test_a_further_quote_says_something_rather_than_announcing_it(monkeypatch):
    # The announcement scores a little higher (it names the topic) but says nothing yet.
    opening = passage("x", 0.6, chunk=0)
    later = passage("y", 0.5, chunk=1)
    found = [
        made_up("A bloom filter answers set membership with a bit array.", 0.60, opening, 0),
        made_up("Several hash functions point into that array.", 0.58, opening, 1),
        made_up("A lookup checks the bits those functions point to.", 0.57, opening, 2),
        made_up("Let's start with how a bloom filter hashes its items.", 0.54, later, 0),
        made_up("Each item is hashed three times and sets three bits of the array.", 0.50, later, 1),
    ]
    monkeypatch.setattr(quotes, "MAX_MORE", 1)
    # The penalty is fitted (`bench.fit`): the example sets one larger than the announcement's lead.
    monkeypatch.setattr(replies, "ANNOUNCE_PENALTY", 0.05)
    led = lead(found, False)
    assert [quote.sentence for quote in more(found, led)] == [found[4].sentence]
    # Costing an announcement less, it takes the place of the sentence that says it.
    monkeypatch.setattr(replies, "ANNOUNCE_PENALTY", 0.03)
    assert [quote.sentence for quote in more(found, led)] == [found[3].sentence]


def test_the_subject_of_a_question_about_one_thing():
    assert subject("How does a bloom filter work?") == ["bloom", "filter"]
    # A hyphenated compound is its words once, not its joined form as a third word.
    assert subject("How does a mixer-board work?") == ["mixer", "board"]
    assert subject("How do fixtures share setup between tests in a module?") is None


def test_a_lead_goes_on_to_the_sentence_that_picks_up_its_words_by_a_pronoun(monkeypatch):
    # "What joins the two halves of the bridge?": the lead stops on "the halves are joined"; the sentence
    # after it ("They're joined by …") says by what, though it scores a little lower.
    where = passage("x", 0.6)
    found = [
        made_up("The bridge was built from both banks at once.", 0.70, where, 0),
        made_up("Each half of the bridge rests on its own pier.", 0.62, where, 1),
        made_up("In the end the two halves of the bridge are joined.", 0.50, where, 2),
        made_up("They're joined by a steel keystone lowered from a crane.", 0.45, where, 3),
        made_up("Traffic crossed for the first time in the spring.", 0.20, where, 4),
    ]
    assert lead(found, False)[-1].sentence.startswith("They're joined by a steel keystone")
    # A pronoun alone is not enough: the sentence must repeat a word of the one before.
    found[3] = made_up("It was a cold winter for the crews.", 0.45, where, 3)
    assert lead(found, False)[-1].sentence.startswith("In the end")


def test_the_sentences_after_a_definition_of_the_subject_are_read(scorer):
    # They do not name the subject, but a lead starting at its definition is judged with them.
    best = passage("Three settings size a bloom filter. The first is its number of bits.", 0.6, chunk=1)
    defining = passage(
        "A bloom filter is a bit array that answers set membership. "
        "Adding an item sets the bits its hash functions point to. "
        "A lookup checks those same bits. "
        "Nobody remembers who proposed the idea first. "
        "The weather was mild that year.",
        0.3,
        chunk=0,
    )
    found = scorer.quotes("How does a bloom filter work?", [best, defining])
    read = {quote.position: quote.embedded for quote in found if quote.passage is defining}
    assert [quote.defining for quote in found if quote.passage is defining][0]
    assert read == {0: True, 1: True, 2: True, 3: False, 4: False}


def test_a_lead_goes_past_sentences_that_announce_or_say_nothing(monkeypatch):
    # "How does a siphon work?": the lead's middle announces an example and says nothing; what explains it
    # comes after and shares no word with the question (not even read for meaning).
    where = passage("x", 0.6)
    found = [
        made_up("A siphon moves water over a rim without a pump.", 0.70, where, 0),
        made_up("I'll show you with an example of a garden hose.", 0.40, where, 1),
        made_up("So here's the idea.", 0.30, where, 2),
        made_up("You fill the hose and hold one end in the tank.", 0.35, where, 3),
        Quote(where, 4, "Gravity on the long leg pulls the rest along.", 0.0, 0.0, embedded=False),
        Quote(where, 5, "The flow stops when air gets in.", 0.0, 0.0, embedded=False),
    ]
    assert [quote.position for quote in lead(found, False)] == [0, 1, 2, 3, 4]
    # Counting every sentence, the lead stops before the explanation.
    monkeypatch.setattr(quotes, "MAX_SAYING", 0)
    assert [quote.position for quote in lead(found, False)] == [0, 1, 2, 3]


@pytest.mark.parametrize("asked", ["What is a mixer board?", "What is a mixer-board?", "what's a mixerboard"])
def test_what_is_x_leads_with_what_x_does_however_x_is_spelled(scorer, asked):
    # The definition says what the term does and sits in a lower passage than a sentence using the term.
    studio = passage(
        "Most home studios record with a laptop and a mixer board. The laptop runs the recording software. "
        "Cables run from the microphones to the desk.",
        0.5,
        chunk=0,
    )
    defining = passage(
        "Some studios go further. A mixer-board blends the signals of several microphones into one track. "
        "Each channel has its own level.",
        0.3,
        chunk=2,
    )
    found = scorer.quotes(asked, [studio, defining])
    opening = lead(found, False, defined_term(asked))
    assert opening[0].sentence.startswith("A mixer-board blends")
    # Nothing of the lesson that comes before the definition is quoted after it as more.
    assert all(quote.order > opening[0].order for quote in more(found, opening, defined_term(asked)))


@pytest.mark.parametrize(
    ("words", "one_family"),
    [
        (["retriever", "retrieval", "retrieve"], True),
        (["index", "indexed"], True),
        (["encoder", "encode"], True),
        # Short words keep their endings: "layer" is no "lay", "cache" no "cach".
        (["layer", "lay"], False),
        (["filter", "filt"], False),
    ],
)
def test_words_of_one_family_share_a_root(words, one_family):
    assert (len({root(word) for word in words}) == 1) is one_family


def test_a_sentence_saying_another_word_of_the_questions_family_shares_its_keyword(scorer):
    # "retriever" in the question, "retrieval" in the course: the sentence still says what was asked.
    found = scorer.quotes(
        "How do I build a hybrid retriever?",
        [passage("Hybrid retrieval runs both searches and merges their lists. The weather was mild.", 0.3)],
    )
    assert found[0].shared == pytest.approx(2 / 3)  # "hybrid" and "retriever" are said, "build" is not
    assert lead(found, False)[0].sentence.startswith("Hybrid retrieval")


def test_a_lead_opening_on_a_pronoun_opens_on_the_sentence_it_points_back_to():
    # "What does the nursery course say about hardening off?": the best sentence says "it is slow" of the
    # method the sentence before it names; alone it says of nothing.
    where = passage("x", 0.6)
    found = [
        made_up("Hardening off moves the seedlings outdoors for a few hours each day.", 0.35, where, 0),
        made_up("It is slow, but it keeps the seedlings from scorching.", 0.60, where, 1),
        made_up("Shade cloth halves the sunlight on the trays.", 0.40, where, 2),
        made_up("Water the trays early in the morning.", 0.30, where, 3),
        made_up("Most growers plant out after the last frost.", 0.30, where, 4),
    ]
    assert lead(found, False)[0].sentence.startswith("Hardening off moves")
    # A pronoun that picks up no word of the sentence before is no pointer back to it.
    found[1] = made_up("It is slow, but nothing scorches.", 0.60, where, 1)
    assert lead(found, False)[0].sentence.startswith("It is slow")
    # Nor is a question the lecturer asked before it.
    found[0] = replace(made_up("Why do the seedlings scorch?", 0.35, where, 0), asks=True)
    found[1] = made_up("It is the sun on the seedlings.", 0.60, where, 1)
    assert lead(found, False)[0].sentence.startswith("It is the sun")
