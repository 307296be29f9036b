"""A reply that opens a passage answers the question the chunk before it closes on."""

from __future__ import annotations

import pytest

from app.assistant.extractive.asked_before import chunks_before, opening_replies
from app.assistant.extractive.quotes import lead, more
from app.assistant.extractive.referents import overlap
from app.assistant.extractive.scoring import SentenceScorer
from app.assistant.extractive.sentences import is_question
from app.search.models import Passage

# A captioned lecture cut in two chunks between the lecturer's question and a student's reply: "Um," has no
# stop after it, so the first chunk says it as the start of the reply, which the second chunk opens with.
ASKED = (
    "So the old mill by the river kept grinding all through the winter. "
    "Every other mill on the river froze solid by December. "
    "Why didn't the old mill freeze in the winter. "
    "Why didn't it? "
    "Yes, you at the back. "
    "Um, the miller kept the wheel turning day and night so the ice never set."
)
REPLY = "the miller kept the wheel turning day and night so the ice never set."
ANSWERED = f"{REPLY} Okay. Now the price of flour rose in the towns that spring. Bakers paid more for grain."
# A passage on the subject's words that says nothing of how it was done.
AROUND = (
    "Mills on a frozen river stop in winter. "
    "A frozen wheel cannot turn, so the mill stands still. "
    "Rivers freeze in the north every year."
)
QUESTION = "how did the old mill avoid freezing in winter?"


def passage(text: str, score: float, chunk: int, lesson: int = 3) -> Passage:
    """A search hit of made-up lecture captions."""
    return Passage(
        course_title="Rivers and Mills",
        lesson_number=lesson,
        lesson_title="Winter",
        chunk_index=chunk,
        score=score,
        text=text,
    )


def fetch_from(*held: Passage):
    """A `CourseIndex.chunks_at` over the given chunks, which counts the places asked for."""
    asked: list[tuple[str, int, int]] = []

    def fetch(topic: str, places: list[tuple[str, int, int]]) -> list[Passage]:
        asked.extend(places)
        return [found for found in held if found.place in places]

    return fetch, asked


def test_a_reply_opening_a_passage_is_quoted_as_the_answer_to_the_question_before_it(scorer):
    before, found = passage(ASKED, 0.45, chunk=6), [passage(AROUND, 0.6, chunk=2), passage(ANSWERED, 0.45, 7)]
    fetch, asked = fetch_from(before)
    reading = SentenceScorer(scorer.embedder, fetch).quotes(QUESTION, found)
    opening = lead(reading, False)
    assert REPLY in [quote.sentence for quote in opening + more(reading, opening)]
    assert ("Rivers and Mills", 3, 6) in asked
    # Read alone, the reply shares no word with the question and is not quoted.
    alone = scorer.quotes(QUESTION, found)
    opening = lead(alone, False)
    assert REPLY not in [quote.sentence for quote in opening + more(alone, opening)]


def test_only_the_questions_the_chunk_before_closes_on_are_read():
    before, after = passage(ASKED, 0.45, chunk=6), passage(ANSWERED, 0.45, 7)
    candidates = [(after, 0, REPLY), (after, 2, "Now the price of flour rose in the towns that spring.")]
    replies = opening_replies(candidates, {before.place: before})
    assert [question[2] for question in replies[0]] == [
        "Why didn't it?",
        "Why didn't the old mill freeze in the winter.",
    ]
    assert 1 not in replies  # it follows a sentence that says something: no reply
    # A question the passage says itself is the passage's own (`replies` reads it there).
    own = passage(f"Why didn't it? Yes, you at the back. {REPLY}", 0.45, 7)
    assert opening_replies([(own, 2, REPLY)], {before.place: before}) == {}


def test_the_chunk_before_is_the_one_found_or_else_read():
    first, second, third = (passage(f"Sentence {n} of the mill.", 0.4, chunk=n) for n in (4, 5, 9))
    fetch, asked = fetch_from(passage("Sentence eight.", 0.3, chunk=8))
    before = chunks_before([first, second, third], lambda places: fetch("", places))
    assert before[("Rivers and Mills", 3, 4)] is first
    assert before[("Rivers and Mills", 3, 8)].text == "Sentence eight."
    assert ("Rivers and Mills", 3, 3) not in before
    assert asked == [("Rivers and Mills", 3, 3), ("Rivers and Mills", 3, 8)]


def test_a_sentence_run_on_into_the_next_chunks_first_is_their_overlap():
    earlier = ["Why didn't it?", "Yes, you at the back.", f"Um, {REPLY}"]
    assert overlap(earlier, [REPLY, "Okay."]) == 1
    assert overlap(earlier, ["Okay.", REPLY]) == 0
    assert (
        overlap(["The wheel.", "It turns.", "It never stops."], ["It turns.", "It never stops.", "So."]) == 2
    )


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("What's a mill race, somebody, uh, yeah.", True),  # the captions lost its "?"
        ("Who's the miller in the story.", True),
        ("So how's it kept from freezing.", True),
        ("What's interesting is the wheel.", False),  # a statement: no subject after "what's"
        ("What's more, the wheel never stopped.", False),
    ],
)
def test_a_question_opening_on_a_contracted_question_word_asks_without_its_question_mark(sentence, asks):
    assert is_question(sentence) is asks
