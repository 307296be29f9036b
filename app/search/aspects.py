"""Split a question that names its subject, then two sides of it ("re-indexing: skipping unchanged files and
replacing changed chunks") into one question per side.

The subject comes first, ended by a colon or a dash; the two sides follow, joined by the question's one
"and". Each side is asked on its own, the subject after it as what it is about ("skipping unchanged files
(re-indexing)"), so each is searched and quoted for what tells it apart: asked whole, the side whose words
dominate the question takes every passage, and the subject's words, shared by both, weigh less than the
side's own (measured on one made-up library question: with the subject first, the subject's words led one
side to a passage about it in general). A tail that asks a question of its own
("X: how do A and B differ?") is left to the comparison rules (`app.search.split`).
"""

from __future__ import annotations

from app.search.names import content_words

DASHES = frozenset({"-", "–", "—"})
QUESTION_WORDS = frozenset({"how", "what", "why", "which", "where", "when", "who", "whats", "hows"})
PUNCTUATION = ",;:?!.()"


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
