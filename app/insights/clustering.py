"""Group texts by meaning: average-linkage agglomerative clustering on the cosine of their embeddings.

Deterministic (no random start, ties go to the lowest index) and needs no number of groups: two groups
merge while the mean cosine between their members is at least the threshold. The threshold was fitted on
eval/gap_groups.yaml with bench/fit_gap_threshold.py (see that script for the figures).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Fitted by `python -m bench.fit_gap_threshold`: 20 groups of paraphrases (eval/gap_groups.yaml, seeded by the
# no-coverage and absent questions of the eval and dev sets) among 77 distinct course questions. 0.525 gives
# the best pair F1 (0.92: precision 0.93, recall 0.92); 0.45 merges unrelated questions of one course
# (precision 0.73), 0.65 splits paraphrases (recall 0.72).
THRESHOLD = 0.525


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
        merged = (sizes[keep] * similarity[keep] + sizes[gone] * similarity[gone]) / (sizes[keep] + sizes[gone])
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
