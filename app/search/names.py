"""Words of course names and questions: tokens, stopwords, stems, initials and acronyms, shared by the
index (course resolution) and the extractive answerer (finding the course a question names).

A two-word hyphenated compound is its parts and also one word ("re-ranking": "re", "ranking" and
"reranking"), everywhere words are compared (keyword index and query, content words, the words a passage
says), because the same term is written "rerank", "re-ranking" and "reranking" alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# Words that say nothing about which course (or which topic) is meant.
FUNCTION_WORDS = frozenset(
    {
        "a", "an", "and", "are", "about", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
        "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "that", "the",
        "this", "to", "what", "when", "where", "which", "who", "why", "with", "you", "your",
    }
)  # fmt: skip
# Words that say "a course" without saying which one.
COURSE_WORDS = frozenset(
    {
        "course", "courses", "class", "classes", "lesson", "lessons", "lecture", "lectures", "module",
        "modules", "tutorial", "tutorials", "intro", "introduction", "one",
    }
)  # fmt: skip
STOPWORDS = FUNCTION_WORDS | COURSE_WORDS
# Two-letter words that carry no topic: function words, spoken fillers, the tails of contractions ("we'll",
# "they're"), abbreviations. Any other two-letter word is a term ("the id and the ego", "a vector db").
SHORT_WORDS = frozenset(
    {
        "ah", "am", "an", "as", "at", "be", "by", "do", "eg", "eh", "er", "go", "ha", "he", "hi", "hm", "ie",
        "if", "in", "is", "it", "ll", "me", "mm", "mr", "ms", "my", "no", "of", "oh", "ok", "on", "or", "so",
        "to", "uh", "um", "up", "us", "ve", "vs", "we", "ya", "ye", "yo", "re", "st", "nd", "rd", "th", "dr",
        "co", "pp", "ad",
    }
)  # fmt: skip
TOKEN_RE = re.compile(r"[A-Za-z0-9]+")
# Words joined by hyphens ("re-ranking", "state-of-the-art"), or a single word; only the joined ones.
CHAIN_RE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
HYPHENATED_RE = re.compile(r"\b[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")
# A chain inside an address, a path or code ("example.com/flask-htmx/", slug="flask-htmx") is a name.
CODE_BEFORE = ("/", ".", "=", "_", "@", "#", ":", "\\", "='", '="')
CODE_AFTER = frozenset("/_@\\")


def tokens(text: str) -> list[str]:
    """The words of a text as written (letters and digits; hyphens and punctuation split words)."""
    return TOKEN_RE.findall(text)


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
    return tokens(text) + compounds(text) if "-" in text else tokens(text)


def word_stems(text: str) -> set[str]:
    """The stems of every word a text says, compounds joined too (what a passage can be matched on)."""
    return {stem(word) for word in terms(text)}


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
    return [
        stem(token)
        for token in terms(text)
        if token.lower() not in stopwords
        and (len(token) > 2 or is_acronym_token(token) or is_short_term(token))
    ]


def is_short_term(token: str) -> bool:
    """True for a two-letter word that names something ("id", "db"), not one of the SHORT_WORDS."""
    return len(token) == 2 and token.isalpha() and token.lower() not in SHORT_WORDS


def initials(title: str) -> list[str]:
    """Two spellings of a title's initials: every word, and content words only ("ragip", "ragp")."""
    every = "".join(token[0] for token in tokens(title.lower()))
    content = "".join(token[0] for token in tokens(title.lower()) if token not in STOPWORDS)
    return [every] if every == content else [every, content]


def acronym_matches(token: str, title: str) -> bool:
    """True when a token spells a title's initials from its first word on: the whole or a 2+ letter prefix."""
    token = token.lower()
    return len(token) >= 2 and token.isalpha() and any(word.startswith(token) for word in initials(title))


def letters_of(acronym: str) -> str:
    """The letters an acronym stands for, lower-cased: all of "VAE", the capitals of "ReLU" ("rlu"); none of
    a name written in capitalised parts ("ImageNet", "AutoML"), which says its words, not their initials."""
    capitals = sum(char.isupper() for char in acronym)
    if not acronym.isalpha() or capitals < 2 or len(acronym) - capitals >= capitals:
        return ""
    return (acronym if acronym.isupper() else "".join(char for char in acronym if char.isupper())).lower()


def spelled_out(acronym: str, text: str) -> str | None:
    """The words of the text, side by side, that an acronym stands for ("VAE": "variational auto encoder",
    "ReLU": "rectified linear unit"), or None; each of three letters or more and no stopword, so that "the"
    or "um" don't complete one."""
    wanted = letters_of(acronym)
    words = tokens(text)
    for start in range(len(words) - len(wanted) + 1 if wanted else 0):
        run = words[start : start + len(wanted)]
        lowered = [word.lower() for word in run]
        if all(
            len(word) >= 3 and word not in STOPWORDS and word[0] == letter
            for word, letter in zip(lowered, wanted, strict=True)
        ):
            return " ".join(lowered)
    return None


def word_matches(word: str, title_word: str) -> bool:
    """True when a stemmed word is a title word, or abbreviates it ("gen" for "generation")."""
    return word == title_word or (len(word) >= 3 and title_word.startswith(word))


def all_words_match(words: list[str], title_words: list[str]) -> bool:
    """True when every word (there is at least one) matches some title word."""
    return bool(words) and all(any(word_matches(word, other) for other in title_words) for word in words)


def longest_run(words: list[str], title_words: list[str]) -> int:
    """Length of the longest run of consecutive title words that also appears consecutively in `words`."""
    best = 0
    for start in range(len(words)):
        for title_start in range(len(title_words)):
            length = 0
            while (
                start + length < len(words)
                and title_start + length < len(title_words)
                and words[start + length] == title_words[title_start + length]
            ):
                length += 1
            best = max(best, length)
    return best


def distinctive_words(title: str) -> list[str]:
    """Stems of a lesson title's terms: acronyms, words with digits, words left lowercase in a capitalised
    title ("HNSW", "Jinja2", "pytest"); ordinary capitalised words ("Embeddings") are not terms."""
    found = []
    for token in tokens(title):
        if token.lower() in STOPWORDS or len(token) < 3:
            continue
        if is_acronym_token(token) or any(char.isdigit() for char in token) or token.islower():
            found.append(stem(token))
    return found
