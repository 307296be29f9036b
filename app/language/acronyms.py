"""Words of course and lesson names: initials, acronyms and the title words a question may name them by."""

from __future__ import annotations

from app.language.lexicon import STOPWORDS
from app.language.tokens import is_acronym_token, stem, tokens


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
