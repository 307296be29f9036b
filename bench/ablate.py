"""`python -m bench.ablate`: switch off one English-reading rule at a time and count the questions it moves.

Each rule (a module, or a group of patterns or word lists with one purpose) is switched off by replacing its
entry points with what the code does without it (no match, no expansion, the text unchanged). Every labelled
set is scored once as the code stands, then once per rule, in one process over kept indexes, and each
question's strict search rank and extractive verdict are paired against the un-ablated run, per ranking.

python -m bench.ablate --index-dir DIR                      # every rule, all four sets, both rankings
python -m bench.ablate --index-dir DIR --rule forms --rule spelling --search-only
python -m bench.ablate --list                               # the rules and their lines
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from bench.eval_report import reciprocal
from bench.eval_scoring import VERDICT_POINTS, Run, evaluate
from bench.evaluate import LIBRARIES, MODES, app_config

SETS = ("sample", "lectures", "reworded", "sample-reworded")
NEVER = re.compile(r"(?!)")  # a pattern that matches nothing: the rule's cue is never seen


def const(value: Any) -> Callable[..., Any]:
    """A stand-in returning `value` whatever it is given."""
    return lambda *args, **kwargs: value


def first(value: Any, *args: Any, **kwargs: Any) -> Any:
    """A stand-in returning its first argument unchanged."""
    return value


@dataclass(frozen=True)
class Patch:
    """One entry point replaced: `module.attribute` (a `Class.method` too), wherever it was imported to."""

    module: str
    attribute: str
    replacement: Any
    here_only: bool = False  # only where it is defined (not the modules that imported it)


@dataclass(frozen=True)
class Rule:
    """A rule to switch off: what it is for, the code it spans (for its size) and its entry points."""

    name: str
    purpose: str
    where: tuple[str, ...]  # module files, or "file:first-last" line ranges
    patches: tuple[Patch, ...]
    search_side: bool = False  # changes the plain search too (the keyword ranking's reading of a query)
    lines: int = field(default=0, compare=False)


S = "app.search."
X = "app.assistant.extractive."
RULES = [
    # -- the keyword ranking's reading of a query (plain search, every caller) ---------------------------
    Rule(
        "variants",
        "digits/number words, chat spellings as BM25 variants",
        ("search/variants.py",),
        (Patch(S + "variants", "variants", const(set())),),
        True,
    ),
    Rule(
        "irregular",
        "irregular verbs' past forms",
        ("search/irregular.py",),
        (Patch(S + "irregular", "past_forms", const(set())),),
        True,
    ),
    Rule(
        "shortened",
        "shortened words completed ('backprop')",
        ("search/shortened.py",),
        (Patch(S + "shortened", "completions", const([])),),
        True,
    ),
    Rule(
        "said-apart",
        "a word written as two ('minibatch')",
        ("language/two_words.py",),
        (
            Patch("app.language.two_words", "split", const(None)),
            Patch("app.language.two_words", "words_said_apart", const([])),
        ),
        True,
    ),
    Rule(
        "spelling",
        "misspelled words corrected to the library's",
        ("search/spelling.py",),
        (
            Patch(S + "spelling", "Speller.correct", const(None)),
            Patch(S + "spelling", "Speller.corrected", lambda self, text, *a, **k: text),
        ),
        True,
    ),
    Rule(
        "coverage",
        "keyword weight scaled by the share of the query the library says",
        ("search/coverage.py",),
        (Patch(S + "coverage", "covered", const(1.0)),),
        True,
    ),
    # -- the extractive answerer's reading of a question before retrieval ---------------------------------
    Rule(
        "comparisons",
        "a question about two things split and searched per part",
        (
            "assistant/extractive/comparison_split.py",
            "assistant/extractive/comparison.py",
            "assistant/extractive/half_pool.py",
        ),
        (Patch(X + "comparison_split", "split_comparison", const(None)),),
    ),
    Rule(
        "titled-lesson",
        "a lesson named by a word of its title",
        ("assistant/extractive/lesson_titles.py",),
        (
            Patch(X + "lesson_titles", "lesson_by_title_word", const(None)),
            Patch(X + "lesson_titles", "named_lesson", const(None)),
        ),
    ),
    Rule(
        "half-reading",
        "a comparison half reads ten passages",
        ("assistant/extractive/half_pool.py",),
        (
            Patch(X + "half_pool", "half_passages", lambda *args, found=None, wide=True: args[4]),
            Patch(X + "half_pool", "half_reading", const(20)),
        ),
    ),
    Rule(
        "fact-near",
        "a fact asked about what a follow-up points back to",
        ("assistant/extractive/fact_near.py",),
        (Patch(X + "fact_near", "fact_near_topic", const(None)),),
    ),
    # -- reading the sentences ------------------------------------------------------------------------
    Rule(
        "answer-types",
        "a person, time or number asked for, and a sentence holding one",
        ("assistant/extractive/answer_types.py",),
        (Patch(X + "answer_types", "asked_type", const(None)),),
    ),
    Rule(
        "definitions",
        "sentences that define the term asked about",
        ("assistant/extractive/definitions.py",),
        (
            Patch(X + "definitions", "definitions", lambda sentences, term: [False] * len(sentences)),
            Patch(X + "definitions", "defines", const(False)),
            Patch(X + "definitions", "describes", const(False)),
        ),
    ),
    Rule(
        "referents",
        "a sentence's pronoun read as the question's subject",
        ("assistant/extractive/referents.py",),
        (Patch(X + "referents", "stand_ins", const({})),),
    ),
    Rule(
        "asked-before",
        "a passage's opening reply to the previous chunk's question",
        ("assistant/extractive/asked_before.py",),
        (Patch(X + "asked_before", "opening_replies", const({})),),
    ),
    Rule(
        "onward",
        "a lead read on into the next chunk",
        ("assistant/extractive/next_chunk.py",),
        (Patch(X + "next_chunk", "next_chunk", const([])),),
    ),
    Rule(
        "lecturer-questions",
        "the lecturer's own questions not quoted as answers",
        ("assistant/extractive/sentences.py:93-107",),
        (Patch(X + "sentences", "is_question", const(False)),),
    ),
    Rule(
        "filler-sentences",
        "filler and acknowledgements not quoted",
        ("assistant/extractive/sentences.py:48-123",),
        (
            Patch(X + "sentences", "is_filler", const(False)),
            Patch(X + "sentences", "acknowledges", const(False)),
        ),
    ),
    Rule(
        "speech-cues",
        "calls on students, announcements, continuations, repeats",
        ("assistant/extractive/sentences.py:124-141",),
        (
            Patch(X + "sentences", "calls_on", const(False)),
            Patch(X + "sentences", "announces", const(False)),
            Patch(X + "sentences", "continues", const(False)),
            Patch(X + "sentences", "repeats", const(False)),
        ),
    ),
    Rule(
        "replies",
        "a sentence answering the lecturer's question before it",
        ("assistant/extractive/replies.py",),
        (Patch(X + "replies", "replied", const([])), Patch(X + "replies", "questions_before", const([]))),
    ),
    # -- the decline decision -------------------------------------------------------------------------
    Rule(
        "nearest-share",
        "the nearest passage's share when the topic word is never said",
        ("assistant/extractive/nearest.py",),
        (Patch(X + "nearest", "nearest_share", const(None)),),
    ),
    Rule(
        "unmentioned-names",
        "a name the courses never mention declines",
        ("assistant/extractive/confidence.py:99-225",),
        (Patch(X + "confidence", "unmentioned", const(())),),
    ),
]


def rule_lines(rule: Rule, root: Path) -> int:
    """The lines a rule spans in app/."""
    total = 0
    for where in rule.where:
        path, _, span = where.partition(":")
        if span:
            start, end = (int(number) for number in span.split("-"))
            total += end - start + 1
        else:
            total += (root / "app" / path).read_text(encoding="utf-8").count("\n")
    return total


@contextlib.contextmanager
def switched_off(rule: Rule) -> Iterator[None]:
    """The rule's entry points replaced in every app module that holds them, restored afterwards."""
    undo: list[tuple[Any, str, Any]] = []
    try:
        for patch in rule.patches:
            owner: Any = import_module(patch.module)
            *classes, name = patch.attribute.split(".")
            for cls in classes:
                owner = getattr(owner, cls)
            original = getattr(owner, name)
            every = [module for key, module in sys.modules.items() if key.startswith("app")]
            holders = [owner] if classes or patch.here_only else every
            for holder in holders:
                for attribute, value in list(vars(holder).items()):
                    if value is original and (classes or attribute == name or callable(original)):
                        undo.append((holder, attribute, value))
                        setattr(holder, attribute, patch.replacement)
        clear_caches()
        yield
    finally:
        for holder, attribute, value in reversed(undo):
            setattr(holder, attribute, value)
        clear_caches()


def clear_caches() -> None:
    """Forget results the app keeps per sentence or word, which a switched-off rule may have shaped."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("app.search.", "app.assistant.")):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


def moved(before: Run, after: Run) -> dict[str, list[str]]:
    """The questions a run moved against another: better and worse, by strict rank or by verdict."""
    better, worse = [], []
    for key, old in before.results.items():
        new = after.results[key]
        rank = reciprocal(new.strict) - reciprocal(old.strict) if old.searched else 0.0
        verdict = VERDICT_POINTS.get(new.verdict or "", 0.0) - VERDICT_POINTS.get(old.verdict or "", 0.0)
        if rank > 0 or verdict > 0:
            better.append(key)
        if rank < 0 or verdict < 0:
            worse.append(key)
    return {"better": better, "worse": worse}


def ablate(rules: list[Rule], sets: list[str], modes: list[str], index_dir: Path, search_only: bool) -> dict:
    """Score each set and ranking as it stands, then with each rule switched off; the moved questions."""
    from app import create_app
    from app.services import services

    found: dict[str, dict[str, dict[str, Any]]] = {rule.name: {} for rule in rules}
    for name in sets:
        library = LIBRARIES[name]
        questions = library.questions()
        folder = index_dir / (library.index or name)
        with create_app(app_config(folder, library.docs, hybrid=True)).app_context():
            services().indexer.sync(rebuild=False)
        for mode in modes:
            with create_app(app_config(folder, library.docs, MODES[mode])).app_context():
                index, assistant = services().index, services().assistant
                answers = not search_only
                started = time.perf_counter()
                base = evaluate(index, assistant, questions, answers=answers)
                print(f"{name} {mode}: as it stands in {time.perf_counter() - started:.0f} s", flush=True)
                for rule in rules:
                    if search_only and not rule.search_side:
                        continue
                    with switched_off(rule):
                        run = evaluate(index, assistant, questions, answers=answers)
                    found[rule.name][f"{name}/{mode}"] = changes = moved(base, run)
                    print(f"  {rule.name}: +{len(changes['better'])} -{len(changes['worse'])}", flush=True)
    return found


def print_table(rules: list[Rule], found: dict[str, dict[str, Any]], root: Path) -> None:
    """One row per rule: its lines, the questions it moved per set (better/worse, either ranking), in all."""
    print("| rule | purpose | lines | " + " | ".join(SETS) + " | questions moved |")
    print("|---|---|---|" + "---|" * len(SETS) + "---|")
    for rule in rules:
        cells, every = [], set()
        for name in SETS:
            runs = {key: value for key, value in found[rule.name].items() if key.startswith(name + "/")}
            better = {q for value in runs.values() for q in value["better"]}
            worse = {q for value in runs.values() for q in value["worse"]}
            every |= {f"{name}/{q}" for q in better | worse}
            cells.append(f"+{len(better)} -{len(worse)}" if runs else "–")
        row = [rule.name, rule.purpose, str(rule_lines(rule, root)), *cells, str(len(every))]
        print("| " + " | ".join(row) + " |")


def main(argv: list[str] | None = None) -> None:
    """Ablate the chosen rules (all by default) and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.ablate", description=__doc__.splitlines()[0])
    parser.add_argument("--rule", action="append", choices=[rule.name for rule in RULES])
    parser.add_argument("--library", action="append", choices=SETS)
    parser.add_argument("--ranking", choices=list(MODES))
    parser.add_argument("--search-only", action="store_true", help="search-side rules, search figures only")
    parser.add_argument("--index-dir", type=Path, required=False, help="the kept indexes of bench.evaluate")
    parser.add_argument("--json", type=Path, help="write the moved questions per rule, set and ranking")
    parser.add_argument("--list", action="store_true", help="list the rules and their lines")
    parser.add_argument("--table", type=Path, nargs="+", help="print the table of saved --json files, merged")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    rules = [rule for rule in RULES if not args.rule or rule.name in args.rule]
    if args.list:
        for rule in rules:
            print(f"{rule.name:22} {rule_lines(rule, root):4}  {rule.purpose}")
        return
    if args.table:
        merged: dict[str, dict[str, Any]] = {rule.name: {} for rule in rules}
        for path in args.table:
            for name, runs in json.loads(path.read_text(encoding="utf-8")).items():
                if name in merged:
                    merged[name].update(runs)
        print_table([rule for rule in rules if merged[rule.name]], merged, root)
        return
    if args.index_dir is None:
        parser.error("--index-dir is required (a folder of kept indexes, as bench.evaluate keeps them)")
    modes = [args.ranking] if args.ranking else list(MODES)
    found = ablate(rules, args.library or list(SETS), modes, args.index_dir, args.search_only)
    print_table(rules, found, root)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
