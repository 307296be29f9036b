"""Which sentences an answer reads for meaning: the budget goes where the topic's words are said."""

from __future__ import annotations

from app.assistant.extractive.budget import MAX_EMBEDDED, worth_reading
from app.search.models import Passage

RUN = 3


def passage(chunk: int, score: float) -> Passage:
    """A search hit of a made-up orchard course (its sentences are listed by hand below)."""
    return Passage(
        course_title="Orchard Keeping",
        lesson_number=1,
        lesson_title="Pruning",
        chunk_index=chunk,
        score=score,
        text="x",
    )


def listed(*passages: tuple[Passage, list[tuple[str, float]]]) -> tuple[list, list[float]]:
    """Candidates as the scorer lists them (passage by passage) and each one's share of the topic's words."""
    candidates = [
        (where, at, text) for where, sentences in passages for at, (text, _) in enumerate(sentences)
    ]
    shares = [share for _, sentences in passages for _, share in sentences]
    return candidates, shares


def read(candidates: list, shares: list[float]) -> set[str]:
    """The sentences chosen for embedding."""
    chosen = worth_reading(candidates, shares, [False] * len(candidates), RUN)
    assert len(chosen) <= MAX_EMBEDDED
    return {candidates[i][2] for i in chosen}


def chatter(count: int, thing: str = "ladder") -> list[tuple[str, float]]:
    """Sentences of a spoken lecture that say little and share no word with the topic."""
    return [(f"So, um, the {thing} number {n} goes here.", 0.0) for n in range(count)]


def test_the_best_passage_is_read_whole_then_the_sentences_saying_most_of_the_topic():
    best, near, far = passage(0, 0.6), passage(1, 0.5), passage(2, 0.4)
    pruning = "Cut the water shoots back to the collar in late winter."
    candidates, shares = listed(
        (best, chatter(6)),
        (near, [(f"Pruning tools number {n} need oil.", 0.2) for n in range(14)]),
        (far, [*chatter(5, "bucket"), (pruning, 0.8)]),
    )
    chosen = read(candidates, shares)
    assert {text for text, _ in chatter(6)} <= chosen  # the best passage whole, shares or not
    assert pruning in chosen  # a later passage, but it says more of the topic than the fourteen before it
    assert len(chosen) == MAX_EMBEDDED


def test_the_sentence_after_one_saying_the_topic_is_read_with_it():
    best, other = passage(0, 0.6), passage(1, 0.5)
    candidates, shares = listed(
        (best, [("So, um, right.", 0.0)]),
        (other, [("Ladders lean on the trunk.", 0.0), ("Why prune in winter?", 0.5), ("Sap is low.", 0.0)]),
    )
    # The reply to a question that says the topic shares no word with it; the sentence before is read too.
    assert read(candidates, shares) == {
        "So, um, right.",
        "Ladders lean on the trunk.",
        "Why prune in winter?",
        "Sap is low.",
    }


def test_a_definition_is_read_with_the_run_after_it():
    best, other = passage(0, 0.6), passage(1, 0.5)
    candidates, shares = listed(
        (best, [("So, um, right.", 0.0)]),
        (
            other,
            [
                ("A scion is the cut shoot.", 0.5),
                ("It is grafted.", 0.0),
                ("It grows on.", 0.0),
                ("Tea.", 0.0),
            ],
        ),
    )
    defining = [False, True, False, False, False]
    chosen = {candidates[i][2] for i in worth_reading(candidates, shares, defining, RUN)}
    assert chosen == {"So, um, right.", "A scion is the cut shoot.", "It is grafted.", "It grows on."}


def test_nothing_of_a_later_passage_that_shares_no_word_is_read():
    best, other = passage(0, 0.6), passage(1, 0.5)
    candidates, shares = listed((best, [("Prune in winter.", 0.5)]), (other, chatter(4)))
    assert read(candidates, shares) == {"Prune in winter."}


def test_the_passage_nearest_in_meaning_is_read_though_passages_listed_before_it_say_the_word_as_often():
    best, listed_first, nearest = passage(0, 0.50), passage(1, 0.45), passage(2, 0.70)
    count = "Scab strikes about one orchard in ten, mostly in wet springs."
    candidates, shares = listed(
        (best, chatter(8)),
        (listed_first, [(f"Scab on leaf number {n} is brown.", 0.5) for n in range(14)]),
        (nearest, [("How common is scab?", 0.5), ("It's a fair question.", 0.0), (count, 0.5)]),
    )
    chosen = read(candidates, shares)
    assert count in chosen  # the statement of the nearest passage, not its question
    assert {text for text, _ in chatter(8)} <= chosen  # the best passage is still read whole


def test_a_nearest_passage_already_read_changes_nothing():
    best, nearest, later = passage(0, 0.50), passage(1, 0.70), passage(2, 0.45)
    candidates, shares = listed(
        (best, chatter(8)),
        (nearest, [(f"Scab on leaf number {n} is brown.", 0.5) for n in range(10)]),
        (later, [(f"Scab on fruit number {n} is black.", 0.5) for n in range(4)]),
    )
    chosen = read(candidates, shares)
    # Equal shares keep list order: the nearest passage's first ten, then two of the later one.
    assert chosen == {text for text, _ in chatter(8)} | {
        f"Scab on leaf number {n} is brown." for n in range(10)
    } | {
        "Scab on fruit number 0 is black.",
        "Scab on fruit number 1 is black.",
    }


def test_a_larger_budget_reads_more_of_the_sentences_that_say_the_topic():
    passages = [passage(chunk, 0.6 - chunk / 100) for chunk in range(6)]
    candidates, shares = listed(
        *(
            (where, [(f"Pruning cut {where.chunk_index}-{n} heals.", 0.5) for n in range(6)])
            for where in passages
        )
    )
    defining = [False] * len(candidates)

    assert len(worth_reading(candidates, shares, defining, RUN)) == MAX_EMBEDDED
    assert len(worth_reading(candidates, shares, defining, RUN, reading=30)) == 30
