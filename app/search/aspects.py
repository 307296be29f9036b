"""Split a question that names its subject, then two sides of it ("re-indexing: skipping unchanged files and
replacing changed chunks") into one question per side.

The subject comes first, ended by a colon or a dash; the two sides follow, joined by the question's one
"and". Each side is asked on its own, the subject after it as what it is about ("skipping unchanged files
(re-indexing)"), so each is searched and quoted for what tells it apart: asked whole, the side whose words
dominate the question takes every passage, and the subject's words, shared by both, weigh less than the
side's own (with the subject first, the one question of this form in our wording sets quoted, for one side,
a passage about the subject in general). A tail that asks a question of its own ("X: how do A and B
differ?") is left to the comparison rules (`app.search.split`).

The other way round, two things before the colon and a question after it ("kneading and folding: which
builds more gluten?") asks that question of each thing. A head naming a course ("the bread and pastry
course: …") is one thing.
"""

from __future__ import annotations

from app.language.lexicon import COURSE_RE, DASHES, PUNCTUATION, WH_WORDS
from app.language.tokens import content_words

OPENERS = WH_WORDS | frozenset({"whats", "hows"})
# Each of the two things before the colon is at most this many words: longer, the head is a clause.
MAX_THING = 4


def subject_sides(words: list[str]) -> tuple[str, str] | None:
    """The two questions "<side> (<subject>)" of "<subject>: <side> and <side>", else None."""
    parts = _at_colon(words, after=True)
    if parts is None:
        return None
    head, (first, second) = parts
    if OPENERS & {word.lower().strip(PUNCTUATION) for word in first + second}:
        return None
    if not all(content_words(" ".join(part)) for part in (head, first, second)):
        return None
    subject = " ".join(head[:-1] if head[-1] in DASHES else head).rstrip(":")
    last = " ".join(second)
    ending = last[len(last.rstrip(PUNCTUATION)) :]  # the question mark goes to the end
    return f"{' '.join(first)} ({subject}){ending}", f"{last.rstrip(PUNCTUATION)} ({subject}){ending}"


def things_then_question(words: list[str]) -> tuple[str, str] | None:
    """The two questions "<thing>: <question>" of "<thing> and <thing>: <question>", else None."""
    parts = _at_colon(words, after=False)
    if parts is None:
        return None
    tail, (first, second) = parts
    if not tail or tail[0].lower().strip(PUNCTUATION) not in OPENERS:
        return None
    second = second[:-1] if second and second[-1] in DASHES else second
    if COURSE_RE.search(" ".join(first + second)):  # "the bread and pastry course: …" names one course
        return None
    if not all(0 < len(thing) <= MAX_THING and content_words(" ".join(thing)) for thing in (first, second)):
        return None
    question = " ".join(tail)
    return f"{' '.join(first)}: {question}", f"{' '.join(second).rstrip(':')}: {question}"


def _at_colon(words: list[str], after: bool) -> tuple[list[str], tuple[list[str], list[str]]] | None:
    """The words on the question's one colon or dash: the side without the "and" (the head, colon
    included, or the tail), and the other side cut at its one "and" (`after`: the tail is cut)."""
    ends = [at for at, word in enumerate(words) if word.endswith(":") or word in DASHES]
    if len(ends) != 1:
        return None
    head, tail = words[: ends[0] + 1], words[ends[0] + 1 :]
    whole, cut = (head, tail) if after else (tail, head)
    joins = [at for at, word in enumerate(cut) if word.lower() == "and"]
    if len(joins) != 1:
        return None
    return whole, (cut[: joins[0]], cut[joins[0] + 1 :])
