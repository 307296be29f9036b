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
builds more gluten?") asks that question of each thing. A head naming a course ("the Flask and HTMX
course: …") is one thing.
"""

from __future__ import annotations

import re

from app.search.names import content_words

DASHES = frozenset({"-", "–", "—"})
QUESTION_WORDS = frozenset({"how", "what", "why", "which", "where", "when", "who", "whats", "hows"})
PUNCTUATION = ",;:?!.()"
COURSE_RE = re.compile(r"\b(?:course|class|lecture|lesson)\b", re.IGNORECASE)
# Each of the two things before the colon is at most this many words: longer, the head is a clause.
MAX_THING = 4


def subject_sides(words: list[str]) -> tuple[str, str] | None:
    """The two questions "<side> (<subject>)" of "<subject>: <side> and <side>", else None."""
    ends = [at for at, word in enumerate(words) if word.endswith(":") or word in DASHES]
    if len(ends) != 1:
        return None
    head, tail = words[: ends[0] + 1], words[ends[0] + 1 :]
    joins = [at for at, word in enumerate(tail) if word.lower() == "and"]
    if len(joins) != 1 or QUESTION_WORDS & {word.lower().strip(PUNCTUATION) for word in tail}:
        return None
    first, second = tail[: joins[0]], tail[joins[0] + 1 :]
    if not all(content_words(" ".join(part)) for part in (head, first, second)):
        return None
    subject = " ".join(head[:-1] if head[-1] in DASHES else head).rstrip(":")
    last = " ".join(second)
    ending = last[len(last.rstrip(PUNCTUATION)) :]  # the question mark goes to the end
    return f"{' '.join(first)} ({subject}){ending}", f"{last.rstrip(PUNCTUATION)} ({subject}){ending}"


def things_then_question(words: list[str]) -> tuple[str, str] | None:
    """The two questions "<thing>: <question>" of "<thing> and <thing>: <question>", else None."""
    ends = [at for at, word in enumerate(words) if word.endswith(":") or word in DASHES]
    if len(ends) != 1:
        return None
    head, tail = words[: ends[0] + 1], words[ends[0] + 1 :]
    joins = [at for at, word in enumerate(head) if word.lower() == "and"]
    if len(joins) != 1 or not tail or tail[0].lower().strip(PUNCTUATION) not in QUESTION_WORDS:
        return None
    first, second = head[: joins[0]], head[joins[0] + 1 :]
    if second and second[-1] in DASHES:
        second = second[:-1]
    if COURSE_RE.search(" ".join(head)) or not all(0 < len(thing) <= MAX_THING for thing in (first, second)):
        return None
    if not all(content_words(" ".join(thing)) for thing in (first, second)):
        return None
    question = " ".join(tail)
    return f"{' '.join(first)}: {question}", f"{' '.join(second).rstrip(':')}: {question}"
