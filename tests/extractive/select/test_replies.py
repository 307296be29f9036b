"""The reply to a lecturer's question is quoted: a question whose "?" the captions lost still asks, and the
reply may come after the call on a student and a hesitation."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.assistant.extractive.quotes import lead, more
from app.assistant.extractive.replies import MAX_BETWEEN, asked_by, questions_before
from app.assistant.extractive.scoring import Quote
from app.assistant.extractive.sentences import acknowledges, calls_on, is_filler, is_question
from app.search.models import Passage

# A captioned lecture: the lecturer's question lost its "?", is asked again, a student is called on and
# hesitates, then answers.
FLOODS = (
    "So the village was flooded every spring and the farmers kept losing their crops. "
    "Then one year the spring flood came and the harvest was saved. "
    "Why didn't the flood ruin the harvest that year. "
    "Why didn't it? "
    "Yeah, the woman in the back. "
    "Um. "
    "The farmers had dug channels that carried the water around the fields. "
    "Okay, so that's the story of the village."
)
REPLY = "The farmers had dug channels that carried the water around the fields."


def passage(text: str, title: str = "Villages") -> Passage:
    """A search hit of made-up lecture captions."""
    return Passage(
        course_title="History Lectures",
        lesson_number=1,
        lesson_title=title,
        chunk_index=0,
        score=0.6,
        text=text,
    )


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("Why doesn't the dam hold in the film.", True),  # the captions lost its "?"
        ("So how do we check that.", True),
        ("What is the famous example?", True),
        ("What we're going to do is look at it.", False),  # no auxiliary after the question word
        ("How much it costs depends on the load.", False),
        ("When I was young I lived by the sea.", False),
        ("So what do you do is you measure it.", False),  # the question word opens a cleft's subject
        ("Why don't we start with an example.", False),  # a suggestion
        ("He burned his boats, right?", False),
    ],
)
def test_a_sentence_that_opens_as_a_question_asks_without_its_question_mark(sentence, asks):
    assert is_question(sentence) is asks


@pytest.mark.parametrize(
    ("sentence", "calls"),
    [
        ("Yeah, the woman in the red scarf.", True),
        ("Yes, you at the back.", True),
        ("The farmers had dug channels around the fields.", False),
        ("Thank you.", False),
    ],
)
def test_handing_the_word_to_a_student_is_a_call(sentence, calls):
    assert calls_on(sentence) is calls


@pytest.mark.parametrize(
    ("sentence", "acknowledged"),
    [
        ("Perfect.", True),
        ("Good, exactly.", True),
        ("Yup.", False),  # a hesitation, not an acknowledgment
        ("The correct answer is induction.", False),
    ],
)
def test_acknowledging_an_answer_says_nothing_of_the_subject(sentence, acknowledged):
    assert acknowledges(sentence) is acknowledged
    assert is_filler(sentence) is (sentence != "The correct answer is induction.")


@dataclass(frozen=True)
class Line:
    """A scored sentence, as far as replies read it."""

    sentence: str
    asks: bool = False
    embedded: bool = True
    score: float = 0.5
    similarity: float = 0.5


FIRST = Line("Why didn't the flood ruin the harvest.", asks=True, score=0.7)
AGAIN = Line("Why didn't it?", asks=True, score=0.3)
CALL = Line("Yeah, the woman in the back.")
UM = Line("Um.")
ONE_WORD = Line("Channels.")  # a word of content: said right after the question it is the reply
SAYS = Line("The farmers had dug channels around the fields.")


def replied(lines: list[Line]) -> list[Line]:
    """The questions a sentence after these lines replies to."""
    return questions_before(lambda at: lines[at] if 0 <= at < len(lines) else None, len(lines))


def test_a_reply_answers_the_questions_just_before_it_past_a_call_and_hesitation():
    assert replied([SAYS, FIRST, AGAIN, CALL, ONE_WORD, UM]) == [AGAIN, FIRST]
    lines = [SAYS, FIRST, AGAIN, CALL, UM]
    assert asked_by(lambda at: lines[at] if 0 <= at < len(lines) else None, len(lines)) is FIRST


@pytest.mark.parametrize(
    "lines",
    [
        [FIRST, SAYS],  # something was said in between
        [FIRST, ONE_WORD],  # the one word right after the question was its reply
        [FIRST] + [UM] * (MAX_BETWEEN + 1),  # too long a pause
        [FIRST, CALL, Line("Perfect.")],  # the answer was given, off the captions: what follows moves on
    ],
)
def test_the_reply_ends_at_what_says_something_or_too_long_a_pause(lines):
    assert replied(lines) == []


# The same in a film told in class: the reply shares no word with the student's question.
BANK = (
    "So in the film the town's bank had a run on it. "
    "Everyone rushed in to pull their savings out. "
    "And luckily the bank did not go under. "
    "Why didn't the bank go under in the film. "
    "Why didn't it? "
    "Yeah, the guy in the green shirt. "
    "Um. "
    "Each depositor agreed to withdraw only what they needed that week. "
    "Okay, so that's the film."
)
BANK_REPLY = "Each depositor agreed to withdraw only what they needed that week."


@pytest.mark.parametrize("title", ["Money", "Bank Runs"])  # in "Bank Runs" every sentence shares its words
def test_the_reply_after_a_call_on_a_student_is_quoted(scorer, title):
    found = scorer.quotes("how did the bank in the film survive the run?", [passage(BANK, title)])
    assert next(quote for quote in found if quote.sentence.startswith("Why didn't the bank")).asks
    reply = next(quote for quote in found if quote.sentence == BANK_REPLY)
    assert reply.similarity < 0.25  # on its own, too far from the question to be quoted
    opening = lead(found, False)
    assert BANK_REPLY in [quote.sentence for quote in opening + more(found, opening)]


def said(where: Passage, position: int, sentence: str, score: float, **kind) -> Quote:
    """A scored sentence without an embedding model, for the lead's arithmetic."""
    return Quote(where, position, sentence, similarity=score, score=score, **kind)


def test_a_reply_scores_as_its_question_though_not_read_for_meaning():
    lecture, other = passage(FLOODS), passage("Floods came to the village every spring.")
    found = [
        said(lecture, 0, "Why didn't the flood ruin the harvest that year.", 0.7, asks=True),
        said(lecture, 1, "Yeah, the woman in the back.", 0.1, embedded=False),
        said(lecture, 2, REPLY, 0.1, embedded=False),
        said(other, 0, "Floods came to the village every spring.", 0.5),
    ]
    assert REPLY in [quote.sentence for quote in lead(found, False)]


def test_a_reply_that_scores_low_on_its_own_is_no_reason_to_decline():
    lecture = passage(FLOODS)
    found = [
        said(lecture, 0, "Why didn't the flood ruin the harvest that year?", 0.7, asks=True),
        said(lecture, 1, REPLY, 0.2),
    ]
    assert [quote.sentence for quote in lead(found, False)] == [REPLY]


def test_a_reply_at_its_passages_end_is_quoted_without_the_call_before_it():
    lecture = passage(FLOODS)
    found = [
        said(lecture, 0, "So the village was flooded every spring.", 0.3),
        said(lecture, 1, "Why didn't the flood ruin the harvest that year?", 0.7, asks=True),
        said(lecture, 2, "Yeah, the woman in the back.", 0.1),
        said(lecture, 3, "Um.", 0.1),
        said(lecture, 4, REPLY, 0.3),
    ]
    assert [quote.sentence for quote in lead(found, False)] == [REPLY]
