"""How many of a question's words a sentence says: as written, as another word of their family
("falsifiable", "falsifiability"), by an acronym for a run of them ("CNN": "convolutional neural net"), or
in two words where the question writes one ("image net" for "imagenet": captions split compounds)."""

from __future__ import annotations

from app.assistant.extractive.sentences import root
from app.search.apart import words_said_apart
from app.search.models import Passage
from app.search.names import content_words, letters_of, spelled_out, tokens


def said_share(keywords: set[str], topic: str, sentence: str) -> float:
    """Return the share of the topic's keywords that the sentence says (see the module)."""
    words = content_words(sentence) + abbreviated(topic, sentence) + words_said_apart(keywords, sentence)
    return _share(keywords, words)


def keyword_share(keywords: set[str], topic: str, passage: Passage, sentence: str) -> float:
    """Return the share of the topic's telling keywords that the sentence says (see the module)."""
    # A word of the passage's own course title ("flask" in the Flask course) tells nothing apart; one of its
    # lesson's title ("Freud" in the Freud lecture) is what all of its sentences are about.
    telling = keywords - set(content_words(passage.course_title))
    words = content_words(sentence) + content_words(passage.lesson_title) + abbreviated(topic, sentence)
    words += words_said_apart(telling, sentence)
    return _share(telling, words)


def _share(keywords: set[str], words: list[str]) -> float:
    """The share of the keywords that the words hold, one of a family standing for another."""
    said = {root(word) for word in words}
    return len([word for word in keywords if root(word) in said]) / len(keywords) if keywords else 0.0


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
