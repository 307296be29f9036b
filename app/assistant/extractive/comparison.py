"""Tell the two halves of a comparison apart.

The split itself is `comparison_split.split_comparison`, and the lesson a half names ("the Pasteur lecture")
`lesson_titles.named_lesson`.
"""

from __future__ import annotations

from app.assistant.extractive.comparison_split import CUE_RE, split_comparison
from app.assistant.extractive.lesson_titles import distinctive, named_lesson, without_title
from app.language.lexicon import COURSE_RE, PUNCTUATION
from app.language.tokens import content_words

__all__ = [
    "COURSE_RE",
    "about",
    "CUE_RE",
    "distinctive",
    "named_lesson",
    "own_subject",
    "says",
    "split_comparison",
    "without_title",
]

# Two stems this long, one the other's start, are one word ("cach" and "cache").
MIN_PREFIX = 4


def own_subject(topic: str, other: str) -> set[str]:
    """What tells one half apart, without the words that name a lesson ("the CNN lecture"): those say where
    to look, not what the passage must say."""
    words = topic.split()
    naming: set[str] = set()
    for at, word in enumerate(words):
        if not COURSE_RE.fullmatch(word.strip(PUNCTUATION)):
            continue
        before = at - 1
        while before >= 0 and content_words(words[before]) and words[before][-1] not in PUNCTUATION:
            naming.update(content_words(words[before]))
            before -= 1
    return distinctive(topic, other) - naming


def says(own: set[str], words: set[str]) -> bool:
    """True when the words hold one of `own`, or a word it begins or that begins it: the stems are crude
    ("caching" is "cach", "cache" is "cache"; "reranker" against "rerank")."""
    return bool(own & words) or any(
        len(mine) >= MIN_PREFIX
        and len(word) >= MIN_PREFIX
        and (word.startswith(mine) or mine.startswith(word))
        for mine in own
        for word in words
    )


def about(own: set[str], theirs: set[str], words: set[str]) -> bool:
    """True when a passage's words speak of a half's own subject (`own`). A half with none, all of whose
    words the other half says ("chunking" against "chunking with overlap"), is the plain thing: a passage
    speaks of it unless it says every word the other half adds (`theirs`)."""
    if own:
        return says(own, words)
    return bool(theirs) and not all(says({word}, words) for word in theirs)
