"""A sentence that speaks of the question's subject by a pronoun, read with the subject in its place.

A lecturer names a subject once and goes on with "he" or "it": "He was born in 1850. He spent his life in
Rome." after a sentence naming the poet. The model reads "He spent his life in Rome." as about no one, so it
scores far below a sentence that names the poet and says little ("The poet lives on in our schools.").
Read as "poet spent his life in Rome.", it scores as what it says. The pronoun stands for the question's
words that the sentences just before it say: as far back as a lecturer goes on about a person ("he",
"she"), the sentence right before for a thing ("it", "they"), whose pronoun moves on sooner.
"""

from __future__ import annotations

import re

import numpy as np

from app.assistant.extractive.sentences import FILLER_STOPWORDS
from app.courses.chunking import split_sentences
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import CHAIN_RE, content_words, stem, tokens
from app.search.embedding.kept import KeptVectors
from app.search.models import Passage

# How many sentences back the pronoun's subject may be named: a person is talked about for longer; "it" and
# "they" only one sentence ("Here are facts about ovens. There are many kinds. So it's a hot place." means
# the kitchen, not the oven: two sentences back lost a labelled comparison's lead).
REACH = {"he": 4, "she": 4, "it": 1, "they": 1}
# "it" and "they" stand for what one of the first this many words of content of the sentence before names.
SUBJECT_WORDS = 2
# Words a spoken sentence may open with before its subject ("Um, he …", "And so it …").
OPENERS = frozenset({"um", "uh", "so", "and", "but", "well", "now", "okay", "ok", "yeah", "then", "also"})
# The question's words put in the pronoun's place, at most this many from the first to the last said.
MAX_STAND_IN = 4
# The opening pronoun, after any openers, with the verb it is contracted with ("they're", "he's").
_OPENING_RE = re.compile(
    r"^(?P<lead>(?:\W*(?:" + "|".join(sorted(OPENERS)) + r")\b)*\W*)"
    r"(?P<pronoun>he|she|it|they)(?P<tail>'s|’s|'re|’re)?\b",
    re.IGNORECASE,
)
# A question's word right after one of these is a verb, what is done, not what a pronoun can stand for.
DOERS = frozenset({"i", "we", "you", "to", "should", "can", "could", "would", "will", "must", "might", "may"})
_CONTRACTED = {"'s": " is", "’s": " is", "'re": " are", "’re": " are"}


def stand_ins(candidates: list[tuple[Passage, int, str]], topic: str) -> dict[int, tuple[str, str]]:
    """The candidates (passage, position, sentence) that open with a pronoun for the topic's subject, by
    index: each read with the topic's words in the pronoun's place, and the sentence naming them."""
    keywords = _keywords(topic)
    if not keywords:
        return {}
    by_place = {passage.place: passage for passage, _, _ in candidates}
    read: dict[int, tuple[str, str]] = {}
    for i, (passage, position, sentence) in enumerate(candidates):
        opening = _OPENING_RE.match(sentence)
        if opening is None:
            continue
        pronoun = opening.group("pronoun").lower()
        before = said_before(passage, position, by_place)[-REACH[pronoun] :]
        # What the sentence names itself is no part of what its pronoun stands for.
        naming, named = _named(before, keywords, person=pronoun in ("he", "she"))
        named -= set(content_words(sentence))
        if named:
            words = _phrase(topic, named)
            tail = _CONTRACTED.get(opening.group("tail") or "", "")
            read[i] = (f"{opening.group('lead')}{words}{tail}{sentence[opening.end() :]}", naming)
    return read


def _keywords(topic: str) -> set[str]:
    """The stems of the topic's words that name something: not question words, fillers or numbers, nor a
    verb the question asks about ("how should I bake the loaf": "bake" after its subject or a modal)."""
    filler = {stem(word) for word in FILLER_STOPWORDS}
    words = tokens(topic)
    verbs = {stem(word) for before, word in zip(words, words[1:], strict=False) if before.lower() in DOERS}
    return {
        word
        for word in content_words(topic, NO_TOPIC_WORDS)
        if word not in filler and word not in verbs and word.isalpha()
    }


def said_before(passage: Passage, position: int, by_place: dict[tuple[str, int, int], Passage]) -> list[str]:
    """The sentences of the lesson before the passage's sentence at `position`, as far as the passages read
    go: its own passage's, then the previous chunk's when that was found too (less what they share).

    Quotes list a sentence the chunks' overlap repeats once, under the earlier chunk: what comes before a
    chunk's sentence is read from the chunks' text, not from the quotes."""
    own = [sentence.strip() for sentence in split_sentences(passage.text)]
    course, lesson, chunk = passage.place
    previous = by_place.get((course, lesson, chunk - 1))
    if previous is None:
        return own[:position]
    earlier = [sentence.strip() for sentence in split_sentences(previous.text)]
    shared = overlap(earlier, own)
    if position < shared:  # the sentence is one of those: what comes before it is the previous chunk's
        return earlier[: len(earlier) - shared + position]
    return earlier + own[shared:position]


def overlap(earlier: list[str], own: list[str]) -> int:
    """How many of a chunk's first sentences are the last of the chunk before it (chunks overlap).

    The first of them may be said there as the end of a longer sentence: a spoken "Um," with no stop after
    it runs on into what the next chunk opens with ("Um, the steam escapes." against "the steam escapes.")."""
    for size in range(min(len(earlier), len(own)), 0, -1):
        first = earlier[-size]
        if earlier[len(earlier) - size + 1 :] == own[1:size] and (
            first == own[0] or first.endswith(f" {own[0]}")
        ):
            return size
    return 0


def _named(before: list[str], keywords: set[str], person: bool) -> tuple[str, set[str]]:
    """The nearest sentence before that names keywords, and those keywords; empty when none does.

    "he" and "she" stand for a person named anywhere in it (a word written with a capital: a name); "it"
    and "they" for what its first words name, its subject ("Kneading builds the gluten."), not an object
    at its end ("… shapes the loaf by hand.")."""
    for sentence in reversed(before):
        if person:
            said = {stem(word) for word in tokens(sentence) if word[:1].isupper()} & keywords
        else:
            said = set(content_words(sentence, FILLER_STOPWORDS)[:SUBJECT_WORDS]) & keywords
        if said:
            return sentence, said
    return "", set()


def _phrase(topic: str, named: set[str]) -> str:
    """The topic's words for what is named, as the topic writes them: from the first said to the last
    ("the conqueror" between "William" and …), or only the words said when that run is long; a hyphenated
    word whole ("sour-dough")."""
    words = CHAIN_RE.findall(topic)
    at = [i for i, word in enumerate(words) if {stem(part) for part in word.split("-")} & named]
    if not at:
        return " ".join(sorted(named))
    run = words[at[0] : at[-1] + 1]
    return " ".join(run) if len(run) <= MAX_STAND_IN else " ".join(words[i] for i in at)


def closer(query: np.ndarray, meant: dict[int, tuple[str, str]], vectors: KeptVectors) -> dict[int, float]:
    """The similarity to the query of each sentence read as meant, where that beats the sentence naming
    the subject: what it adds must be what is asked, not the subject's word alone ("It is worth a look.")."""
    if not meant:
        return {}
    texts = [text for pair in meant.values() for text in pair]
    cosines = [float(np.dot(query, vector)) for vector in vectors.get(texts)]
    pairs = zip(meant, cosines[::2], cosines[1::2], strict=True)
    return {i: read for i, read, naming in pairs if read > naming}
