"""Definitions: a sentence that says what a term is ("A fixture is …", "… is called a fixture"), and what a
question is about."""

from __future__ import annotations

import re

from app.assistant.extractive.intent import MAX_TERM_WORDS
from app.language.lexicon import NO_TOPIC_WORDS, STOPWORDS
from app.language.tokens import compounds, content_words, stem

# Stemmed, as the sentence's words are compared: "stands for", "means", "refers to", "describes".
DEFINING_VERBS = frozenset({"is", "are", "stand", "mean", "refer", "describe"})
# A term after one of these is in an indirect question ("we know what X is"), which defines nothing.
ASKING_WORDS = frozenset({"what", "how", "why", "which", "whether"})
# A term right after one of these is what the sentence does something with, not what it defines.
OBJECT_MARKERS = frozenset({"using", "with", "about", "for", "on", "by", "from"})
ARTICLES = frozenset({"a", "an", "the", "this", "these", "that", "those"})
# The term comes early (a definition starts with it), its verb right after (", or RAG," may come between).
TERM_WITHIN = 12
VERB_WITHIN = 5
# A sentence can also name the term after saying what it is: "the basic unit of bread is the crumb cell",
# "this crust is known as a bloom", "a unit like this is called a perceptron". Stemmed.
NAMING_VERBS = frozenset({"is", "are", "be", "called", "known", "named", "termed"})
# Between the naming verb and the term: "as", an article, or the term's own words ("a single neuron").
NAMING_GLUE = frozenset({"as", "a", "an", "the", "our", "this", "these"})
# "There is a fixture", "here is the list": a naming verb after these says that something exists.
EXISTENTIAL = frozenset({"there", "here"})
# "we know what the neuron is", "which one is the neuron": an asking word this close before the verb.
ASKING_WITHIN = 3
# A sentence opening on the term may say what it does rather than what it is ("A cross-encoder reads the
# question and the passage together"): the term, then a verb in the third person or one of these.
DOING_VERBS = frozenset({"can", "does", "has", "takes", "makes", "lets", "allows", "gives", "uses"})
GENERIC_ARTICLES = frozenset({"a", "an"})
# Words and colons as written: "a bi-encoder: the question and each chunk are embedded independently".
WORD_OR_COLON_RE = re.compile(r"[A-Za-z0-9]+|:")


def defines(sentence: str, term: list[str]) -> bool:
    """True when the sentence says what the term is: it opens with the term and its verb ("A fixture is a
    function …"), or it names the term after saying what it is ("… is called a fixture")."""
    words = [stem(word) for word in _written(sentence, term) if word != ":"]
    return _opens_with(words, term) or _names(words, term)


def describes(sentence: str, term: list[str]) -> bool:
    """True when the sentence says what the term is or, short of that, what it does: it opens with the term
    and a verb ("A cross-encoder reads the question …"), or explains it after a colon ("… use a
    bi-encoder: the question and each chunk are embedded independently")."""
    return defines(sentence, term) or _says_what_it_does(sentence, term)


def definitions(sentences: list[str], term: list[str] | None) -> list[bool]:
    """Which sentences define the term: those saying what it is, or when none does, what it does ("RAG
    keeps knowledge outside the model" is no definition where "RAG is the pattern …" is said)."""
    if term is None:
        return [False] * len(sentences)
    being = [defines(sentence, term) for sentence in sentences]
    return being if any(being) else [_says_what_it_does(sentence, term) for sentence in sentences]


def _written(sentence: str, term: list[str]) -> list[str]:
    """The sentence's words and colons, the term's words written as the term has them: "cross-encoder",
    "cross encoder" and "crossencoder" are one term however the question or the sentence spaces it."""
    written = WORD_OR_COLON_RE.findall(sentence)
    joined = "".join(term)
    out: list[str] = []
    at = 0
    while at < len(written):
        for length in range(1, len(term) + 2):
            span = [stem(word) for word in written[at : at + length]]
            if len(span) == length and ":" not in span and "".join(span) == joined and span != term:
                out.extend(term)
                at += length
                break
        else:
            out.append(written[at])
            at += 1
    return out


def _says_what_it_does(sentence: str, term: list[str]) -> bool:
    """True for "A cross-encoder reads the question …" (the term opens the sentence, a verb of the third
    person right after it) and "… use a bi-encoder: the question and …" (an explanation after a colon)."""
    words = [word.lower() for word in _written(sentence, term)]
    stems = [stem(word) for word in words]
    length = len(term)
    for at in range(len(words) - length):
        if stems[at : at + length] != term:
            continue
        after = words[at + length]
        before = words[at - 1] if at > 0 else None
        if after == ":" and before in GENERIC_ARTICLES:  # "a bi-encoder: …" introduces it
            return True
        opens = at == 0 or (at == 1 and before in GENERIC_ARTICLES | {"the"})
        third_person = after.endswith("s") and not after.endswith(("ss", "us", "is")) and len(after) > 3
        if opens and (after in DOING_VERBS or (third_person and after not in STOPWORDS)):
            return True
    return False


def _opens_with(words: list[str], term: list[str]) -> bool:
    """True for "A fixture is a function …": the term early, a defining verb right after it."""
    last = next(
        (position for position, word in enumerate(words[:TERM_WITHIN]) if word == term[-1]),
        None,
    )
    if last is None or not set(term) <= set(words[: last + 1]):
        return False
    if DEFINING_VERBS & set(words[:last]):  # "The idea is that a fixture …": the term is not the subject
        return False
    if ASKING_WORDS & set(words[:last]):  # "now that we know what a fixture is": a question, not an answer
        return False
    before = last - len(term)
    while before > 0 and words[before] in ARTICLES:
        before -= 1
    if before >= 0 and words[before] in OBJECT_MARKERS:  # "the problem with using a fixture here is …"
        return False
    return bool(DEFINING_VERBS & set(words[last + 1 : last + 1 + VERB_WITHIN]))


def _names(words: list[str], term: list[str]) -> bool:
    """True for "… is known as a bloom", "the basic unit of bread is the crumb cell": a naming verb, then
    nothing but glue words or the term's own up to the term's last word, which ends the phrase ("is the
    baby's brain" names a brain). One word of the term may be left out ("the neuron" names a biological
    neuron), but no other word may stand before it ("scalar quantization" does not name product
    quantization). "There is a fixture" only says that one exists."""
    for at in (position for position, word in enumerate(words) if word == term[-1]):
        position = at - 1
        while position >= 0 and (words[position] in term or words[position] in NAMING_GLUE):
            position -= 1
        if position < 0 or words[position] not in NAMING_VERBS:
            continue
        named = set(words[position + 1 : at + 1]) & set(term)
        ends = at + 1 == len(words) or words[at + 1] in STOPWORDS
        before = set(words[max(0, position - ASKING_WITHIN) : position])
        if len(named) >= len(set(term)) - 1 and ends and not before & (ASKING_WORDS | EXISTENTIAL):
            return True
    return False


def subject(topic: str) -> list[str] | None:
    """The stemmed words of what a question is about when it names a thing and asks nothing more of it
    ("How does HNSW work?"), in order; None for a question about something ("How do fixtures share …")."""
    # A compound counts once, as written ("cross-encoder": "cross", "encoder", not "crossencoder" too).
    joined = {stem(word) for word in compounds(topic)}
    words = [word for word in dict.fromkeys(content_words(topic, NO_TOPIC_WORDS)) if word not in joined]
    return words if 0 < len(words) <= MAX_TERM_WORDS else None
