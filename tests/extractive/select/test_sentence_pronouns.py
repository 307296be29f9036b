"""A sentence that speaks of the question's subject by a pronoun is read with the subject in its place."""

from __future__ import annotations

from app.assistant.extractive.quotes import lead, more
from app.assistant.extractive.referents import stand_ins
from app.search.models import Passage

# A lecturer names the poet, then goes on with "he": the answer to where he lived names no one.
POET = (
    "Now, for better or worse, we all live in a world shaped by the poet Ovid. "
    "Ask anyone to name a Roman poet and the answer most of you give is Ovid. "
    "He was born over two thousand years ago. "
    "He spent most of his life in Rome, and he died far away on the shore of the Black Sea. "
    "He is famous for one long poem about change."
)


def passage(text: str, score: float, chunk: int = 0, lesson: int = 2) -> Passage:
    """A search hit of made-up course text."""
    return Passage(
        course_title="Poets of Rome",
        lesson_number=lesson,
        lesson_title="The Poets",
        chunk_index=chunk,
        score=score,
        text=text,
    )


def quoted(scorer, question: str, passages: list[Passage]) -> list[str]:
    """The sentences an answer quotes: its lead and the few more."""
    found = scorer.quotes(question, passages)
    opening = lead(found, False)
    return [quote.sentence for quote in opening + more(found, opening)]


def test_he_stands_for_the_person_the_sentences_before_name(scorer):
    legacy = passage("Ovid is still read in the schools and admired in the museums.", 0.5, lesson=5)
    sentences = quoted(scorer, "what city did ovid live in", [passage(POET, 0.63), legacy])
    assert any(sentence.startswith("He spent most of his life in Rome") for sentence in sentences)


def test_he_is_read_as_the_name_and_it_as_the_subject_of_the_sentence_before():
    read = stand_ins([(passage(POET, 0.6), 3, POET.split(". ")[3] + ".")], "what city did ovid live in")
    assert read[0][0].startswith("ovid spent most of his life in Rome")
    assert read[0][1].startswith("Ask anyone to name a Roman poet")
    dough = "Kneading builds the gluten of the dough. It's slow work by hand."
    read = stand_ins([(passage(dough, 0.6), 1, "It's slow work by hand.")], "is kneading worth the effort")
    assert read[0][0] == "kneading is slow work by hand."


def test_it_may_stand_for_the_subject_that_closed_the_previous_chunk(scorer):
    first = passage("Proofing is the rest before baking. Slow proofing lets the dough rise for hours.", 0.42)
    second = passage(
        "It is a poor way to make bread quickly: it needs a warm room, it cannot be rushed, "
        "and it ties up the "
        "oven. Slow proofing suits a loaf baked the next morning.",
        0.42,
        chunk=1,
    )
    other = passage(
        "A quick bread skips the long rest and rises in the oven with baking soda. "
        "Most recipes for a quick bread say so.",
        0.45,
        lesson=3,
    )
    question = "why not just use slow proofing instead of a quick bread?"
    sentences = quoted(scorer, question, [other, first, second])
    assert sentences[0].startswith("It is a poor way to make bread quickly")


def test_an_object_a_verb_or_a_sentence_too_far_back_is_no_stand_in():
    # "it" stands for the subject of the sentence before, not for what that sentence ends on.
    ends_on = "The baker shapes every loaf by hand. It is a slow skill to learn."
    assert (
        stand_ins([(passage(ends_on, 0.6), 1, "It is a slow skill to learn.")], "how is a loaf shaped") == {}
    )
    # "bake" is what the question asks done, not a thing a pronoun can stand for.
    verb = "Bake times vary by oven. It is best to check the crust."
    assert (
        stand_ins([(passage(verb, 0.6), 1, "It is best to check the crust.")], "how should I bake bread")
        == {}
    )
    # "it" stands for the subject of the sentence right before it, not of one further back.
    far = "Rye makes a dense loaf. Many bakers like that. It keeps for a week."
    assert stand_ins([(passage(far, 0.6), 2, "It keeps for a week.")], "how long does rye keep") == {}


def test_a_pronoun_sentence_that_adds_nothing_asked_is_not_lifted(scorer):
    text = "Sourdough is bread raised by wild yeast. It is worth a look. It rises slowly over a whole night."
    found = {
        quote.sentence: quote
        for quote in scorer.quotes("how long does sourdough take to rise", [passage(text, 0.6)])
    }
    plain = scorer.embedder.embed_query("how long does sourdough take to rise")
    alone = scorer.vectors.get(["It is worth a look."])[0]
    # Read as "sourdough is worth a look" it says only the subject: it keeps its own closeness.
    assert abs(found["It is worth a look."].similarity - float(plain @ alone)) < 1e-6
    assert found["It rises slowly over a whole night."].similarity > found["It is worth a look."].similarity
