"""How sure an extractive answer is that the library covers the question: the decline decision.

No fixed cosine carries over between libraries (long spoken chunks score higher against every question than
short written ones), but the share of the question's own words that the first passage holds does, once each
word is weighted by how much it says. A question no course covers names a term the library never uses
("Shapley", "BERT") while its generic words ("game", "course", "explain") match anywhere. Two weights,
multiplied, find the term:
- rarity in the library (BM25's idf): "Shapley" weighs more than "game";
- meaning: how far the question's vector moves when the word is left out. A rare but idle word ("being",
  "twice", "geographically") barely moves it, the topic moves it most. Rarity alone overweights such words
  in a small library, where every generic word is rare.

A share can't tell a subject from its generic half: "the Stanford prison experiment" in a psychology course
that mentions prisons once scores like a covered question. A name settles it: a question naming something
(a capitalised word or an acronym: "Stanford", "BERT", "AWS Lambda") that the courses searched never say, in
any spelling they use, is about something they don't cover.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from app.assistant.extractive.fitted import fitted
from app.language.acronyms import acronym_matches
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import (
    CHAIN_RE,
    HYPHENATED_RE,
    compound,
    compound_parts,
    silent_e,
    stem,
    tokens,
    word_stems,
)
from app.language.two_words import words_said_apart
from app.search.embedding.protocol import Embedder
from app.search.models import Outline, Passage

# Below this confidence the answer declines (fitted by `python -m bench.fit`).
MIN_CONFIDENCE = fitted("MIN_CONFIDENCE")
# A first passage holding this share of the question's rarity is taken as covering it without weighing the
# words' meaning (on both labelled libraries no decision changes; it spares the embedding for half of them).
SURE = 0.5
# Questions whose word weights are kept (a few floats each).
WEIGHTS_KEPT = 1024
# Capitalised words that say who teaches, which part of a course or when, not what it is about: a course
# need not say them ("What did Professor Miller say in the Monday lab?").
COURSE_PARTS = frozenset(
    {
        "professor", "prof", "dr", "mr", "mrs", "ms", "lab", "labs", "homework", "assignment", "exam", "quiz",
        "midterm", "final", "week", "chapter", "part", "section", "unit", "slide", "slides", "video",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    }
)  # fmt: skip
# Capitalised words that are never a name: how a question asks, and the parts of a course.
NOT_NAMES = NO_TOPIC_WORDS | COURSE_PARTS
# Words that open a question as a request or point at what follows, not as part of a name ("Compare HNSW
# and IVF", "Both Pasteur and Koch").
ASKING = frozenset(
    {
        "compare", "contrast", "define", "list", "name", "show", "give", "find", "help", "walk", "outline",
        "both", "each", "either", "neither", "all", "any", "some",
    }
)  # fmt: skip
# The words a capitalised name is written with when split at its capitals: "ImageNet", "AutoML", "GPT4".
CAPITALS_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@dataclass(frozen=True)
class Signals:
    """The decline signals of one answer: the first passage's cosine, the weighted word share, the names
    of the question that the courses searched never say, and the share held by the passage nearest the
    question in meaning (measured only when the word it is about is one they never say: nearest.py)."""

    cosine: float
    coverage: float
    unmentioned: tuple[str, ...] = ()
    nearest: float | None = None

    @property
    def confidence(self) -> float:
        """One figure in [0, 1]: the coverage (the share that separates on both labelled libraries), the
        lesser of the two passages' shares when the nearest was measured, or 0 for a question naming what
        the courses never mention."""
        if self.unmentioned:
            return 0.0
        share = self.coverage if self.nearest is None else min(self.coverage, self.nearest)
        return round(share, 3)


def names(text: str, ordinary: frozenset[str]) -> list[list[str]]:
    """The names a question mentions, as runs of adjacent capitalised words or acronyms ("Monty Hall").

    Not question words, not words naming a part of a course (COURSE_PARTS), not "I", not the opening word
    when it is an ordinary word capitalised only because it opens the question (`ordinary`: lower-case
    English words), and nothing of a question written in capitals or in Title Case, which can't tell a
    name from a word.
    """
    written = tokens(text)
    if not any(char.islower() for char in text) or _title_case(written[1:]):
        return []
    runs: list[list[str]] = []
    last = -2
    opener = ""
    for position, token in enumerate(written):
        if not token[0].isupper() or token == "I" or token.lower() in NOT_NAMES:
            continue
        # An opening word is a name only when no ordinary word is written so (without a vocabulary, none is).
        if position == 0 and token[1:].islower() and (token.lower() in ordinary or not ordinary):
            opener = token if token.lower() not in ASKING else ""
            continue
        if position == last + 1:
            runs[-1].append(token)
        else:
            # An ordinary word capitalised after an opening one names something with it ("Deep Dream ...").
            named = opener and position == 1 and token[1:].islower() and token.lower() in ordinary
            runs.append([opener, token] if named else [token])
        last = position
    return runs


def _title_case(written: list[str]) -> bool:
    """True when every word of at least four is capitalised (question words, course parts, acronyms and
    words with inner capitals, "LoRA", are left out: they say nothing of how the question is written)."""
    words = [
        token
        for token in written
        if token.isalpha() and token.lower() not in NOT_NAMES and token[1:].islower()
    ]
    # Four: a name may run to three ("Stanford Prison Experiment").
    return len(words) >= 4 and all(token[0].isupper() for token in words)


def spellings(name: str, correct: Callable[[str], str]) -> list[set[str]]:
    """The ways a course may write a name, each the stemmed words it must all say: as written, split at
    its capitals ("ImageNet": image net), and as the library spells it ("Thorndike": Thorndyke)."""
    ways = [{stem(name)}]
    parts = CAPITALS_RE.findall(name)
    if len(parts) > 1:
        ways.append({stem(part) for part in parts})
    spelled = correct(name).strip()
    if spelled.lower() != name.lower() and spelled:
        ways.append({stem(word) for word in tokens(spelled)})
    return ways


def names_a_course(name: str, courses: Sequence[Outline]) -> bool:
    """True when a name is a word or the initials of a course's title, or of its instructor's name: it says
    which course ("the RAG course"), not what about."""
    word = stem(name)
    for course in courses:
        said = {stem(token) for token in tokens(f"{course.title} {course.instructor or ''}")}
        if word in said or acronym_matches(name, course.title):
            return True
    return False


def unmentioned(
    text: str,
    ordinary: frozenset[str],
    correct: Callable[[str], str],
    held: Callable[[list[str]], set[str]],
    courses: Sequence[Outline] = (),
    together: Callable[[list[str]], bool] = lambda run: True,
) -> tuple[str, ...]:
    """The names of a question that the courses never say, in any spelling (`held`: the stemmed words the
    courses searched say), leaving out those naming one of the `courses`. A run of names is said when each
    of its names is, or when the run written as one word is ("Image Net" for "ImageNet"). A run of ordinary
    words ("Deep Dream") is a term, not said by "deep" here and "dream" there: `together` must find its
    words side by side too (the answer asks the passages found: a library saying the term says it there).
    A run with a proper name or an acronym ("MongoDB Atlas") is names side by side, each said anywhere."""
    runs = [
        kept
        for run in names(text, ordinary)
        if (kept := [name for name in run if not names_a_course(name, courses)])
    ]
    if not runs:
        return ()
    ways = {name: spellings(name, correct) for run in runs for name in run}
    whole = {" ".join(run): stem("".join(run)) for run in runs if len(run) > 1}
    wanted = {word for options in ways.values() for way in options for word in way} | set(whole.values())
    said = held(sorted(wanted))

    def mentioned(run: list[str]) -> bool:
        """True when the courses say each name of the run, or the run as one word."""
        each = all(any(way <= said for way in ways[name]) for name in run)
        term = len(run) > 1 and all(name[1:].islower() and name.lower() in ordinary for name in run)
        return (each and (not term or together(run))) or whole.get(" ".join(run)) in said

    known = [" ".join(run) for run in runs if mentioned(run)]
    return tuple(
        " ".join(run) for run in runs if not mentioned(run) and not offered_with(text, " ".join(run), known)
    )


def side_by_side(run: list[str], texts: Sequence[str]) -> bool:
    """True when one of the texts says the words of a run of names one after another, in any form their
    stems meet ("Deep Dreams" is said by "deep dreaming"), numbers between them aside ("Claude 3 Opus")."""
    wanted = [_unended(stem(name)) for name in run]
    for text in texts:
        said = [_unended(stem(token)) for token in tokens(text) if not token.isdigit()]
        if any(said[start : start + len(wanted)] == wanted for start in range(len(said) - len(wanted) + 1)):
            return True
    return False


def offered_with(text: str, name: str, others: Sequence[str]) -> bool:
    """True when the question offers `name` as an alternative to one of `others` ("does it need a GPU or an
    external API?"): such a question is covered when the courses say either."""
    for other in others:
        for first, second in ((name, other), (other, name)):
            pattern = rf"\b{re.escape(first)}\s+or\s+(?:\S+\s+){{0,2}}?{re.escape(second)}\b"
            if re.search(pattern, text):
                return True
    return False


def passage_words(passage: Passage) -> set[str]:
    """The stemmed words of a passage with its course and lesson titles (as the keyword index reads it)."""
    return word_stems(f"{passage.course_title} {passage.lesson_title or ''} {passage.text}")


class MeaningWeights:
    """How much each word carries a question's meaning: 1 - the cosine of the question without it.

    Kept per question (questions repeat), embedded in one batch: the question and each variant without a word.
    """

    def __init__(self, embedder: Embedder, size: int = WEIGHTS_KEPT):
        self.embedder = embedder
        self._moved = lru_cache(maxsize=size)(self._measure)

    def __call__(self, text: str, words: list[str]) -> dict[str, float]:
        """The weight of each (stemmed) word of `words` in `text`."""
        return dict(zip(words, self._moved(text, tuple(words)), strict=True))

    def _measure(self, text: str, words: tuple[str, ...]) -> tuple[float, ...]:
        """How far the text's vector moves without each word."""
        chains = [(chain.split("-"), stem(chain.replace("-", ""))) for chain in CHAIN_RE.findall(text)]
        written = [part for parts, _ in chains for part in parts]
        variants = [_without(chains, word) for word in words]
        vectors = np.asarray(self.embedder.embed_documents([" ".join(written), *variants]), dtype=np.float32)
        return tuple(max(0.0, 1.0 - float(cosine)) for cosine in vectors[1:] @ vectors[0])


def _without(chains: list[tuple[list[str], str]], word: str) -> str:
    """The words of a text's hyphen chains without a word; a compound's joined form leaves out its parts
    ("rerank" leaves out "re-ranking", "unit" only "unit" of "unit-test")."""
    kept = [part for parts, joined in chains if joined != word for part in parts]
    return " ".join(part for part in kept if stem(part) != word)


def coverage(words: list[str], weights: dict[str, float], held: set[str]) -> float:
    """The weighted share of the words that a passage holds (`held`: its words; 1.0 for no words).

    The first passage only, which the answer's lead usually quotes: the best of the first three let a passage
    that merely shares the generic words stand in for the answer.
    """
    total = sum(weights.get(word, 0.0) for word in words)
    if not words or total <= 0:
        return 1.0
    return sum(weights.get(word, 0.0) for word in words if word in held) / total


def with_titles(passage: Passage) -> str:
    """A passage's text after its course and lesson titles, as sentences."""
    return f"{passage.course_title}. {passage.lesson_title or ''}. {passage.text}"


def said_by(passage: Passage, text: str) -> set[str]:
    """The passage's words, with each compound of the question `text` whose two words it says side by side
    ("top-k" is said by "the top k chunks": a compound is written apart as often as joined)."""
    held = passage_words(passage)
    compounds = written_together(text, with_titles(passage))
    # A word the passage says as two ("mini batch" for "minibatch"): transcripts write compounds apart.
    unheld = [word for word in tokens(text) if stem(word) not in held]
    apart = {stem(word) for word in words_said_apart(unheld, passage.text)}
    # "grading" is said by "grade": the crude stem ("grad") lost the base word's silent e.
    based = {term for term in map(stem, tokens(text)) if silent_e(term, held.__contains__)}
    return held | compounds | apart | based


def written_together(text: str, said: str) -> set[str]:
    """The stems of the question `text`'s two-word compounds that a passage (`said`) says as one term: its two
    words side by side ("zero-sum" is said by "a zero sum game", not by "zero" and "sum" apart)."""
    if "-" not in text:
        return set()
    words = [_unended(stem(token)) for token in tokens(said)]
    pairs = set(zip(words, words[1:], strict=False))
    return {
        stem(joined)
        for match in HYPHENATED_RE.finditer(text)
        if (joined := compound(match.group())) is not None
        and tuple(_unended(stem(part)) for part in match.group().split("-")) in pairs
    }


def _unended(word: str) -> str:
    """A stem without a final e, so a base word meets its "-ing" form ("tune" and "tuning" both "tun")."""
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def signals(
    text: str,
    words: list[str],
    passages: list[Passage],
    rarity: Callable[[list[str]], dict[str, float]],
    meaning: Callable[[str, list[str]], dict[str, float]],
) -> Signals:
    """The signals of an answer drawn from `passages` for a question `text` whose topic words are `words`."""
    unique = list(dict.fromkeys(words))
    cosine = passages[0].score if passages else 0.0
    if not unique or not passages:
        return Signals(cosine=cosine, coverage=1.0 if not unique else 0.0)
    held = said_by(passages[0], text)
    # A compound's joined form only adds: a passage saying none of its parts is judged by them. One saying
    # them apart but never together ("zero" and "sum", no "zero-sum") speaks of the parts, not the compound.
    parts = compound_parts(text)
    unique = [word for word in unique if word in held or word not in parts or parts[word] & held] or unique
    found = [word in held for word in unique]
    if all(found) or not any(found):
        # All found or none: the share is 1 or 0 whatever the weights, so spare the embedding.
        return Signals(cosine=cosine, coverage=float(all(found)))
    rare = rarity(unique)
    by_rarity = coverage(unique, rare, held)
    if by_rarity >= SURE:
        # Far above the cut: only words carrying five times the found words' meaning could pull it under.
        return Signals(cosine=cosine, coverage=by_rarity)
    weight = meaning(text, unique)
    weights = {word: weight[word] * rare.get(word, 0.0) for word in unique}
    return Signals(cosine=cosine, coverage=coverage(unique, weights, held))
