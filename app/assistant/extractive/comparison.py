"""Split a question about two things ("compare X and Y", "X versus Y", "in A and in B") into two questions.

The extractive answerer answers each half on its own and quotes both, so a comparison is not answered from
whichever of its two lessons happens to rank first. The split is a word-level heuristic: the two compared
phrases are the words on either side of the joining word, up to punctuation or a word that cannot belong
to a compared phrase (a question word, a verb of the question, a preposition before the first phrase).
Only a question that says it compares ("compare", "versus", "both", "each", "difference") is split, or one
that names two courses, repeats its preposition ("in deployment and in tests"), asks a second question
after ", and", or asks the same of two subjects ("how do A and B change what …"): a plain "and" is too
often part of one thing ("Flask and HTMX", "chunk size and overlap").
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from app.search.names import content_words

if TYPE_CHECKING:
    from app.search.models import CourseRecord

CUE_RE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|versus|vs\.?|both|each|differences?|differs?|contrast)\b",
    re.IGNORECASE,
)
COURSE_RE = re.compile(r"\b(?:course|class|lecture|lesson)\b", re.IGNORECASE)
QUESTION_WORDS = frozenset({"how", "what", "why", "which", "where", "when", "who"})
PREPOSITIONS = frozenset({"in", "of", "about", "for", "on", "from", "with", "to", "at", "by", "during"})
# "compared with"/"compared to" join too; the first word is the joiner, the second is skipped.
COMPARED_RE = re.compile(r"^compared$", re.IGNORECASE)
# Words that end the first phrase, read leftwards from the joiner.
LEFT_STOPS = frozenset(
    {
        "how", "what", "why", "where", "when", "which", "who", "do", "does", "did", "is", "are", "was",
        "were", "should", "must", "can", "could", "would", "will", "say", "says", "in", "of", "about", "for",
        "on", "from", "with", "to", "at", "by", "compare", "between", "both", "each", "either", "explain",
        "describe", "contrast",
    }
)  # fmt: skip
# Words that end the second phrase, read rightwards from the joiner.
RIGHT_STOPS = frozenset({"each", "both", "say", "says", "do", "does", "is", "are", "differ", "compare"})
# "How do A and B change …": the verb after two subjects ends the second one (no length limit there).
SUBJECT_AUXILIARIES = frozenset({"do", "did"})
SUBJECT_VERBS = frozenset(
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
# The second phrase takes at most this many words more than the first (or MIN_SECOND in all).
EXTRA_WORDS = 1
MIN_SECOND = 4
PUNCTUATION = ",;:?!.()"
# A half names a lesson when at least this share of its own words are the lesson title's.
TITLE_SHARE = 0.5
DASHES = frozenset({"-", "–", "—"})


def split_comparison(question: str) -> tuple[str, str] | None:
    """Two questions, one per compared thing, or None when the question compares nothing.

    Each joining word is tried from the last: "What do the CNN lecture and the brain lecture say about
    vision and faces?" is split at its first "and", the one between two lectures.
    """
    words = question.split()
    for joint in _joints(words):
        halves = _split_at(question, words, joint)
        if halves is not None:
            return halves
    return _change(words)


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
    clause = words[start - 1].endswith(",") and bool(QUESTION_WORDS & {word.lower() for word in words[end:]})
    # "who invented X and what did he win for it": a second question right after the "and".
    clause = clause or (end < len(words) and {words[0].lower(), words[end].lower()} <= QUESTION_WORDS)
    if clause:  # "How should X work, and in what order should Y happen?": two questions in one
        first = " ".join(words[:start]).rstrip(",") + "?"
        second = " ".join(words[end:])
        return (first, second) if _has_words(first) and _has_words(second) else None
    left = _phrase_start(words, start)
    right = _phrase_end(words, end, start - left)
    if left == start or right == end:
        return None
    repeated = left > 0 and end < len(words) and words[left - 1].lower() == words[end].lower() in PREPOSITIONS
    courses = all(COURSE_RE.search(" ".join(phrase)) for phrase in (words[left:start], words[end:right]))
    if not (CUE_RE.search(question) or repeated or courses):
        if not _two_subjects(words, left, start):
            return None
        right = _subject_end(words, end)
    first = " ".join(words[:start] + words[right:])
    second = " ".join(words[:left] + words[end:])
    return first, second


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


def _two_subjects(words: list[str], left: int, joiner: int) -> bool:
    """True for "how do A and B <verb> …": the first phrase is the subject right after "wh- do", and a verb of
    the question follows the second ("how do I combine X and Y" has a pronoun subject: no)."""
    framed = (
        left >= 2
        and words[left - 1].lower() in SUBJECT_AUXILIARIES
        and words[left - 2].lower() in QUESTION_WORDS
    )
    verb = any(word.lower() in SUBJECT_VERBS for word in words[joiner + 1 :])
    return framed and left < joiner and words[left].lower() not in PRONOUNS and verb


def _subject_end(words: list[str], start: int) -> int:
    """Where the second subject ends: at the question's verb."""
    position = start
    while position < len(words) and words[position].lower() not in SUBJECT_VERBS:
        position += 1
    return position


def _phrase_end(words: list[str], start: int, first_length: int) -> int:
    """Where the second phrase ends: up to a stop word or punctuation, and about as long as the first."""
    limit = start + max(first_length + EXTRA_WORDS, MIN_SECOND)
    position = start
    while position < min(len(words), limit):
        word = words[position]
        if word.lower() in RIGHT_STOPS or word in DASHES:
            break
        position += 1
        if word[-1] in PUNCTUATION:
            break
    return position


def _has_words(text: str) -> bool:
    """True for text with at least one word."""
    return bool(re.search(r"\w", text))


def distinctive(topic: str, other: str) -> set[str]:
    """The stemmed content words of one half that the other half lacks (or has fewer times: "the brain
    lecture … in the brain" against "the CNN lecture … in the brain"): what tells the halves apart."""
    return set(Counter(content_words(topic)) - Counter(content_words(other)))


def without_title(topic: str, title: str) -> str:
    """The topic without the words that named its lesson ("the brain lecture"): inside the lesson they tell
    no passage apart, and they pull the search toward any passage that says them."""
    naming = set(content_words(title))
    kept = [word for word in topic.split() if not COURSE_RE.fullmatch(word.strip(PUNCTUATION))]
    kept = [word for word in kept if not naming & set(content_words(word))]
    return " ".join(kept) if content_words(" ".join(kept)) else topic


def named_lesson(topic: str, other: str, courses: list[CourseRecord]) -> tuple[CourseRecord, int] | None:
    """The course and lesson one half names by a word of its title ("the Skinner lecture", "HNSW graphs");
    None when it names none or several.

    The word must tell the halves apart (the other half lacks it), be in exactly one lesson title of the
    library and in no course title: "deep" or "psychology" name no lesson.
    """
    holders: dict[str, set[tuple[str, int]]] = {}
    for course in courses:
        for lesson in course.lessons:
            for word in content_words(lesson.title):
                holders.setdefault(word, set()).add((course.title, lesson.number))
    in_titles = {word for course in courses for word in content_words(course.title)}
    naming = {word for word in distinctive(topic, other) - in_titles if len(holders.get(word, ())) == 1}
    places = {place for word in naming for place in holders[word]}
    if len(places) != 1:
        return None
    ((course_title, number),) = places
    course = next(course for course in courses if course.title == course_title)
    lesson_title = next(lesson.title for lesson in course.lessons if lesson.number == number)
    # A topic word that happens to be in a title ("neural networks") names no lesson: the half must say
    # "lecture" or "lesson", or be mostly the title's words.
    own = distinctive(topic, other)
    if not COURSE_RE.search(topic) and len(own & set(content_words(lesson_title))) < TITLE_SHARE * len(own):
        return None
    return course, number
