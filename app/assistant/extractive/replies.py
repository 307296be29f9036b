"""The sentences that may answer, and which question of the lecturer's each replies to. A lecturer asks and
the answer follows: at once ("So what did he do? He burned his ships."), or after the question asked again
in other words, the call on a student and a hesitation ("Why doesn't the bread rise. Why doesn't it?
Yes, you at the back. Um, the yeast was dead …")."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Protocol, TypeVar

from app.assistant.extractive.fitted import fitted
from app.assistant.extractive.sentences import FILLER_STOPWORDS, acknowledges, announces, calls_on, is_filler
from app.language.tokens import content_words, tokens

# A sentence shorter than this answers only when it shares the topic's words or replies to a question.
MIN_WORDS = 4
# The reply to a question scores at least the question's score less INHERIT_GAP.
INHERIT_GAP = 0.02
# Announcing what comes next ("let's start with uncertainty") is not saying it: it must not take a further
# quote's place from a sentence that says it (fitted by `python -m bench.fit`).
ANNOUNCE_PENALTY = fitted("ANNOUNCE_PENALTY")
# Sentences that say nothing (the call on a student, a hesitation) that may stand between a question and its
# reply, and the questions in a row that one reply answers.
MAX_BETWEEN = 3
MAX_ASKED = 3
SILENCE_CACHE_SIZE = 8192


class Spoken(Protocol):
    """A sentence and whether it asks, as far as finding what a reply answers reads it."""

    @property
    def sentence(self) -> str: ...  # noqa: D102

    @property
    def asks(self) -> bool: ...  # noqa: D102


class Said(Spoken, Protocol):
    """A scored sentence, as far as replies read it."""

    @property
    def embedded(self) -> bool: ...  # noqa: D102

    @property
    def score(self) -> float: ...  # noqa: D102

    @property
    def similarity(self) -> float: ...  # noqa: D102


class Candidate(Said, Protocol):
    """A scored sentence with its place and kind, as `answers` reads it."""

    @property
    def passage(self) -> object: ...  # noqa: D102

    @property
    def position(self) -> int: ...  # noqa: D102

    @property
    def filler(self) -> bool: ...  # noqa: D102

    @property
    def shared(self) -> float: ...  # noqa: D102


S = TypeVar("S", bound=Said)
T = TypeVar("T", bound=Spoken)
C = TypeVar("C", bound=Candidate)


def answers(quotes: list[C]) -> list[tuple[C, float, float]]:
    """The sentences that may answer, each with its score and closeness to the question as an answer.

    Not a question, not filler, read for meaning, and of some length unless it shares the topic's words or
    replies to a question: a reply scores as that question, read or not. Announcing what comes next costs a
    little.
    """
    passages: dict[int, dict[int, C]] = {}
    for quote in quotes:
        passages.setdefault(id(quote.passage), {})[quote.position] = quote
    found = []
    for quote in quotes:
        asked = asked_by(passages[id(quote.passage)].get, quote.position)
        if not (quote.embedded or asked) or quote.asks or quote.filler:
            continue
        if len(tokens(quote.sentence)) < MIN_WORDS and not (asked or quote.shared):
            continue
        score = quote.score - (ANNOUNCE_PENALTY if announces(quote.sentence) else 0.0)
        if asked is None:
            found.append((quote, score, quote.similarity))
        else:
            found.append(
                (quote, max(score, asked.score - INHERIT_GAP), max(quote.similarity, asked.similarity))
            )
    return found


def questions_before(sentence_at: Callable[[int], T | None], position: int) -> list[T]:
    """The questions the sentence at `position` of a passage replies to (`sentence_at` reads the passage):
    the run of questions just before it, past at most MAX_BETWEEN sentences that say nothing."""
    at = position - 1
    while position - 1 - at < MAX_BETWEEN and _says_nothing(said := sentence_at(at), sentence_at(at - 1)):
        if said is not None and _silence(said.sentence)[2]:
            return []  # the answer was given ("Perfect."): what follows moves on
        at -= 1
    asked: list[T] = []
    before = sentence_at(at)
    while before is not None and before.asks and len(asked) < MAX_ASKED:
        asked.append(before)
        at -= 1
        before = sentence_at(at)
    return asked


def asked_by(sentence_at: Callable[[int], S | None], position: int) -> S | None:
    """The question read for meaning that the sentence at `position` answers and scores as: the best of
    those it replies to (a question asked twice is answered once); None when it replies to none."""
    read = [question for question in replied(sentence_at, position) if question.embedded]
    return max(read, key=lambda question: question.score, default=None)


def replied(sentence_at: Callable[[int], T | None], position: int) -> list[T]:
    """The questions the sentence at `position` replies to (`questions_before`); none when it says nothing
    itself: the call on a student or a hesitation answers nothing."""
    if _says_nothing(sentence_at(position), sentence_at(position - 1)):
        return []
    return questions_before(sentence_at, position)


def _says_nothing(said: Spoken | None, before: Spoken | None) -> bool:
    """True for the call on a student and a hesitation ("Um.", "Yup."); a sentence of a single word of
    content says nothing too, unless it comes right after the question, which it then answers ("It's an
    externality.")."""
    if said is None or said.asks:
        return False
    nothing, filler, _ = _silence(said.sentence)
    return nothing or (filler and not (before is not None and before.asks))


@lru_cache(maxsize=SILENCE_CACHE_SIZE)
def _silence(sentence: str) -> tuple[bool, bool, bool]:
    """Whether the sentence says nothing at all (a call on a student, no word of content), is filler, and
    acknowledges an answer; kept, as every answer reads its sentences' neighbours again."""
    nothing = calls_on(sentence) or not content_words(sentence, FILLER_STOPWORDS)
    return nothing, is_filler(sentence), acknowledges(sentence)
