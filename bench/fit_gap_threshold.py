"""Fit the gap clustering threshold: `python -m bench.fit_gap_threshold`.

eval/gap_groups.yaml holds questions grouped by meaning. Every pair in a group should be clustered
together, every pair across groups apart. For each threshold this prints the cosine pair statistics and
how the clustering does: the adjusted pair accuracy (pairs placed right), groups recovered exactly,
and the number of clusters. The threshold in app/insights/clustering.py is the best of these.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import yaml

from app.insights.clustering import THRESHOLD, cluster, course_words, topic
from app.search.embedding import get_embedder

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ROOT / "eval" / "gap_groups.yaml"
# Questions that each mean something else: near neighbours (same course, same phrasing) that must stay apart.
EVAL = ROOT / "eval" / "questions.yaml"
DEVSET = Path("/work/shared/devset/questions.jsonl")
CANDIDATES = [round(0.40 + 0.025 * step, 3) for step in range(13)]


def singles() -> list[str]:
    """Distinct questions on course topics: the eval set's paraphrases and the dev set's content questions."""
    questions = [
        item["question"]
        for item in yaml.safe_load(EVAL.read_text(encoding="utf-8"))
        if item["kind"] == "paraphrase"
    ]
    if DEVSET.exists():
        rows = [json.loads(line) for line in DEVSET.read_text(encoding="utf-8").splitlines() if line.strip()]
        questions += [row["question"] for row in rows if row["kind"] == "content"]
    return questions


def titles() -> set[str]:
    """The course titles of the eval and dev sets, whose words the clustering leaves out."""
    names = {
        str(item["course"]) for item in yaml.safe_load(EVAL.read_text(encoding="utf-8")) if item.get("course")
    }
    if DEVSET.exists():
        for line in DEVSET.read_text(encoding="utf-8").splitlines():
            course = json.loads(line).get("course") if line.strip() else None
            names.update([course] if isinstance(course, str) else course or [])
    return names


def load() -> tuple[list[str], list[int]]:
    """The questions and the group each belongs to (a group of its own for each single question)."""
    groups = yaml.safe_load(GROUPS.read_text(encoding="utf-8")) + [[question] for question in singles()]
    texts: list[str] = []
    labels: list[int] = []
    for label, group in enumerate(groups):
        texts += group
        labels += [label] * len(group)
    return texts, labels


def score(groups: list[list[int]], labels: list[int]) -> tuple[float, float, float, float, int]:
    """Pair precision, recall and F1 of "grouped together", true groups recovered exactly, and clusters."""
    found = {index: number for number, group in enumerate(groups) for index in group}
    both = predicted = actual = 0
    for first, second in itertools.combinations(range(len(labels)), 2):
        grouped = found[first] == found[second]
        same = labels[first] == labels[second]
        both += grouped and same
        predicted += grouped
        actual += same
    precision = both / predicted if predicted else 1.0
    recall = both / actual if actual else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    truth = {tuple(i for i, label in enumerate(labels) if label == wanted) for wanted in set(labels)}
    exact = sum(tuple(group) in truth for group in groups) / len(truth)
    return precision, recall, f1, exact, len(groups)


def main() -> None:
    """Print pair statistics and the clustering score of each candidate threshold."""
    texts, labels = load()
    names = course_words(titles())
    vectors = np.asarray(get_embedder().embed_documents([topic(text, names) for text in texts]))
    similarity = vectors @ vectors.T
    pairs = list(itertools.combinations(range(len(texts)), 2))
    same = np.array([similarity[a, b] for a, b in pairs if labels[a] == labels[b]])
    other = np.array([similarity[a, b] for a, b in pairs if labels[a] != labels[b]])
    print(f"{len(texts)} questions in {len(set(labels))} groups")
    for name, values in (("paraphrase pairs", same), ("unrelated pairs ", other)):
        low, high = np.percentile(values, [1, 99])
        middle, least, most = np.median(values), values.min(), values.max()
        print(f"{name}: min {least:.3f} p1 {low:.3f} median {middle:.3f} p99 {high:.3f} max {most:.3f}")
    print("threshold  precision  recall     F1  exact-groups  clusters")
    for threshold in sorted({*CANDIDATES, THRESHOLD}):
        precision, recall, f1, exact, clusters = score(cluster(vectors, threshold), labels)
        mark = "  <- in use" if threshold == THRESHOLD else ""
        figures = f"{precision:9.3f}  {recall:6.3f}  {f1:5.3f}  {exact:12.2f}  {clusters:8d}"
        print(f"{threshold:9.3f}  {figures}{mark}")


if __name__ == "__main__":
    main()
