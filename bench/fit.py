"""Fit the extractive answerer's numbers by leave-one-library-out: `python -m bench.fit [--index-dir DIR]`.

Two decisions are fitted on the labelled libraries (the sample library and the lecture set), each by a method
a textbook names, from the signals `bench.fit_data` reads off the answerer:
- declining: a threshold on the answer's confidence (the weighted share of the question's words its first
  passage holds): the median of the cuts making the fewest errors (content declined + no-coverage answered);
- which sentence leads: a conditional logit (a softmax over each question's candidate sentences) over the
  signals its rank score weighs: closeness to the question, the passage's closeness, the share of the
  question's words it says, holding the asked kind of fact (a bonus), announcing what follows (a penalty).
  The weights are scaled so the three closeness weights sum to 1, the units the other cuts are written in.
Each is fitted on one library and scored on the other; then on both, for the app. The values go to
app/assistant/extractive/fitted.json ("values": both libraries; "held_out": per library, the values fitted
without it, which `make eval` scores it with), the report to fitted.md beside it.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from bench.eval_signals import best_threshold, errors_at
from bench.fit_data import FEATURES, Choice, Observations, observe

FITTED = Path(__file__).resolve().parent.parent / "app" / "assistant" / "extractive" / "fitted.json"
REPORT = FITTED.with_name("fitted.md")
LIBRARIES = ("sample", "lectures")
# The constants of the sentence score, in the order of FEATURES; announcing is a penalty (subtracted).
WEIGHT_NAMES = ("SENTENCE_WEIGHT", "PASSAGE_WEIGHT", "KEYWORD_WEIGHT", "BONUS", "ANNOUNCE_PENALTY")
SIGNS = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
# The L2 penalty of the conditional logit: keeps weights finite when a library's choices separate.
RIDGE = 0.1


def _loss(weights: np.ndarray, choices: list[Choice]) -> tuple[float, np.ndarray]:
    """The negative log-likelihood that each question's evidence sentences lead, with its gradient."""
    total, gradient = RIDGE * float(weights @ weights), 2 * RIDGE * weights
    for found in choices:
        scores = found.features @ weights
        scores -= scores.max()
        chance = np.exp(scores) / np.exp(scores).sum()
        said = chance * found.evidence
        total -= float(np.log(said.sum()))
        # d/dw of -log(sum over evidence) = E[x] over all - E[x] over the evidence.
        gradient += chance @ found.features - (said / said.sum()) @ found.features
    return total, gradient


def fit_weights(choices: list[Choice]) -> dict[str, float]:
    """The sentence score's weights by conditional logit, the three closeness weights summing to 1."""
    bounds = [(0.0, None)] * 4 + [(None, 0.0)]  # a bonus stays a bonus, a penalty a penalty
    start = np.array([0.4, 0.4, 0.2, 0.05, -0.05]) * 10
    found = minimize(_loss, start, args=(choices,), jac=True, method="L-BFGS-B", bounds=bounds)
    weights = found.x / found.x[:3].sum()
    # + 0.0: a weight at its bound of zero is written 0.0, not -0.0.
    return {
        name: round(float(w * sign), 3) + 0.0
        for name, w, sign in zip(WEIGHT_NAMES, weights, SIGNS, strict=True)
    }


def ranks(choices: list[Choice], values: dict[str, float]) -> list[int]:
    """Each question's rank of its first evidence sentence under the named weights (ties: reading order)."""
    weights = np.array([values[name] for name in WEIGHT_NAMES]) * SIGNS
    found = []
    for choice in choices:
        order = np.argsort(-(choice.features @ weights), kind="stable")
        found.append(int(np.flatnonzero(choice.evidence[order])[0]) + 1)
    return found


def sentence_figures(choices: list[Choice], values: dict[str, float]) -> str:
    """Top-1 share and mean reciprocal rank of the evidence sentence under the named weights."""
    found = ranks(choices, values)
    top = sum(rank == 1 for rank in found)
    return f"{top} of {len(found)} first, MRR {statistics.fmean(1 / rank for rank in found):.2f}"


def fit(observed: list[Observations]) -> dict[str, float]:
    """Every fitted value, on the observations of the given libraries together."""
    rows = [row for library in observed for row in library.decline]
    choices = [choice for library in observed for choice in library.choices]
    return {"MIN_CONFIDENCE": best_threshold(rows, "confidence")[0], **fit_weights(choices)}


def report(
    observed: dict[str, Observations],
    before: dict[str, float],
    folds: dict[str, dict[str, float]],
    values: dict[str, float],
) -> list[str]:
    """The report's lines: the data, each library scored with values fitted on the other, the values."""
    lines = [
        "# Fitted numbers of the extractive answerer",
        "",
        "Written by `python -m bench.fit`: the decline threshold (the median of the cuts making the fewest "
        "errors) and the sentence score's weights (a conditional logit over each question's candidate "
        "sentences), fitted with each labelled library left out, then on both (the values the app uses).",
        "",
    ]
    lines += [
        "| library | decline rows (content / no-coverage) | sentence choices (questions) |",
        "|---|---|---|",
    ]
    for name, found in observed.items():
        covered = sum(row["covered"] for row in found.decline)
        lines.append(f"| {name} | {covered} / {len(found.decline) - covered} | {len(found.choices)} |")
    lines += ["", "## Leave one library out: fitted on the other library, scored on this one", ""]
    lines += [
        "| scored on | values | decline errors (content declined / no-coverage answered) "
        "| evidence sentence ranked |",
        "|---|---|---|---|",
    ]
    for name, found in observed.items():
        for label, used in (
            ("before this fit", before),
            ("fitted on the other", folds[name]),
            ("fitted on both", values),
        ):
            declined, answered = errors_at(found.decline, "confidence", used["MIN_CONFIDENCE"])
            lines.append(
                f"| {name} | {label} | {declined} / {answered} | {sentence_figures(found.choices, used)} |"
            )
    lines += [
        "",
        "## Values",
        "",
        "| constant | before | fitted on both | " + " | ".join(f"without {n}" for n in folds) + " |",
    ]
    lines.append("|---|---|---|" + "---|" * len(folds))
    for name in values:
        lines.append(
            f"| `{name}` | {before.get(name, '-')} | {values[name]} | "
            + " | ".join(str(fold[name]) for fold in folds.values())
            + " |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Observe both libraries, fit leave-one-library-out and on both, write fitted.json and fitted.md."""
    parser = argparse.ArgumentParser(prog="python -m bench.fit", description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, help="the kept indexes of bench.evaluate --index-dir")
    args = parser.parse_args(argv)
    observed = {name: observe(name, args.index_dir) for name in LIBRARIES}
    before: dict[str, float] = json.loads(FITTED.read_text(encoding="utf-8"))["values"]
    held_out = {name: fit([found for other, found in observed.items() if other != name]) for name in observed}
    values = fit(list(observed.values()))
    document = {"values": values, "held_out": held_out, "features": list(FEATURES)}
    FITTED.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    lines = report(observed, before, held_out, values)
    REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
