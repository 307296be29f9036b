"""One half of a comparison quotes what says its words; a short form or a code name's words say it too."""

from __future__ import annotations

from app.assistant.extractive.keywords import keyword_share
from app.assistant.extractive.quotes import more_of
from app.assistant.extractive.scoring import Quote
from app.language.tokens import content_words
from app.search.models import Passage


def passage(lesson: int, chunk: int = 0, score: float = 0.5) -> Passage:
    """A search hit of made-up course text (the sentences are scored by hand below)."""
    return Passage(
        course_title="Orchard Keeping",
        lesson_number=lesson,
        lesson_title="Pruning",
        chunk_index=chunk,
        score=score,
        text="x",
    )


def scored(sentence: str, score: float, where: Passage, position: int, shared: float) -> Quote:
    """A sentence with its rank score and the share of the half's words it says."""
    return Quote(where, position, sentence, similarity=0.35, score=score, shared=shared)


def test_a_half_quotes_the_sentence_of_its_lesson_that_says_its_words_though_it_scores_lower():
    here, there = passage(2), passage(3)
    found = [
        scored(
            "The best time for pruning apple trees is late winter, before the buds open.", 0.60, here, 0, 1.0
        ),
        scored("Ladders need a firm footing on soft ground.", 0.45, here, 1, 0.0),
        scored(
            "Pruning apple trees is measured by the light that reaches the inner branches.",
            0.45,
            here,
            2,
            1.0,
        ),
        scored("Pruning apple trees in another lesson says the same words.", 0.55, there, 0, 1.0),
    ]
    chosen = [quote.sentence for quote in more_of(found, found[:1])]
    # Too far below the lead to be quoted for closeness, it says every word of the half; the sentence of
    # the lesson that says none of them, and the other lesson's, stay out.
    assert chosen == [found[2].sentence]


def test_sentences_close_to_the_lead_keep_their_places_before_those_that_say_the_words():
    here = passage(2)
    found = [
        scored("The best time for pruning apple trees is late winter.", 0.60, here, 0, 1.0),
        scored("Cut the crossing branches first, then the ones growing inward.", 0.55, here, 1, 0.5),
        scored("Pruning apple trees is measured by the light that reaches inside.", 0.45, here, 2, 1.0),
        scored("Pruning apple trees too hard makes water sprouts.", 0.44, here, 3, 1.0),
    ]
    chosen = [quote.sentence for quote in more_of(found, found[:1], limit=2)]
    assert chosen == [found[1].sentence, found[2].sentence]


def share(topic: str, sentence: str) -> float:
    """The share of the made-up topic's keywords that the sentence says, in a lesson of made-up text."""
    return keyword_share(set(content_words(topic)), topic, passage(1), sentence)


def test_a_code_name_is_said_by_its_words_side_by_side_not_by_one_of_them():
    topic = "call make_tree in the orchard"
    together = share(topic, "The orchard script calls make tree once per row.")
    # Both words, but apart: another thing.
    alone = share(topic, "The orchard script calls make on every tree it finds.")
    assert together > alone
