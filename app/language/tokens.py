"""The tokenizer and word forms: a text's words as written, their crude stems, hyphenated compounds, and the
words that carry its meaning.

A two-word hyphenated compound is its parts and also one word ("re-ranking": "re", "ranking" and
"reranking"), everywhere words are compared (keyword index and query, content words, the words a passage
says), because the same term is written "rerank", "re-ranking" and "reranking" alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

from app.language.lexicon import SHORT_WORDS, STOPWORDS

TOKEN_RE = re.compile(r"[A-Za-z0-9]+")
# Words joined by hyphens ("re-ranking", "state-of-the-art"), or a single word; only the joined ones.
CHAIN_RE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
HYPHENATED_RE = re.compile(r"\b[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")
# A chain inside an address, a path or code ("example.com/flask-htmx/", slug="flask-htmx") is a name.
CODE_BEFORE = ("/", ".", "=", "_", "@", "#", ":", "\\", "='", '="')
CODE_AFTER = frozenset("/_@\\")
# Distinct texts kept read: more than one answer's question, passages and sentences.
READINGS_KEPT = 4096


@dataclass(frozen=True)
class Reading:
    """A text read once: its words as written, the joined forms of its hyphenated compounds, and their stems.

    Every rule reads a text through `read`, which keeps a reading per distinct text, so one answer tokenizes
    its question and each passage and sentence once however many rules look at them.
    """

    words: tuple[str, ...]
    joined: tuple[str, ...]

    @cached_property
    def terms(self) -> tuple[str, ...]:
        """The words as written, then each compound's joined form (runs of words stay as written)."""
        return self.words + self.joined

    @cached_property
    def stems(self) -> frozenset[str]:
        """The stems of every term (what a passage can be matched on)."""
        return frozenset(stem(word) for word in self.terms)

    @cached_property
    def content(self) -> tuple[str, ...]:
        """The stems of the words that carry meaning, in order (`content_words` with the STOPWORDS)."""
        return tuple(_content(self.terms, STOPWORDS))


def tokenize(text: str) -> list[str]:
    """The words of a text as written (letters and digits; hyphens and punctuation split words)."""
    return TOKEN_RE.findall(text)


@lru_cache(maxsize=READINGS_KEPT)
def read(text: str) -> Reading:
    """The text's reading, made once per distinct text."""
    return Reading(tuple(tokenize(text)), tuple(compounds(text)) if "-" in text else ())


def tokens(text: str) -> list[str]:
    """The words of a text as written (letters and digits; hyphens and punctuation split words)."""
    return list(read(text).words)


def compound(chain: str) -> str | None:
    """Two words of letters joined by a hyphen, written as one ("re-ranking": "reranking"), else None.

    The same term is written either way ("rerank", "cross-encoder", "crossencoder"), so a compound counts as
    its parts and as one word. A longer chain ("state-of-the-art") is a phrase, and one with an acronym
    ("Flask-HTMX", "HX-Request", "GPT-based") two names side by side, not one word.
    """
    parts = chain.split("-")
    if len(parts) != 2 or not all(part.isalpha() and not is_acronym_token(part) for part in parts):
        return None
    return "".join(parts)


def compounds(text: str) -> list[str]:
    """The joined form of each two-word hyphenated compound of a text ("re-ranking": "reranking")."""
    found = []
    for match in HYPHENATED_RE.finditer(text):
        start, end = match.span()
        code = text[max(0, start - 2) : start].endswith(CODE_BEFORE) or text[end : end + 1] in CODE_AFTER
        joined = None if code else compound(match.group())
        if joined is not None:
            found.append(joined)
    return found


def compound_parts(text: str) -> dict[str, set[str]]:
    """The stem of each two-word hyphenated compound of a text, with the stems of its parts."""
    return {
        stem(joined): {stem(part) for part in match.group().split("-")}
        for match in HYPHENATED_RE.finditer(text)
        if (joined := compound(match.group())) is not None
    }


def terms(text: str) -> list[str]:
    """The words of a text as written, then each two-word hyphenated compound's joined form (after them, so
    runs of words stay as written)."""
    return list(read(text).terms)


def word_stems(text: str) -> set[str]:
    """The stems of every word a text says, compounds joined too (what a passage can be matched on)."""
    return set(read(text).stems)


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stem so "databases"/"database", "testing"/"tests", "embeddings"/"embedding" compare equal."""
    word = word.lower()
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + replacement
            break
    if word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    return word


def silent_e(term: str, said: Callable[[str], bool]) -> str | None:
    """The stem of the base word a stem lost its silent e from, when only that is said ("grad" of "grading":
    "grade"; "cach" of "caching": "cache"): `stem` strips "ing" but leaves the base word's e."""
    if said(term) or not term.isalpha() or term.endswith("e") or not said(term + "e"):
        return None
    return term + "e"


def is_acronym_token(token: str) -> bool:
    """True for a token written like an acronym: two or more letters, all capitals ("RAG", "HNSW")."""
    return len(token) >= 2 and token.isupper() and token.isalpha()


def content_words(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Stems of the words that carry meaning, in order; 1-2 letter words count only as acronyms ("AI") or
    terms ("id", `is_short_term`); a hyphenated compound counts as its parts and as one word ("re-ranking":
    "rank", "rerank")."""
    reading = read(text)
    return list(reading.content) if stopwords is STOPWORDS else _content(reading.terms, stopwords)


def _content(words: tuple[str, ...], stopwords: frozenset[str]) -> list[str]:
    """The stems of the words that carry meaning (`content_words`)."""
    return [
        stem(token)
        for token in words
        if token.lower() not in stopwords
        and (len(token) > 2 or is_acronym_token(token) or is_short_term(token))
    ]


def is_short_term(token: str) -> bool:
    """True for a two-letter word that names something ("id", "db"), not one of the SHORT_WORDS."""
    return len(token) == 2 and token.isalpha() and token.lower() not in SHORT_WORDS
