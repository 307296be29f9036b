"""One half of a comparison reads its ten best passages, and four sentences of each for meaning."""

from __future__ import annotations

import pytest

from app.assistant.extractive.budget import MAX_EMBEDDED
from app.assistant.extractive.half_pool import HALF_PASSAGES, half_reading
from app.assistant.extractive.retrieve import search
from tests.extractive.understand.test_comparisons import answerer_over
from tests.helpers import course_text

GRAINS = ("rye", "spelt", "barley", "oats", "millet", "buckwheat", "emmer", "einkorn", "wheat", "teff")
GLAZES = ("celadon", "tenmoku", "shino", "ash", "salt", "crawl", "matte", "crackle", "satin", "gloss")


def lesson(thing: str, kinds: tuple[str, ...], verb: str) -> str:
    """A long lesson: one paragraph (half a passage) per kind, each saying the lesson's subject."""
    kinds = tuple(f"{style} {kind}" for style in ("whole", "sifted") for kind in kinds)
    paragraphs = [
        f"The {kind} {thing} is {verb} in its own way. "
        f"A baker of {kind} learns the {thing} by watching it closely for many seasons. "
        f"Every {kind} {thing} reacts to heat and water differently, and the notes for {kind} fill a book. "
        f"People who try {kind} for the first time are often surprised by the {thing} and its smell. "
        f"Keep a record of each {kind} batch, its weight, its timing and how the {thing} turned out."
        for kind in kinds
    ]
    return "\n\n".join(paragraphs)


CRAFTS = course_text(
    "Crafts of the Kitchen and Kiln", lesson("bread", GRAINS, "baked"), lesson("glaze", GLAZES, "fired")
)


@pytest.fixture(scope="module")
def crafts(tmp_path_factory):
    """An extractive answerer over a course of two long lessons."""
    return answerer_over(tmp_path_factory, "crafts", CRAFTS)


def test_a_half_reads_the_tools_passages_then_its_next_best_up_to_ten(crafts):
    plan = crafts.plan("how is the bread baked vs how is the glaze fired?")

    read = crafts.read_halves(plan)

    assert read is not None and len(read) == 2 and all(one.lead for one in read)
    bread = read[0]
    tool = search(crafts.toolbox, bread.half.topic, None, None).passages
    places = [passage.place for passage in bread.passages]
    # More than the tool's five, the tool's first and in its order, none twice.
    assert len(places) == HALF_PASSAGES > len(tool)
    assert places[: len(tool)] == [passage.place for passage in tool]
    assert len(set(places)) == len(places)


def test_a_half_reading_ten_passages_reads_sixty_sentences_for_meaning():
    assert half_reading([]) == MAX_EMBEDDED
    assert half_reading([object()] * HALF_PASSAGES) == 60  # type: ignore[list-item]
