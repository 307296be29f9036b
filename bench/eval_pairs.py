"""Multi-word terms a library says word by word but never together, as a decline signal, per library.

python -m bench.eval_pairs --index-dir /tmp/idx --library sample --library lectures

For each content and no-coverage question: its adjacent pairs of content words whose words the library both
says, whether any chunk says the pair side by side (stems, a final e aside), and the words' idf; and its runs
of capitalised ordinary words ("Golden Ratio"). Then how many questions of each kind each candidate rule
flags: a pair never said together whose rarer word's idf is at least a cut, the same for the question's
weightiest pair only, and a run of ordinary capitalised words never said together.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from pathlib import Path

from bench.evaluate import LIBRARIES, app_config
from bench.index_search import print_table

# The idf cuts tried for the rarer word of an unsaid pair.
CUTS = (0.0, 2.5, 3.0, 4.0)


def library_text(root: Path) -> list[list[str]]:
    """Each chunk of a kept index as its stems in order (course and lesson titles first)."""
    import chromadb

    from app.assistant.extractive.confidence import _unended
    from app.language.tokens import stem, tokens

    got = chromadb.PersistentClient(path=str(root / "chroma")).get_collection("course_content")
    found = got.get(include=["documents", "metadatas"])
    return [
        [_unended(stem(token)) for token in tokens(f"{meta['course_title']}. {meta['lesson_title']}. {text}")]
        for text, meta in zip(found["documents"], found["metadatas"], strict=True)
    ]


def question_rows(name: str, index_dir: Path, ordinary: frozenset[str]) -> list[dict[str, object]]:
    """Each content or no-coverage question's pairs and runs, measured against the library's chunks."""
    from app.assistant.extractive.confidence import _unended, names
    from app.language.lexicon import NO_TOPIC_WORDS
    from app.language.tokens import stem, tokens

    library = LIBRARIES[name]
    chunks = library_text(index_dir / (library.index or name))
    frequency = Counter(term for chunk in chunks for term in set(chunk))
    pairs = {pair for chunk in chunks for pair in zip(chunk, chunk[1:], strict=False)}

    def idf(term: str) -> float:
        return math.log(1 + (len(chunks) - frequency[term] + 0.5) / (frequency[term] + 0.5))

    rows = []
    for question in library.questions():
        if question.kind != "no_coverage" and not question.searched:
            continue
        written = tokens(question.question)
        measured = []
        for first, second in zip(written, written[1:], strict=False):
            words = (first, second)
            if any(w.lower() in NO_TOPIC_WORDS or len(w) < 3 or not w.isalpha() for w in words):
                continue
            one, two = (_unended(stem(word)) for word in words)
            if frequency[one] and frequency[two]:
                said = (one, two) in pairs or frequency[_unended(stem(first + second))] > 0
                measured.append((f"{first} {second}", said, min(idf(one), idf(two)), idf(one) + idf(two)))
        runs = [
            " ".join(run)
            for run in names(question.question, ordinary)
            if len(run) > 1
            and all(word[1:].islower() and word.lower() in ordinary for word in run)
            and tuple(_unended(stem(word)) for word in run[:2]) not in pairs
        ]
        rows.append(
            {"id": question.id, "covered": question.kind != "no_coverage", "pairs": measured, "runs": runs}
        )
    return rows


def flags(row: dict[str, object], cut: float) -> dict[str, bool]:
    """Which candidate rules flag a question."""
    pairs: list[tuple[str, bool, float, float]] = row["pairs"]  # type: ignore[assignment]
    weightiest = max(pairs, key=lambda pair: pair[3], default=None)
    return {
        "any unsaid pair": any(not said and rarer >= cut for _, said, rarer, _ in pairs),
        "weightiest pair unsaid": weightiest is not None and not weightiest[1] and weightiest[2] >= cut,
        "ordinary run apart": bool(row["runs"]),
    }


def main(argv: list[str] | None = None) -> None:
    """Print, per library and rule, the content and no-coverage questions flagged."""
    from app import create_app
    from app.services import services

    parser = argparse.ArgumentParser(prog="python -m bench.eval_pairs", description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=sorted(LIBRARIES), action="append", required=True)
    parser.add_argument("--index-dir", type=Path, required=True, help="the kept indexes of bench.evaluate")
    args = parser.parse_args(argv)
    first = LIBRARIES[args.library[0]]
    root = args.index_dir / (first.index or args.library[0])
    with create_app(app_config(root, first.docs, hybrid=True)).app_context():
        ordinary = services().assistant._answerer.index.embedder.vocabulary()
    table = []
    for name in args.library:
        rows = question_rows(name, args.index_dir, ordinary)
        content = [row for row in rows if row["covered"]]
        absent = [row for row in rows if not row["covered"]]
        for cut in CUTS:
            for rule in ("any unsaid pair", "weightiest pair unsaid", "ordinary run apart"):
                if rule == "ordinary run apart" and cut != CUTS[0]:
                    continue
                hit = [row["id"] for row in absent if flags(row, cut)[rule]]
                wrong = sum(flags(row, cut)[rule] for row in content)
                label = rule if rule == "ordinary run apart" else f"{rule}, idf >= {cut}"
                table.append(
                    (name, label, f"{wrong} of {len(content)}", f"{len(hit)} of {len(absent)}", " ".join(hit))
                )
    header = ("library", "rule", "content flagged", "no-coverage flagged", "no-coverage questions flagged")
    print_table("Terms said word by word, never together", header, table)


if __name__ == "__main__":
    main()
