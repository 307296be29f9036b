"""What kind of sentence a quote candidate is: a question (the lecturer asking, not answering), filler that
says nothing ("All right.", "So, um, let's see"), or a sentence that says what is coming next.

Spoken lectures ask and then answer ("So what did he do? He burned his ships."): the question echoes the
student's words but answers nothing, while the short sentence after it is the answer.
"""

from __future__ import annotations

import re

from app.language.lexicon import STOPWORDS
from app.language.tokens import content_words, tokens

# A closing tag turns a statement into a question in form only ("He burned his ships, right?").
TAG_RE = re.compile(
    r",?\s*(?:right|okay|ok|yeah|yes|no|huh|correct|isn't it|aren't they|don't they|doesn't it|you see|see)"
    r"\s*\?+[\"'”’)\s]*$",
    re.IGNORECASE,
)
QUESTION_END_RE = re.compile(r"\?[\"'”’)\s]*$")
# Captions often lose a question's "?": a sentence that opens as a question does, with a question word, an
# auxiliary and its subject ("Why doesn't the dough rise.", "How do we check that."), or a question word
# contracted with "is" ("What's a mill race."), asks all the same.
# A question word without an auxiliary after it opens a statement ("What we do is …", "When I was young …").
ASKING_RE = re.compile(
    r"^(?:(?:so|and|but|now|okay|ok|well|um|uh|then|all right|alright),?\s+)*"
    r"(?:(?:why|how|what|who|which|when|where)\s+"
    r"(?:do|does|did|is|are|was|were|can|could|will|would|should|has|have|had)(?:n't|\s+not)?"
    r"|(?:how|what|who|where)['’]s)\s+"
    r"(?:you|we|i|he|she|it|they|this|that|these|those|there|the|a|an|our|your|his|her|their|its)\b",
    re.IGNORECASE,
)
# A longer one has likely run on into what follows it (captions merge sentences) and may hold the answer.
MAX_ASKING_WORDS = 20
# Not questions though they open as one: a suggestion ("Why don't we start with …") and a cleft sentence
# whose question word opens its subject ("What do you do is you measure …").
SUGGESTION_RE = re.compile(r"\bwhy\s+(?:don't|not)\s+(?:we|i|you)\b", re.IGNORECASE)
CLEFT_RE = re.compile(r"\b(?:is|was)\s+(?:you|we|i|they|he|she|that)\b", re.IGNORECASE)
# The lecturer handing the word to a student ("Yes, the woman at the front.", "You at the back."): a short
# sentence that points at someone says nothing of the subject; the student's reply follows it.
CALL_RE = re.compile(
    r"\b(?:(?:the|this|that)\s+(?:guy|gentleman|lady|woman|man|fellow|student|person)|you)"
    r"\s+(?:in|at|on|with|over|up|down|there|here)\b",
    re.IGNORECASE,
)
MAX_CALL_WORDS = 8
# Words of speech that carry no content: a sentence made of these and stopwords alone is filler.
SPOKEN = frozenset(
    {
        "um", "uh", "er", "ah", "oh", "okay", "ok", "right", "so", "yeah", "yes", "like", "well", "all",
        "alright", "just", "really", "actually", "know", "kind", "sort", "thing", "things", "stuff", "going",
        "gonna", "let", "now", "here", "there", "good", "great", "anyway", "see", "get", "got", "want",
        "think", "say", "said", "talk", "today", "guy", "guys", "lot", "little", "bit", "way", "look",
        "thank", "thanks", "sure", "mean", "then", "very", "not", "have", "has", "had", "was", "were", "will",
        "would", "could", "should", "we", "they", "he", "she", "him", "her", "them", "their", "his", "our",
        "us", "be", "been", "but", "if", "than", "because", "some", "any", "also", "one", "two", "first",
        "next", "last", "again", "back", "come", "go", "make", "made", "take", "start", "people", "point",
        "example", "question", "idea", "something", "anything", "everything", "everyone", "somebody", "why",
    }
)  # fmt: skip
# The lecturer acknowledging a student's answer ("Perfect.", "Exactly."), which the captions often missed,
# or hesitating ("Yup.", "Hmm.").
ACKNOWLEDGING = frozenset(
    {"perfect", "exactly", "excellent", "correct", "precisely", "absolutely", "good", "great"}
)
HESITATING = frozenset({"yup", "yep", "hmm", "mhm"})
FILLER_STOPWORDS = STOPWORDS | SPOKEN | ACKNOWLEDGING | HESITATING
# A sentence with fewer content words than this says nothing on its own.
MIN_CONTENT = 2
# A sentence opening with one of these refers to the sentence before it.
BACK_REFERENCES = frozenset({"they", "it", "this", "these", "those", "he", "she"})
# The lecturer announcing what comes next ("what we're going to do", "let's start with"), not saying it.
PLAN_RE = re.compile(
    r"\b(?:going to|gonna|let's|let me|we'll|I'll|I want to|we want to|I'd like to|talk about)\b",
    re.IGNORECASE,
)

# Endings that make another word of one family ("retriever", "retrieval", "retrieve"; "indexed", "index";
# "falsifiable", "falsifiability"), taken off a stem that keeps at least ROOT_LETTERS letters. Longer endings
# first: "ability" before "ity".
FAMILY_ENDINGS = ("ability", "able", "ity", "ive", "ers", "er", "als", "al", "ions", "ion", "ed", "e")
ROOT_LETTERS = 5


def root(word: str) -> str:
    """A stemmed word without the ending that makes it another word of its family ("retriev")."""
    for ending in FAMILY_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= ROOT_LETTERS:
            return word[: -len(ending)]
    return word


def is_question(sentence: str) -> bool:
    """True when the sentence asks rather than says: it ends in "?" but not in a tag ("…, right?"), or
    without its "?" it opens as a question does ("Why doesn't the dough rise.")."""
    if QUESTION_END_RE.search(sentence):
        return not TAG_RE.search(sentence)
    opening = ASKING_RE.match(sentence)
    if (
        opening is None
        or len(tokens(sentence)) > MAX_ASKING_WORDS
        or SUGGESTION_RE.search(sentence, 0, opening.end())
    ):
        return False
    return not CLEFT_RE.search(sentence, opening.end())


def acknowledges(sentence: str) -> bool:
    """True when the sentence only acknowledges an answer given ("Perfect.", "Good, exactly.")."""
    words = {word.lower() for word in tokens(sentence)}
    return bool(words & ACKNOWLEDGING) and not content_words(sentence, FILLER_STOPWORDS)


def calls_on(sentence: str) -> bool:
    """True when the sentence is the lecturer handing the word to a student ("You at the back.")."""
    return len(tokens(sentence)) <= MAX_CALL_WORDS and bool(CALL_RE.search(sentence))


def is_filler(sentence: str) -> bool:
    """True when the sentence has fewer than MIN_CONTENT words that are not stopwords or words of speech."""
    return len(content_words(sentence, FILLER_STOPWORDS)) < MIN_CONTENT


def announces(sentence: str) -> bool:
    """True when the sentence says what the lecturer is about to do rather than what is so."""
    return bool(PLAN_RE.search(sentence))


def continues(before: str, after: str) -> bool:
    """True when `after` opens with a pronoun for what `before` said and repeats one of its words."""
    words = tokens(after)
    if not words or words[0].lower() not in BACK_REFERENCES:
        return False
    return bool(set(content_words(before, FILLER_STOPWORDS)) & set(content_words(after, FILLER_STOPWORDS)))


def repeats(sentence: str, before: str) -> bool:
    """True when the sentence says again what the one before it said: every word of content it has is one
    of that sentence's (a lecturer repeats a point: "We lowered the payoff of the borrower.")."""
    own = set(content_words(sentence, FILLER_STOPWORDS))
    return len(own) >= MIN_CONTENT and own <= set(content_words(before, FILLER_STOPWORDS))
