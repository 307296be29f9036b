"""Group texts by meaning: average-linkage agglomerative clustering on the cosine of their embeddings.

Questions are embedded without the words of course names (`topic`): a course named in two questions
says nothing about whether they ask the same thing. Deterministic (no random start, ties go to the lowest
index) and needs no number of groups: two groups merge while the mean cosine between their members is at
least the threshold, fitted on eval/gap_groups.yaml with bench/fit_gap_threshold.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from app.language.lexicon import COURSE_WORDS
from app.language.tokens import tokens

# Fitted by `python -m bench.fit_gap_threshold` on eval/gap_groups.yaml: 20 groups of paraphrases (seeded by
# the no-coverage and absent questions of the eval and dev sets), 8 questions sharing a template but not a
# topic, and 77 distinct course questions, embedded as `topic` gives them. 0.60 gives the best pair F1 (0.875:
# precision 0.94, recall 0.82); 0.50 merges questions of one template (precision 0.82), 0.65 splits
# paraphrases (recall 0.75).
THRESHOLD = 0.6


def course_words(titles: Iterable[str]) -> frozenset[str]:
    """The lower-cased words of the course titles, and the words that say "a course"."""
    return frozenset(word.lower() for title in titles for word in tokens(title)) | COURSE_WORDS


def topic(question: str, names: frozenset[str]) -> str:
    """A question without the words naming a course, which otherwise pull its questions together.

    "Who teaches the pottery course?" and "Does the pottery course cover glazes?" have a cosine of
    0.70 as asked, 0.08 without "pottery course". A question that is nothing but a course name
    stays as it is.
    """
    kept = [word for word in question.split() if "".join(tokens(word)).lower() not in names]
    return " ".join(kept) if any(tokens(" ".join(kept))) else question


def cluster(vectors: Sequence[Sequence[float]] | np.ndarray, threshold: float = THRESHOLD) -> list[list[int]]:
    """Indices of the vectors grouped by meaning: largest group first, each group in index order."""
    count = len(vectors)
    if count == 0:
        return []
    unit = np.asarray(vectors, dtype=np.float64)
    unit = unit / np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
    similarity = unit @ unit.T
    np.fill_diagonal(similarity, -np.inf)
    sizes = np.ones(count)
    members: dict[int, list[int]] = {index: [index] for index in range(count)}
    while len(members) > 1:
        # argmax takes the first maximum in row-major order, so ties always merge the same pair.
        first, second = divmod(int(np.argmax(similarity)), count)
        if similarity[first, second] < threshold:
            break
        keep, gone = min(first, second), max(first, second)
        # Average linkage (Lance-Williams): the merged group's mean similarity to every other group.
        merged = (sizes[keep] * similarity[keep] + sizes[gone] * similarity[gone]) / (
            sizes[keep] + sizes[gone]
        )
        similarity[keep, :] = merged
        similarity[:, keep] = merged
        similarity[keep, keep] = -np.inf
        similarity[gone, :] = -np.inf
        similarity[:, gone] = -np.inf
        sizes[keep] += sizes[gone]
        members[keep] = sorted(members[keep] + members.pop(gone))
    return sorted(members.values(), key=lambda group: (-len(group), group[0]))


def medoid(vectors: np.ndarray, group: list[int]) -> int:
    """The member of a group nearest its centroid: the question that stands for the group."""
    unit = vectors[group] / np.maximum(np.linalg.norm(vectors[group], axis=1, keepdims=True), 1e-12)
    centroid = unit.mean(axis=0)
    return group[int(np.argmax(unit @ centroid))]
