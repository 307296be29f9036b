"""What one half of a comparison shares with the other: the thing asked about, or its whole words.

Give the second half of "what N does A do vs what B does" the thing asked about (N) too.

"what primitives do servers expose vs what clients expose" splits into "what primitives do servers
expose?" and "what clients expose": the second half names its subject ("clients") but leaves out what is
asked of it ("primitives"), which the asker meant for both. The second half takes the words between the
first's question word and its auxiliary ("what primitives clients expose"), when it opens on the same
question word and has no auxiliary of its own (it continues the first's frame).
"""

from __future__ import annotations

from app.language.lexicon import AUXILIARIES, PUNCTUATION

# The question words that ask for a thing ("what primitives", "how many layers").
ASKING_WORDS = frozenset({"what", "which", "how", "whose"})
# At most this many words between the question word and its auxiliary: more is a clause, not a thing.
MAX_THING = 3


def with_asked_thing(first: str, second: str) -> str:
    """The second half, with the thing the first asks about after its question word when it left it out."""
    head, rest = first.split(), second.split()
    if len(head) < 3 or len(rest) < 2:
        return second
    opening = head[0].lower()
    if opening not in ASKING_WORDS or rest[0].lower() != opening:
        return second
    if AUXILIARIES & {word.lower() for word in rest}:
        return second
    # "how many layers do A have vs how many B have": what both say after the question word stays once.
    shared = 1
    while shared < min(len(head), len(rest)) - 1 and head[shared].lower() == rest[shared].lower():
        shared += 1
    aux = next((at for at, word in enumerate(head) if word.lower() in AUXILIARIES), None)
    # "how A works vs how B works" asks nothing of a thing; "how many X … vs how many …" does.
    if opening == "how" and shared < 2:
        return second
    if aux is None or not shared < aux <= shared + MAX_THING:
        return second
    return " ".join([*rest[:shared], *head[shared:aux], *rest[shared:]])


def restates(first: list[str], second: list[str]) -> bool:
    """True when the second phrase opens on the whole first one ("chunking" and "chunking with overlap"): it
    is the first with a qualifier, and the qualifier runs to the clause's end, however long."""
    said = [word.lower().strip(PUNCTUATION) for word in first]
    return bool(said) and len(second) > len(said) and [word.lower() for word in second[: len(said)]] == said
