"""What a comparison half's pronoun stands for when the half names nothing before it.

"caching: what does it save in the first lesson, and how is it invalidated in the last one?" splits into
two halves; the second's "it" is caching. Its sentences are read for "how is caching invalidated", as the
user meant it, not for "how is it invalidated" (any sentence about invalidating anything).
"""

from __future__ import annotations

import re

from app.language.lexicon import AUXILIARIES, COURSE_RE, PUNCTUATION, STOPWORDS, WH_WORDS
from app.language.tokens import stem, tokens

# A pronoun standing for a thing. Not a possessive ("its test client" names its own thing), nor "he" or "she":
# a person is often what the other half asks for ("who built X, and what did he get?"), not its words.
POINTER_RE = re.compile(r"\b(?:it|they|them)\b", re.IGNORECASE)
# A half that opens on its subject and then asks ("caching: what does it save …", "HNSW, how is it built?").
FRONTED_RE = re.compile(r"^\s*([^:,?]+?)\s*[:,]\s*(?:how|what|why|which|where|when|who)\b", re.IGNORECASE)


def resolved(topic: str, other: str) -> str:
    """The half with a pronoun that points back replaced by the other half's subject; else the half as is.

    A pronoun points back when no word of its own half comes before it but question words and auxiliaries
    ("how is it invalidated"); "the king burning his boats" and "caching: what does it save" name their own.
    """
    pointer = POINTER_RE.search(topic)
    if pointer is None or _names_before(topic[: pointer.start()]):
        return topic
    said = subject(other)
    return f"{topic[: pointer.start()]}{said}{topic[pointer.end() :]}" if said else topic


def subject(question: str) -> str:
    """What a question is about, as written: the words it opens on before asking ("caching: what …"), or
    else its words that carry meaning, without the words naming a lesson ("in the intro lecture")."""
    fronted = FRONTED_RE.match(question)
    if fronted is not None:
        return fronted.group(1)
    words = question.split()
    naming: set[int] = set()
    for at, word in enumerate(words):
        if COURSE_RE.fullmatch(word.strip(PUNCTUATION)):
            naming.add(at)
            before = at - 1
            while before >= 0 and _naming_word(words[before]):
                naming.add(before)
                before -= 1
    kept = " ".join(word for at, word in enumerate(words) if at not in naming)
    return " ".join(word for word in tokens(kept) if _carries(word))


def _names_before(text: str) -> bool:
    """True when the text holds a word that carries meaning (not a question word or an auxiliary)."""
    return any(_carries(word) for word in tokens(text))


def _carries(word: str) -> bool:
    """True for a word that carries meaning: no question word, auxiliary, function word or short word."""
    lowered = word.lower()
    return lowered not in WH_WORDS | AUXILIARIES and lowered not in STOPWORDS and len(stem(word)) > 2


def _naming_word(word: str) -> bool:
    """True for a word that may name a lesson before "lecture" ("intro", "Pasteur"): no function word, and
    no punctuation ending a phrase before it."""
    return word.lower() not in STOPWORDS and word[-1] not in PUNCTUATION
