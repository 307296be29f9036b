"""Every English word list and cue pattern the app reads questions and sentences with, each named by its
role and defined once (the rules import them from here, never from each other)."""

from __future__ import annotations

import re

# Words that say nothing about which course (or which topic) is meant.
FUNCTION_WORDS = frozenset(
    {
        "a", "an", "and", "are", "about", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
        "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "that", "the",
        "this", "to", "what", "when", "where", "which", "who", "why", "with", "you", "your",
    }
)  # fmt: skip
# Words that say "a course" without saying which one.
COURSE_WORDS = frozenset(
    {
        "course", "courses", "class", "classes", "lesson", "lessons", "lecture", "lectures", "module",
        "modules", "tutorial", "tutorials", "intro", "introduction", "one",
    }
)  # fmt: skip
STOPWORDS = FUNCTION_WORDS | COURSE_WORDS
# Two-letter words that carry no topic: function words, spoken fillers, the tails of contractions ("we'll",
# "they're"), abbreviations. Any other two-letter word is a term ("the id and the ego", "a vector db").
SHORT_WORDS = frozenset(
    {
        "ah", "am", "an", "as", "at", "be", "by", "do", "eg", "eh", "er", "go", "ha", "he", "hi", "hm", "ie",
        "if", "in", "is", "it", "ll", "me", "mm", "mr", "ms", "my", "no", "of", "oh", "ok", "on", "or", "so",
        "to", "uh", "um", "up", "us", "ve", "vs", "we", "ya", "ye", "yo", "re", "st", "nd", "rd", "th", "dr",
        "co", "pp", "ad",
    }
)  # fmt: skip
# A word naming a course or one of its lessons ("the RAG course", "the pizza lecture").
COURSE_RE = re.compile(r"\b(?:course|class|lecture|lesson)\b", re.IGNORECASE)
# The seven question words: a question's frame, not its topic.
WH_WORDS = frozenset({"how", "what", "why", "which", "where", "when", "who"})
PUNCTUATION = ",;:?!.()"
DASHES = frozenset({"-", "–", "—"})
# Words that only ask ("how is it", "what do servers"): no subject of their own.
AUXILIARIES = frozenset(
    {
        "do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "can", "could", "will",
        "would", "should",
    }
)  # fmt: skip
# Words of a question that ask rather than say what about: a question left with none of its other words
# asks for an overview ("What does lesson 6 of the pottery course cover?").
NO_TOPIC_WORDS = STOPWORDS | frozenset(
    {
        "say", "says", "said", "tell", "explain", "explains", "cover", "covers", "covered", "teach",
        "teaches", "taught", "learn", "summarise", "summarize", "summary", "describe", "discuss", "talk",
        "did", "was", "were", "will", "there", "main", "key", "point", "topic", "instructor", "overview",
        "work", "works", "use", "used", "mean", "means", "best", "good", "get",
        "whats", "hows", "wheres", "whos", "whens", "whys",  # contractions written without the apostrophe
    }
)  # fmt: skip
