"""How many of a question's words a sentence says: as written, as another word of their family
("falsifiable", "falsifiability"), in full or short ("app", "application"), by an acronym for a run of them
("CNN": "convolutional neural net"), in two words where the question writes one ("image net" for
"imagenet": captions split compounds), and a code name's words side by side ("test client": "test_client")."""

from __future__ import annotations

import re

from app.assistant.extractive.sentences import root
from app.assistant.extractive.short_forms import in_full
from app.language.acronyms import letters_of, spelled_out
from app.language.tokens import content_words, tokens
from app.search.apart import words_said_apart
from app.search.models import Passage

# A code name joined by underscores ("test_client", "create_app").
JOINED_RE = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")


def said_share(keywords: set[str], topic: str, sentence: str) -> float:
    """Return the share of the topic's keywords that the sentence says (see the module)."""
    words = content_words(sentence) + abbreviated(topic, sentence) + words_said_apart(keywords, sentence)
    return _share(keywords, words)


def keyword_share(keywords: set[str], topic: str, passage: Passage, sentence: str) -> float:
    """Return the share of the topic's telling keywords that the sentence says (see the module)."""
    # A word of the passage's own course title ("flask" in the Flask course) tells nothing apart; one of its
    # lesson's title ("Pasteur" in the Pasteur lecture) is what all of its sentences are about.
    course = {in_full(word) for word in content_words(passage.course_title)}
    telling = {word for word in keywords if in_full(word) not in course}
    words = content_words(sentence) + content_words(passage.lesson_title) + abbreviated(topic, sentence)
    words += words_said_apart(telling, sentence)
    # A name written joined ("test_client") is one more keyword, said when its words come side by side: a
    # sentence saying "client" alone is about some other client.
    joined = [name for name in JOINED_RE.findall(topic.lower()) if len(content_words(name)) > 1]
    said = " ".join(content_words(sentence))
    words += [name for name in joined if f" {' '.join(content_words(name))} " in f" {said} "]
    return _share(telling | set(joined), words)


def _share(keywords: set[str], words: list[str]) -> float:
    """The share of the keywords that the words hold, one of a family, or a short form ("app" for
    "application"), standing for another."""
    said = {root(in_full(word)) for word in words}
    return (
        len([word for word in keywords if root(in_full(word)) in said]) / len(keywords) if keywords else 0.0
    )


def abbreviated(topic: str, sentence: str) -> list[str]:
    """The topic's words that the sentence says by an acronym, or the acronyms of the topic that it spells
    out: a lecturer says "CNN" where a student writes "convolutional neural net", and the other way round."""
    found: list[str] = []
    for text, other in ((sentence, topic), (topic, sentence)):
        for acronym in dict.fromkeys(word for word in tokens(text) if letters_of(word)):
            words = spelled_out(acronym, other)
            if words is not None:
                # The acronym stands in for its words, and they for it, whichever the topic holds.
                found += content_words(f"{acronym} {words}")
    return found
