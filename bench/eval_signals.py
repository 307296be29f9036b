"""Signals for a calibrated decline: per question, how sure the search is that the library covers it.

Computed here, independently of the app's own keyword index, so the figures stay comparable while the
search layer changes: BM25 over the library's chunks, the share of the question's content words in the top
passage, and the cosine scores the two rankings return.
"""

from __future__ import annotations

import difflib
import math
import re
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from app.courses.chunking import chunk_course
from app.courses.parsing import SUPPORTED_EXTENSIONS, parse_file

K1, B = 1.2, 0.75
# Question words that say nothing about the topic.
STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        """a about above after again all also an and any are as at be because been before being between both
        but by can could course courses did do does doing each explain explains for from had has have how i if
        in into is it its lecture lectures lesson lessons me more most my no not of on one or other our out
        over say says should so some such tell than that the their them then there these they this those
        through to too under up us use used using very vs was way we were what when where which while who
        whom why will with would you your mit yale""",
    )
)
SIGNALS = ("dense_cosine", "fused_cosine", "bm25", "share", "known", "confidence")


def words(text: str) -> list[str]:
    """Lower-cased word tokens with a plural 's' dropped, so "gates" meets "gate"."""
    return [re.sub(r"(?<=[a-z]{3})s$", "", word) for word in re.findall(r"[a-z0-9]+", text.lower())]


def content_words(text: str) -> set[str]:
    """The question's topic words: no stopwords, no words of one or two letters."""
    return {word for word in words(text) if word not in STOPWORDS and len(word) > 2}


def word_share(question: str, passage: str) -> float:
    """The share of the question's content words that the passage contains."""
    wanted = content_words(question)
    return len(wanted & set(words(passage))) / len(wanted) if wanted else 0.0


class Bm25:
    """Okapi BM25 over every chunk of a docs folder, chunked as the index chunks it."""

    def __init__(self, docs: Path, size: int, overlap: int):
        files = sorted(path for path in docs.iterdir() if path.suffix.lower() in SUPPORTED_EXTENSIONS)
        texts = [chunk.text for path in files for chunk in chunk_course(parse_file(path), size, overlap)]
        self.counts = [Counter(words(text)) for text in texts]
        self.lengths = [sum(count.values()) for count in self.counts]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        frequency = Counter(word for count in self.counts for word in count)
        total = len(self.counts)
        self.idf = {word: math.log(1 + (total - n + 0.5) / (n + 0.5)) for word, n in frequency.items()}

    def known(self, query: str) -> float:
        """The share of the query's content words the library holds, as written or within a typo of it."""
        wanted = content_words(query)
        vocabulary = list(self.idf)
        found = [
            word in self.idf or bool(difflib.get_close_matches(word, vocabulary, n=1, cutoff=0.8))
            for word in wanted
        ]
        return sum(found) / len(found) if found else 1.0

    def top(self, query: str) -> float:
        """The best chunk's BM25 score for the query's content words."""
        terms = [term for term in content_words(query) if term in self.idf]
        best = 0.0
        for count, length in zip(self.counts, self.lengths, strict=True):
            score = 0.0
            for term in terms:
                tf = count.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self.average))
            best = max(best, score)
        return best


def decline_rows(questions: list, runs: dict[str, Any], bm25: Bm25) -> list[dict[str, Any]]:
    """The signals of every content and no-coverage question (covered = the library answers it)."""
    hybrid, dense = runs.get("hybrid"), runs.get("dense")
    rows = []
    for question in questions:
        if not (question.searched or question.kind == "no_coverage"):
            continue
        fused = hybrid.results[question.id] if hybrid else None
        meaning = dense.results[question.id] if dense else None
        row: dict[str, Any] = {"id": question.id, "covered": question.kind != "no_coverage"}
        if meaning:  # each ranking's signals only when that ranking ran
            row["dense_cosine"] = meaning.top[0]["score"] if meaning.top else 0.0
        if fused:
            row["fused_cosine"] = fused.top[0]["score"] if fused.top else 0.0
            row["share"] = round(fused.share or 0.0, 2)
            if fused.verdict is not None:  # answered: the app's own decline signal (none: nothing searched)
                row["confidence"] = fused.confidence if fused.confidence is not None else 0.0
        row["bm25"] = round(bm25.top(question.question), 2)
        row["known"] = round(bm25.known(question.question), 2)
        rows.append(row)
    return rows


def best_threshold(rows: list[dict[str, Any]], signal: str) -> tuple[float, int]:
    """The cut on one signal (decline below it) making the fewest errors on these rows, and that count: of
    the cuts midway between neighbouring values that make the fewest, the median (the middle of a gap)."""
    values = sorted({row[signal] for row in rows})
    bounds = zip([0.0, *values], [*values, values[-1] + 1 if values else 1.0], strict=True)
    cuts = [(low + high) / 2 for low, high in bounds]
    errors = [sum((row[signal] < cut) == row["covered"] for row in rows) for cut in cuts]
    fewest = min(errors)
    return round(
        statistics.median_low([c for c, e in zip(cuts, errors, strict=True) if e == fewest]), 3
    ), fewest


def errors_at(rows: list[dict[str, Any]], signal: str, cut: float) -> tuple[int, int]:
    """(content questions declined, no-coverage questions answered) when declining below `cut`."""
    wrongly_declined = sum(row["covered"] and row[signal] < cut for row in rows)
    wrongly_answered = sum(not row["covered"] and row[signal] >= cut for row in rows)
    return wrongly_declined, wrongly_answered
