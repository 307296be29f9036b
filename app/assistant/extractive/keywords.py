"""How many of a question's words a sentence says: as written, as another word of their family
("falsifiable", "falsifiability"), in two words where the question writes one ("image net" for "imagenet":
captions split compounds), and a code name's words side by side ("test client": "test_client")."""

from __future__ import annotations

import re

from app.assistant.extractive.sentences import root
from app.language.tokens import content_words
from app.language.two_words import words_said_apart
from app.search.models import Passage

# A code name joined by underscores ("test_client", "create_app").
JOINED_RE = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")


def said_share(keywords: set[str], topic: str, sentence: str) -> float:
    """Return the share of the topic's keywords that the sentence says (see the module)."""
    words = content_words(sentence) + words_said_apart(keywords, sentence)
    return _share(keywords, words)


def keyword_share(keywords: set[str], topic: str, passage: Passage, sentence: str) -> float:
    """Return the share of the topic's telling keywords that the sentence says (see the module)."""
    # A word of the passage's own course title ("flask" in the Flask course) tells nothing apart; one of its
    # lesson's title ("Pasteur" in the Pasteur lecture) is what all of its sentences are about.
    course = set(content_words(passage.course_title))
    telling = keywords - course
    words = content_words(sentence) + content_words(passage.lesson_title)
    words += words_said_apart(telling, sentence)
    # A name written joined ("test_client") is one more keyword, said when its words come side by side: a
    # sentence saying "client" alone is about some other client.
    joined = [name for name in JOINED_RE.findall(topic.lower()) if len(content_words(name)) > 1]
    said = " ".join(content_words(sentence))
    words += [name for name in joined if f" {' '.join(content_words(name))} " in f" {said} "]
    return _share(telling | set(joined), words)


def _share(keywords: set[str], words: list[str]) -> float:
    """The share of the keywords that the words hold, one of a family standing for another."""
    said = {root(word) for word in words}
    return len([word for word in keywords if root(word) in said]) / len(keywords) if keywords else 0.0
