"""Split "is A faster than B?" into "is A faster?" and "is B faster?".

A comparative ("faster", "more faithful", "fewer") before "than" sets two things against each other, as
"versus" does, but its two phrases sit apart: A between the question's "is" and the comparative, B after
"than" up to punctuation, a preposition or a question word. Each half asks the comparative of its own
thing, with what the question adds after B ("… for large collections?"). Only questions framed by "to be"
are read: in "does A return fewer results than B", where A ends is not written.
"""

from __future__ import annotations

from app.language.lexicon import PUNCTUATION

BE = frozenset({"is", "are", "was", "were"})
# The words before "than" that make it a comparison; "-er" words too ("faster", "cheaper"). "more than"
# alone is a quantity ("more than ten").
MORE = frozenset({"more", "less", "fewer"})
BETTER = frozenset({"better", "worse"})
NOT_COMPARATIVE = frozenset({"other", "rather", "whether", "either", "neither", "ever", "never", "over"})
ENDS = frozenset(
    {
        "in", "at", "on", "for", "with", "when", "during", "by", "to", "and", "or", "how", "why", "what",
        "which",
    }
)  # fmt: skip
PRONOUNS = frozenset({"it", "this", "that", "there", "they", "he", "she", "i", "you", "we", "one"})
# The opening ("is", "why is") and each compared thing are at most this many words.
MAX_OPENING = 2
MAX_THING = 4


def comparative_halves(words: list[str]) -> tuple[str, str] | None:
    """The two questions of "is A <comparative> than B …", else None."""
    lowered = [word.lower().strip(PUNCTUATION) for word in words]
    than = next((at for at in range(2, len(words) - 1) if lowered[at] == "than"), None)
    be = next((at for at in range(min(MAX_OPENING, len(words))) if lowered[at] in BE), None)
    if than is None or be is None:
        return None
    if lowered[than - 2] in MORE and than - 2 > be + 1:
        at = than - 2  # "more faithful than"
    elif _comparative(lowered[than - 1]):
        at = than - 1  # "faster than", "fewer than"
    else:
        return None
    end = than + 1
    while end < len(words) and end - than <= MAX_THING and lowered[end] not in ENDS:
        end += 1
        if words[end - 1][-1] in PUNCTUATION:
            break
    first, second = words[be + 1 : at], words[than + 1 : end]
    if not first or len(first) > MAX_THING or not second or end - than > MAX_THING:
        return None
    if lowered[be + 1] in PRONOUNS or second[0][:1].isdigit():  # "is it more than ten?": a quantity
        return None
    rest, comparison = _joined(words[end:]), words[at:than]
    ending = second[-1][len(second[-1].rstrip(PUNCTUATION)) :]  # B's question mark ends each half
    second = [*second[:-1], second[-1].rstrip(PUNCTUATION)]
    return (
        " ".join(words[:than]) + ending + rest,
        " ".join([*words[: be + 1], *second, *comparison]) + ending + rest,
    )


def _joined(rest: list[str]) -> str:
    """What the question adds after B, with its leading space."""
    return " " + " ".join(rest) if rest else ""


def _comparative(word: str) -> bool:
    """True for a comparative adjective or adverb ("faster", "better", "fewer")."""
    if word in BETTER:
        return True
    return len(word) > 4 and word.endswith("er") and word not in NOT_COMPARATIVE
