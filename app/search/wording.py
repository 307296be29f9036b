"""The words and marks that shape a question, shared by the rules that split and read it."""

from __future__ import annotations

import re

# A word naming a course or one of its lessons ("the RAG course", "the pizza lecture").
COURSE_RE = re.compile(r"\b(?:course|class|lecture|lesson)\b", re.IGNORECASE)
QUESTION_WORDS = frozenset({"how", "what", "why", "which", "where", "when", "who"})
PUNCTUATION = ",;:?!.()"
DASHES = frozenset({"-", "–", "—"})
# Words that only ask ("how is it", "what do servers"): no subject of their own.
AUXILIARIES = frozenset(
    {
        "do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "can", "could", "will",
        "would", "should",
    }
)  # fmt: skip
