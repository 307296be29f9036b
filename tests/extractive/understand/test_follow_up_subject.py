"""A follow-up means something in its conversation: a short one that left its subject out is asked again
with the previous subject when its own words find nothing, its pronoun reads as that subject, and a lead
on a passage's last sentence reads on into the next chunk of its lesson."""

from __future__ import annotations

import pytest

from app.assistant.base import Exchange
from app.assistant.extractive import answerer as answerer_module
from app.assistant.extractive.ellipsis import with_subject
from app.assistant.extractive.intent import understand
from app.assistant.extractive.meant import meant
from app.assistant.extractive.quotes import lead
from app.assistant.extractive.scoring import Quote
from app.search.models import Passage

BIKE = "Bicycle Care"
CHAINS = (
    "A bicycle chain wears as grit gets between its rollers. Wipe the chain with a rag before you oil it, "
    "because oil on top of grit grinds the rollers down. Oil the chain when it sounds dry, not by the "
    "calendar: how often depends on the weather and the roads you ride. A chain checker gauge tells you "
    "when the chain has stretched and must be replaced."
)
TYRES = (
    "Tyre pressure is printed on the sidewall as a range. A wider tyre rides well at a lower pressure. "
    "A slow leak shows up as a drop from one ride to the next. Valve caps keep dirt out of the valve. "
    "Tubeless tyres seal small punctures with a liquid sealant, which dries out and needs topping up at an "
    "interval of a few months. A rim tape that has slipped leaves spoke holes bare, and the tube fails at "
    "a fixed spot."
)
ASKED = "how often should I oil the chain?"


@pytest.fixture(scope="module")
def workshop(tmp_path_factory):
    """An extractive answerer over a two-lesson bicycle course."""
    from tests.helpers import Library, titled_course_text

    library = Library(tmp_path_factory.mktemp("workshop"))
    (library.docs / "bike.txt").write_text(titled_course_text(BIKE, ("Chains", CHAINS), ("Tyres", TYRES)))
    return library.synced().answerer()


@pytest.fixture(scope="module")
def previous(workshop):
    """The exchange on oiling the chain, as the answerer made it."""
    first = workshop.answer(ASKED, [])
    assert "not by the calendar" in first.markdown
    return Exchange(question=ASKED, answer=first.markdown, sources=first.sources)


def test_a_short_follow_up_whose_words_find_nothing_asks_about_the_previous_subject(
    workshop, previous, monkeypatch
):
    # "fixed" and "interval" are said, but only of tyres: alone they find nothing that answers.
    follow = workshop.answer("is a fixed interval ok?", [previous])

    assert "not by the calendar" in follow.markdown
    monkeypatch.setattr(answerer_module, "with_subject", lambda *args: None)
    assert not workshop.answer("is a fixed interval ok?", [previous]).sources


def test_a_short_follow_up_naming_what_no_course_says_is_not_carried(workshop, previous):
    plan = understand("and titanium?", workshop.index, previous)

    assert with_subject(plan, previous, workshop.index) is None
    assert not workshop.answer("and titanium?", [previous]).sources


def test_a_follow_up_with_many_words_of_its_own_is_not_carried(workshop, previous):
    plan = understand("is a fixed interval fine for a tubeless tyre?", workshop.index, previous)

    assert with_subject(plan, previous, workshop.index) is None


def test_the_carried_plan_holds_the_previous_subject(workshop, previous):
    plan = understand("is a fixed interval ok?", workshop.index, previous)
    carried = with_subject(plan, previous, workshop.index)

    assert carried is not None and "chain" in carried.context and carried.topic == plan.topic


@pytest.mark.parametrize(
    ("topic", "context", "means"),
    [
        ("why not run it on every file", "linters", "why not run linters on every file"),
        ("how are they cleaned", "chain rollers", "how are chain rollers cleaned"),
        ("is a fixed interval ok", "chain oil", "is a fixed interval ok chain oil"),  # no pronoun
        ("why not run it on every file", "", "why not run it on every file"),  # nothing carried
    ],
)
def test_a_follow_up_means_its_pronoun_as_the_carried_subject(topic, context, means):
    assert meant(topic, context) == means


def passage(chunk: int) -> Passage:
    """A made-up chunk of one lesson."""
    return Passage(
        course_title="Bread", lesson_number=1, lesson_title="Baking", chunk_index=chunk, score=0.5, text="x"
    )


def test_a_lead_on_a_passages_last_sentence_reads_on_into_the_next_chunk():
    first, second = passage(0), passage(1)
    found = [
        Quote(first, 0, "Preheat the oven for an hour.", 0.3, 0.3, 1.0),
        Quote(first, 1, "The stone must be hot through.", 0.3, 0.3, 1.0),
        Quote(first, 2, "A common mistake is to open the oven door early.", 0.7, 0.7, 1.0),
        # The next chunk opens with the overlap (listed under the first chunk already), then goes on.
        Quote(second, 1, "The heat escapes and the loaf stays pale.", 0.2, 0.2, 1.0),
        Quote(second, 2, "Keep the door shut for twenty minutes.", 0.2, 0.2, 1.0),
    ]

    quoted = [quote.sentence for quote in lead(found, False)]

    assert quoted[0].startswith("A common mistake") and "The heat escapes and the loaf stays pale." in quoted
    # Without the next chunk found, the lead reads back within its own passage.
    assert lead(found[:3], False)[0].sentence.startswith("Preheat")


def test_the_carried_words_keep_a_hyphenated_term_whole(workshop):
    # "e" alone is too short to carry, and "bike" alone is any bike.
    asked = "what does an e-bike chain need?"
    previous = Exchange(question=asked, answer=CHAINS, sources=[])
    plan = understand("how is it oiled?", workshop.index, previous)

    assert "e-bike" in plan.context.split()
