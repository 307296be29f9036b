"""Split a question about two things ("compare X and Y", "X versus Y", "in A and in B") into two questions.

The extractive answerer's comparison reader (each half searched and answered on its own and both quoted), so a
comparison is not served by whichever of its two lessons happens to rank first. The split is a word-level
heuristic: the two compared phrases are the words on either side of the joining word, up to punctuation or a
word that cannot belong to a compared phrase (a question word, a verb of the question, a preposition before
the first phrase). Only a question that says it compares ("compare", "versus", "both", "each", "difference")
is split, or one that names two courses, repeats its preposition ("in summer and in winter"), asks a second
question after ", and", or asks the same of two subjects ("how do A and B change what …"): a plain "and" is
too often part of one thing ("Flask and HTMX", "chunk size and overlap").
"""

from __future__ import annotations

import re

from app.language.lexicon import COURSE_RE, DASHES, FUNCTION_WORDS, PUNCTUATION, WH_WORDS
from app.language.tokens import stem

CUE_RE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|versus|vs\.?|both|each|differences?(?:\s+between)?|differs?|contrast"
    r"|distinguish(?:es)?)\b",
    re.IGNORECASE,
)
# A question that asks to choose between two things joined by "or".
CHOICE_RE = re.compile(
    r"\b(?:better|worse|prefer|preferred|choose|pick|rather|whether|which (?:is|one|should|would|to))\b",
    re.IGNORECASE,
)
PREPOSITIONS = frozenset({"in", "of", "about", "for", "on", "from", "with", "to", "at", "by", "during"})
# "compared with"/"compared to" join too; the first word is the joiner, the second is skipped.
COMPARED_RE = re.compile(r"^compared$", re.IGNORECASE)
# Words that end the first phrase, read leftwards from the joiner.
LEFT_STOPS = frozenset(
    {
        "how", "what", "why", "where", "when", "which", "who", "do", "does", "did", "is", "are", "was",
        "were", "should", "must", "can", "could", "would", "will", "say", "says", "in", "of", "about", "for",
        "on", "from", "with", "to", "at", "by", "compare", "between", "both", "each", "either", "explain",
        "describe", "contrast", "use", "using", "choose", "pick", "prefer",
    }
)  # fmt: skip
# Words that end the second phrase, read rightwards from the joiner.
RIGHT_STOPS = frozenset({"each", "both", "say", "says", "do", "does", "is", "are", "differ", "compare"})
# "How do A and B change …", "How are A and B different?": the verb (or the likeness) after two subjects
# ends the second one (no length limit there).
SUBJECT_AUXILIARIES = frozenset({"do", "did", "are", "were"})
LIKENESS = frozenset({"different", "similar", "alike", "related"})
SUBJECT_VERBS = LIKENESS | frozenset(
    {
        "change", "affect", "work", "use", "relate", "explain", "define", "handle", "treat", "show",
        "differ", "compare", "say", "mean", "lead", "make", "help", "cause", "influence", "shape", "fit",
    }
)  # fmt: skip
# "X dropped from A to B": a change between two moments or states, each its own question.
CHANGE_VERBS = frozenset(
    {
        "drop", "dropped", "fall", "fell", "rise", "rose", "grow", "grew", "change", "changed", "go", "went",
        "improve", "improved", "increase", "increased", "decrease", "decreased", "shift", "shifted", "move",
        "moved", "evolve", "evolved",
    }
)  # fmt: skip
PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it", "people", "one"})
# "How does A differ from B", "How is A different than B", "How does A compare to B": the words between.
DIFFER_PAIRS = frozenset(
    {
        (word, joiner)
        for word in ("differ", "differs", "differed", "different", "differently", "distinct")
        for joiner in ("from", "than")
    }
    | {(word, joiner) for word in ("compare", "compares") for joiner in ("to", "with", "against")}
)
# "What distinguishes A from B": the word before A.
DISTINGUISH_WORDS = frozenset({"distinguish", "distinguishes"})
RECIPROCALS = frozenset({"each other", "one another"})
# Where A starts, read leftwards from "differ": after the question's opening words.
OPENINGS = WH_WORDS | frozenset(
    {"do", "does", "did", "is", "are", "was", "were", "makes", "make", "made", "way", "ways"}
)
# The second phrase takes at most this many words more than the first (or MIN_SECOND in all).
EXTRA_WORDS = 1
MIN_SECOND = 4


def split_comparison(question: str) -> tuple[str, str] | None:
    """Two questions, one per compared thing, or None when the question compares nothing.

    "How does A differ from B?" compares A and B. Otherwise each joining word is tried from the last: "What
    do the sourdough lecture and the pizza lecture say about yeast and salt?" is split at its first "and", the
    one between two lectures.
    """
    words = question.split()
    differ = _differ(words)
    if differ is not None:
        return differ
    for joint in _joints(words):
        halves = _split_at(question, words, joint)
        if halves is not None:
            return halves
    return _change(words)


def _differ(words: list[str]) -> tuple[str, str] | None:
    """ "How does A differ from B?", "How is A different than B?", "What distinguishes A from B?", "How does
    A compare to B?": A and B, each with the question's opening and what it asks after them ("…, and when
    is each used?").

    A is the words between the question's opening (a question word, its auxiliary or verb) and "differ"; B
    runs from "from" up to punctuation or a new question word.
    """
    lowered = [word.lower().strip(PUNCTUATION) for word in words]
    for at in range(1, len(words) - 1):
        if (lowered[at], lowered[at + 1]) in DIFFER_PAIRS:
            start, end = at, at + 2
        elif lowered[at] in DISTINGUISH_WORDS and "from" in lowered[at + 2 :]:
            start, end = lowered.index("from", at + 2), lowered.index("from", at + 2) + 1
        else:
            continue
        left = start
        while left > 0 and lowered[left - 1] not in OPENINGS and words[left - 1][-1] not in PUNCTUATION:
            left -= 1
        if lowered[at] in DISTINGUISH_WORDS:
            left = at + 1
        right = end
        while right < len(words) and lowered[right] not in WH_WORDS and words[right] not in DASHES:
            right += 1
            if words[right - 1][-1] in PUNCTUATION:
                break
        first, second = " ".join(words[left:start]), " ".join(words[end:right])
        if not (_has_words(first) and _has_words(second)) or lowered[left] in PRONOUNS:
            return None
        if " ".join(lowered[end:right]) in RECIPROCALS:  # "how do A and B compare with each other"
            return None
        opening, rest = words[:left], words[right:]
        return " ".join([*opening, first.rstrip(PUNCTUATION), *rest]), " ".join([*opening, second, *rest])
    return None


def _change(words: list[str]) -> tuple[str, str] | None:
    """ "How much did X drop from A to B?": X at A, and X at B (a change compares two moments)."""
    lowered = [word.lower() for word in words]
    start = next(
        (at for at in range(1, len(words)) if lowered[at] == "from" and lowered[at - 1] in CHANGE_VERBS), None
    )
    end = next((at for at in range(start + 2, len(words)) if lowered[at] == "to"), None) if start else None
    if start is None or end is None or end + 1 >= len(words):
        return None
    return " ".join(words[:end]).rstrip(PUNCTUATION) + "?", " ".join(words[:start] + words[end + 1 :])


def _split_at(question: str, words: list[str], joint: tuple[int, int]) -> tuple[str, str] | None:
    """The two questions when the words around the joint are two compared things, else None."""
    start, end = joint
    if _compare_with(words, start):  # "Compare A with B": A and B are the two questions
        first, second = " ".join(words[1:start]), " ".join(words[end:])
        return (first, second) if _has_words(first) and _has_words(second) else None
    clause = words[start - 1].endswith(",") and bool(WH_WORDS & {word.lower() for word in words[end:]})
    # "who built X and what did he get for it": a second question right after the "and".
    clause = clause or (end < len(words) and {words[0].lower(), words[end].lower()} <= WH_WORDS)
    # "X in one lecture and where Y came from in another": a second question that stands on its own (no
    # pronoun pointing back at the first).
    clause = clause or (
        end < len(words)
        and words[end].lower() in WH_WORDS
        and not PRONOUNS & {word.lower().strip(PUNCTUATION) for word in words[end:]}
    )
    if clause:  # "How should X start, and at what point should Y stop?": two questions in one
        first = " ".join(words[:start]).rstrip(",") + "?"
        second = " ".join(words[end:])
        return (first, second) if _has_words(first) and _has_words(second) else None
    left = _phrase_start(words, start)
    restated = _restated_start(words, left, end)
    left = _parallel_start(words, left, end) if restated is None else restated
    right = _phrase_end(words, end, start - left)
    if restates(words[left:start], words[end:]):  # "chunking vs chunking with overlap and a prefix": whole
        right = _phrase_end(words, end, len(words))
    if start - left == 1 and _is_name(words[left]) and end < len(words) and _is_name(words[end]):
        right = _name_end(words, end)  # "Bach and Handel get praised": a name against a name
    if left == start or right == end:
        return None
    repeated = left > 0 and end < len(words) and words[left - 1].lower() == words[end].lower() in PREPOSITIONS
    courses = all(COURSE_RE.search(" ".join(phrase)) for phrase in (words[left:start], words[end:right]))
    chosen = words[start].lower() == "or"  # only joins when the question asks to choose (see `_joints`)
    if not (CUE_RE.search(question) or repeated or courses or chosen):
        if not _two_subjects(words, left, start):
            return None
        right = _subject_end(words, end)
        words = _without_likeness(words, right)
    first = " ".join(words[:start] + _shared_head(words[left:start], words[end:right]) + words[right:])
    # "in summer and in winter": the second phrase brings its own preposition.
    second = " ".join(words[: left - 1 if repeated else left] + words[end:])
    return _tidy(first), _tidy(second)


def _restated_start(words: list[str], left: int, end: int) -> int | None:
    """Where the first phrase starts when the second restates the subject the first is about ("caching in
    Redis vs caching after compression"): at that subject, as the two phrases read alike; else None."""
    if left < 2 or end >= len(words) or words[left - 1].lower() not in PREPOSITIONS:
        return None
    subject = words[end].lower().strip(PUNCTUATION)
    if subject in FUNCTION_WORDS or not _has_words(subject):
        return None
    for position in range(left - 2, -1, -1):
        word = words[position]
        if word[-1] in PUNCTUATION or word in DASHES:
            return None
        if word.lower() == subject or stem(word.lower()) == stem(subject):
            return position
    return None


def _tidy(text: str) -> str:
    """The text with single spaces and no space before punctuation."""
    return re.sub(r"\s+([?.!,;:])", r"\1", " ".join(text.split()))


def _without_likeness(words: list[str], at: int) -> list[str]:
    """The words without the likeness at `at` ("How are A and B different?"): it asks to compare, and each
    half is about its own subject. Its punctuation stays."""
    if at >= len(words) or words[at].lower().strip(PUNCTUATION) not in LIKENESS:
        return words
    return [*words[:at], words[at][len(words[at].rstrip(PUNCTUATION)) :], *words[at + 1 :]]


def _is_name(word: str) -> bool:
    """True for a word written with a capital, as a name or an acronym is ("Pasteur", "HNSW")."""
    return word[:1].isupper()


def _name_end(words: list[str], start: int) -> int:
    """Where a name that starts at `start` ends: after its capitalised words ("Carl Jung"), or punctuation."""
    position = start
    while position < len(words) and _is_name(words[position]):
        position += 1
        if words[position - 1][-1] in PUNCTUATION:
            break
    return position


def _shared_head(first: list[str], second: list[str]) -> list[str]:
    """The words a one-word first phrase shares with the second: "dense and sparse retrieval" compares dense
    retrieval with sparse retrieval, "tools vs resources in MCP" tools in MCP. A name ("HNSW and IVF
    indexes"), a second phrase opening on a function word ("dense vs the others") or on the first thing
    ("fixtures and fixture setup") shares nothing."""
    if len(first) != 1 or len(second) < 2 or not (first[0].islower() or first[0].isdigit()):
        return []
    if not (second[0].islower() or second[0].isdigit()) or second[0].lower() in FUNCTION_WORDS:
        return []
    # "fixtures and fixture setup": the second is a part of the first, not another kind of the same thing.
    return [] if stem(first[0]) == stem(second[0]) else second[1:]


def _joints(words: list[str]) -> list[tuple[int, int]]:
    """The joining words' spans, most telling first: "versus"/"compared with", then "compare A with B",
    then each "and" from the last."""
    joints = []
    for position in range(len(words) - 1, 0, -1):
        word = words[position].lower()
        if word in {"versus", "vs", "vs."}:
            joints.append((position, position + 1))
        if (
            COMPARED_RE.match(word)
            and position + 1 < len(words)
            and words[position + 1].lower() in {"with", "to"}
        ):
            joints.append((position, position + 2))
    # "Compare A with B": the first "with" or "to" joins (an "and" may sit inside A or B).
    joints += [(position, position + 1) for position in range(len(words)) if _compare_with(words, position)][
        :1
    ]
    joints += [
        (position, position + 1)
        for position in range(len(words) - 1, 0, -1)
        if words[position].lower().rstrip(",") == "and"
    ]
    # "Which is faster, A or B?": an "or" joins two things to choose between ("… or not?" joins none).
    if CHOICE_RE.search(" ".join(words)):
        joints += [
            (position, position + 1)
            for position in range(len(words) - 2, 0, -1)
            if words[position].lower() == "or" and words[position + 1].lower().strip(PUNCTUATION) != "not"
        ]
    return joints


def _compare_with(words: list[str], position: int) -> bool:
    """True when the word at `position` is the "with" or "to" of a question opening "Compare A with B"."""
    opens = bool(words) and words[0].lower() in {"compare", "contrast"}
    return opens and position >= 2 and words[position].lower() in {"with", "to"}


def _phrase_start(words: list[str], joiner: int) -> int:
    """Where the first phrase starts: leftwards from the joiner up to a stop word or punctuation."""
    position = joiner
    while position > 0:
        word = words[position - 1]
        if word.lower().strip(PUNCTUATION) in LEFT_STOPS or word in DASHES:
            break
        if position < joiner and word[-1] in PUNCTUATION:
            break
        position -= 1
    return position


def _parallel_start(words: list[str], left: int, end: int) -> int:
    """Where the first phrase starts when both phrases hold the same preposition ("backward induction in
    game theory vs discounting reward in deep RL"): before the first one's, as the two read alike; else
    `left`. A second phrase that opens on it ("in A and in B") repeats it instead, and a name against a
    name ("latency in Redis vs Kafka in production") are the two things compared."""
    preposition = words[left - 1].lower() if left >= 2 and end < len(words) else ""
    if preposition not in PREPOSITIONS or words[end].lower() == preposition:
        return left
    if _is_name(words[left]) and _is_name(words[end]):
        return left
    following = []
    for word in words[end + 1 :]:
        if word.lower() in RIGHT_STOPS or word in DASHES:
            break
        following.append(word.lower().strip(PUNCTUATION))
        if word[-1] in PUNCTUATION:
            break
    if preposition not in following:
        return left
    start = _phrase_start(words, left - 1)
    return start if start < left - 1 else left  # nothing before the preposition: it stays a stop


def _two_subjects(words: list[str], left: int, joiner: int) -> bool:
    """True for "how do A and B <verb> …": the first phrase is the subject right after "wh- do", and a verb of
    the question follows the second ("how do I combine X and Y" has a pronoun subject: no)."""
    framed = (
        left >= 2 and words[left - 1].lower() in SUBJECT_AUXILIARIES and words[left - 2].lower() in WH_WORDS
    )
    verb = any(word.lower().strip(PUNCTUATION) in SUBJECT_VERBS for word in words[joiner + 1 :])
    return framed and left < joiner and words[left].lower() not in PRONOUNS and verb


def _subject_end(words: list[str], start: int) -> int:
    """Where the second subject ends: at the question's verb."""
    position = start
    while position < len(words) and words[position].lower().strip(PUNCTUATION) not in SUBJECT_VERBS:
        position += 1
    return position


def _phrase_end(words: list[str], start: int, first_length: int) -> int:
    """Where the second phrase ends: up to a stop word or punctuation, and about as long as the first."""
    limit = start + max(first_length + EXTRA_WORDS, MIN_SECOND)
    position = start
    while position < min(len(words), limit):
        word = words[position]
        if word.lower() in RIGHT_STOPS or word in DASHES:
            return position
        position += 1
        if word[-1] in PUNCTUATION:
            return position
    cut = position < len(words) and words[position].lower() not in PREPOSITIONS | RIGHT_STOPS
    inner = [at for at in range(start + 1, position) if words[at].lower() in PREPOSITIONS]
    # The length cut a phrase such as "in miller's course" in two: it is left whole, to both halves.
    return inner[-1] if cut and inner and words[position] not in DASHES else position


def _has_words(text: str) -> bool:
    """True for text with at least one word."""
    return bool(re.search(r"\w", text))


def restates(first: list[str], second: list[str]) -> bool:
    """True when the second phrase opens on the whole first one ("chunking" and "chunking with overlap"): it
    is the first with a qualifier, and the qualifier runs to the clause's end, however long."""
    said = [word.lower().strip(PUNCTUATION) for word in first]
    return bool(said) and len(second) > len(said) and [word.lower() for word in second[: len(said)]] == said
