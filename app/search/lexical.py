"""BM25 keyword ranking over the live chunks, kept per course version and updated one course at a time.

Dense vectors miss exact terms ("efSearch", "CSRF", a function name); BM25 ranks by them. The index holds
each course's live version only (what the catalog points at), so a write half-done is never returned, and
it follows the catalog: a changed course is re-read alone, never the whole library. Collection statistics
(document frequencies, average length) are summed over the courses held, so adding one course costs that
course. Scoring is Okapi BM25 with Lucene's non-negative idf.

BM25 is a few lines of arithmetic on term counts; a library for it (bm25s) would bring scipy into every
worker (+27 MB resident, +0.18 s import) and rebuild its whole matrix on every course change.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.language.lexicon import FUNCTION_WORDS
from app.language.tokens import CHAIN_RE, compound, compounds, stem, tokens
from app.language.tokens import terms as written_words
from app.language.two_words import split
from app.search.catalog import CatalogSnapshot
from app.search.coverage import catalog_words, covered
from app.search.ids import ChunkKey
from app.search.shortened import completions
from app.search.spelling import Speller
from app.search.variants import variants

# Okapi BM25's usual constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75


def lexical_terms(text: str) -> list[str]:
    """The stemmed, lower-cased words of a text, without function words ("the", "how"); a hyphenated
    compound also as one word ("re-ranking": "re", "rank", "rerank"), on both the index and the query side."""
    return [stem(word) for word in written_words(text) if word.lower() not in FUNCTION_WORDS]


@dataclass(frozen=True)
class CourseTerms:
    """One course version's chunks as term counts: postings per term, lengths, lessons and keys."""

    keys: list[ChunkKey]
    lessons: np.ndarray
    lengths: np.ndarray
    postings: dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (rows, counts)
    words: Counter[str]  # the words as written (lower-cased), for spelling correction

    @classmethod
    def build(cls, chunks: Iterable[tuple[str, dict[str, Any]]]) -> CourseTerms:
        """Count the terms of each chunk (its text with its course and lesson titles)."""
        keys: list[ChunkKey] = []
        lengths: list[int] = []
        rows_by_term: dict[str, list[tuple[int, int]]] = {}
        words: Counter[str] = Counter()
        for row, (text, metadata) in enumerate(chunks):
            keys.append((int(metadata["lesson_number"]), int(metadata["chunk_index"])))
            titled = f"{metadata.get('course_title', '')} {metadata.get('lesson_title', '')} {text}"
            written, joined = tokens(titled), compounds(titled)
            words.update(word.lower() for word in written + joined)
            terms = [stem(word) for word in written if word.lower() not in FUNCTION_WORDS]
            # A compound's joined form is another spelling of its parts, not a longer passage.
            lengths.append(len(terms))
            terms += [stem(word) for word in joined]
            for term, count in Counter(terms).items():
                rows_by_term.setdefault(term, []).append((row, count))
        postings = {
            term: (
                np.array([row for row, _ in pairs], dtype=np.int32),
                np.array([n for _, n in pairs], float),
            )
            for term, pairs in rows_by_term.items()
        }
        lessons = np.array([lesson for lesson, _ in keys])
        return cls(keys, lessons, np.array(lengths, float), postings, words)


@dataclass(frozen=True)
class LexicalHit:
    """A chunk ranked by BM25: its course, version, key and score."""

    course_id: str
    version: str
    key: ChunkKey
    score: float

    @property
    def place(self) -> tuple[str, int, int]:
        """The chunk within the live library: (course id, lesson number, chunk index)."""
        return (self.course_id, *self.key)


class LibraryView:
    """Every held course's chunks side by side, one row per chunk, so one query scores the library at once."""

    def __init__(self, courses: list[tuple[str, str, CourseTerms]], frequencies: Counter[str]):
        self.courses = courses  # (course id, version, terms), in row order
        lengths = [terms.lengths for _, _, terms in courses]
        self.starts = np.cumsum([0] + [len(terms.keys) for _, _, terms in courses])
        self.offsets = {course_id: position for position, (course_id, _, _) in enumerate(courses)}
        self.lessons = np.concatenate([terms.lessons for _, _, terms in courses]) if courses else np.zeros(0)
        all_lengths = np.concatenate(lengths) if lengths else np.zeros(0)
        average = float(all_lengths.mean()) if len(all_lengths) else 1.0
        self.norm = K1 * (1 - B + B * all_lengths / (average or 1.0))
        self.frequencies = frequencies
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._speller: Speller | None = None
        self._terms: list[str] | None = None

    @property
    def speller(self) -> Speller:
        """Spelling corrections towards this library's words (built on first use, once per view)."""
        if self._speller is None:
            words: Counter[str] = Counter()
            for _, _, terms in self.courses:
                words.update(terms.words)
            self._speller = Speller(words)
        return self._speller

    @property
    def terms(self) -> list[str]:
        """Every term the library holds, sorted (built on first use, once per view)."""
        if self._terms is None:
            self._terms = sorted(set().union(*(terms.postings.keys() for _, _, terms in self.courses)))
        return self._terms

    @property
    def size(self) -> int:
        """The number of chunks held."""
        return int(self.starts[-1])

    def idf(self, term: str) -> float:
        """Lucene's BM25 idf: rare terms weigh more, and no term weighs less than nothing."""
        return self.idf_of(self.frequencies[term])

    def idf_of(self, holding: int) -> float:
        """Lucene's BM25 idf of a term (or a family of forms) that `holding` rows hold."""
        return math.log(1 + (self.size - holding + 0.5) / (holding + 0.5))

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """The library's rows holding a term and its count in each (gathered once per view and term)."""
        if term not in self._postings:
            rows, counts = [], []
            for position, (_, _, terms) in enumerate(self.courses):
                if term in terms.postings:
                    own_rows, own_counts = terms.postings[term]
                    rows.append(own_rows + self.starts[position])
                    counts.append(own_counts)
            self._postings[term] = (
                (np.concatenate(rows), np.concatenate(counts)) if rows else (np.zeros(0, int), np.zeros(0))
            )
        return self._postings[term]

    def query_terms(self, text: str, vocabulary: frozenset[str] = frozenset()) -> set[str]:
        """A query's terms. A compound the library says as one word is that word alone ("re-ranking" is
        "rerank", as "reranking" is, not "re" and "rank"); adjacent words that the library writes as one
        word add it ("cross encoder": "crossencod"), and a word it lacks that it writes as two adds them
        ("minibatch": "mini", "batch") unless the word is one of the `vocabulary` of English words; and the
        other forms of its words that the library writes (`variants`: "5" also "five")."""
        found: set[str] = set()
        for chain in CHAIN_RE.findall(text):
            joined = compound(chain)
            if joined is not None and self.frequencies[stem(joined)] > 0:
                found.add(stem(joined))
            else:
                found.update(lexical_terms(chain))
        found |= self.joined(text) | self.written_otherwise(text, vocabulary)
        # A number the transcripts write the other way ("5": "five").
        return found | variants(found, lambda term: self.frequencies[term] > 0)

    def written_otherwise(self, text: str, vocabulary: frozenset[str]) -> set[str]:
        """The halves of each word of the text that the library lacks but says as two words ("minibatch"),
        and the words a shortening it lacks begins ("backprop": "backpropagation", `completions`).

        Not of an English word (`vocabulary`): "invented" is no "inven" + "ted", "outline" no "out" + "line";
        and only halves that some chunk says both of ("sub" and "field" said apart are no "subfield").
        """

        def said(term: str) -> bool:
            return self.frequencies[term] > 0

        def together(first: str, second: str) -> bool:
            return len(np.intersect1d(self.postings(first)[0], self.postings(second)[0])) > 0

        found: set[str] = set()
        for word in tokens(text):
            if word.lower() in vocabulary or said(stem(word)):
                continue
            if (halves := split(word, said, together)) is not None:
                found.update(stem(half) for half in halves)
            # A shortening ("backprop") finds the words it begins ("backpropagation").
            found.update(completions(stem(word), self.terms))
        return found

    def joined(self, text: str) -> set[str]:
        """Adjacent words of the text that the library writes as one word ("cross encoder": "crossencod")."""
        words = tokens(text)
        found = set()
        for first, second in zip(words, words[1:], strict=False):
            if not (first.isalpha() and second.isalpha()) or {first.lower(), second.lower()} & FUNCTION_WORDS:
                continue
            term = stem(first + second)
            if self.frequencies[term] > 0:
                found.add(term)
        return found

    def held(self, terms: set[str], scope: set[str]) -> set[str]:
        """The terms that some chunk of the `scope` courses holds."""
        found: set[str] = set()
        for course_id, _, course in self.courses:
            if course_id in scope:
                found |= terms & course.postings.keys()
        return found

    def scores(self, terms: set[str]) -> np.ndarray:
        """Okapi BM25 of every row for the query terms."""
        total = np.zeros(self.size)
        for term in sorted(terms):
            rows, counts = self.postings(term)
            if len(rows):
                total[rows] += self.idf_of(len(rows)) * counts * (K1 + 1) / (counts + self.norm[rows])
        return total

    def admitted(self, scope: Iterable[str], lesson: int | None) -> np.ndarray | None:
        """A mask of the rows of the scope courses (and the lesson); None when every row is admitted.

        A scope course this view does not hold yet (being read by another search) has no rows.
        """
        wanted = set(scope)
        if lesson is None and wanted == self.offsets.keys():
            return None
        mask = np.zeros(self.size, dtype=bool)
        for course_id in wanted & self.offsets.keys():
            position = self.offsets[course_id]
            mask[self.starts[position] : self.starts[position + 1]] = True
        return mask if lesson is None else mask & (self.lessons == lesson)

    def hits(self, rows: np.ndarray, scores: np.ndarray) -> list[LexicalHit]:
        """The chunks at the rows, as hits with their scores (the rows' courses found in one pass)."""
        positions = np.searchsorted(self.starts, rows, side="right") - 1
        found = []
        for row, position, score in zip(rows.tolist(), positions.tolist(), scores.tolist(), strict=True):
            course_id, version, terms = self.courses[position]
            found.append(LexicalHit(course_id, version, terms.keys[row - int(self.starts[position])], score))
        return found


class LexicalIndex:
    """BM25 over the live version of every course, following the catalog one changed course at a time."""

    def __init__(
        self,
        load_course: Callable[[str, str], CourseTerms],
        load_all: Callable[[dict[str, str]], dict[str, CourseTerms]],
    ):
        self._load_course = load_course
        self._load_all = load_all
        self._lock = threading.Lock()
        self._courses: dict[str, tuple[str, CourseTerms]] = {}  # course id -> (version, terms)
        self._frequencies: Counter[str] = Counter()
        self._followed: int | None = None  # the stamp of the catalog snapshot the view holds
        self._loading = False
        self._view = LibraryView([], self._frequencies)

    def ranked(
        self,
        query: str,
        library: CatalogSnapshot,
        scope: Iterable[str],
        lesson: int | None,
        limit: int,
        vocabulary: frozenset[str] = frozenset(),
    ) -> list[LexicalHit]:
        """Up to `limit` chunks of the `scope` courses sharing a word with the query, best first
        (`vocabulary`: the English words, which are never taken for two words written as one).

        `library` is the catalog with every course's live version: the statistics are the whole library's,
        whatever the scope, so a score means the same in a course search as in a library search.
        """
        view = self._follow(library)
        terms = view.query_terms(query, vocabulary)
        if not terms:
            return []
        scores = view.scores(terms)
        mask = view.admitted(scope, lesson)
        if mask is not None:
            scores[~mask] = 0.0
        best = np.flatnonzero(scores)
        if len(best) > limit:
            best = best[np.argpartition(-scores[best], limit)[:limit]]
        best = best[np.argsort(-scores[best], kind="stable")]
        return view.hits(best, scores[best])

    def coverage(
        self, text: str, library: CatalogSnapshot, vocabulary: frozenset[str] = frozenset()
    ) -> float:
        """The share of the text's word weight that the `library` courses say in some spelling (`covered`)."""
        return covered(self._follow(library), text, vocabulary, catalog_words(library))

    def corrected(
        self, text: str, library: CatalogSnapshot, dictionary: frozenset[str], names: bool = False
    ) -> str:
        """The text with misspelled words corrected towards the words of the `library` courses.

        Words of `dictionary` are real words, left as they are even when the library lacks them.
        """
        view = self._follow(library)
        return view.speller.corrected(text, dictionary, names)

    def rarity(self, terms: Iterable[str], library: CatalogSnapshot) -> dict[str, float]:
        """The idf of each stemmed term over the `library` courses (a term the library lacks weighs most)."""
        view = self._follow(library)
        return {term: view.idf(term) for term in terms}

    def held(self, terms: Iterable[str], library: CatalogSnapshot, scope: Iterable[str]) -> set[str]:
        """The stemmed terms that the `scope` courses say somewhere (in a chunk or a title)."""
        return self._follow(library).held(set(terms), set(scope))

    def clear(self) -> None:
        """Forget every course (after the index was cleared)."""
        with self._lock:
            self._courses.clear()
            self._frequencies.clear()
            self._followed = None
            self._view = LibraryView([], self._frequencies)

    def _follow(self, library: CatalogSnapshot) -> LibraryView:
        """The view of exactly the snapshot's course versions, loading what changed and dropping what is gone.

        A snapshot the view already follows (the same stamp) costs nothing: the common case.

        The store is read outside the lock: while one search reads a changed course, the others go on with
        the current view (a course version behind at most, and CourseIndex never returns a chunk of a version
        that is not live) instead of queueing behind a read that a running sync slows down.
        """
        live = library.versions
        with self._lock:
            if library.stamp == self._followed or self._loading:  # the common case: the same catalog
                return self._view
            self._loading = True
            held = {course_id: version for course_id, (version, _) in self._courses.items()}
        try:
            changed = {
                course_id: version for course_id, version in live.items() if held.get(course_id) != version
            }
            # A cold start reads the library in one pass; later changes read only the courses that changed.
            loaded = self._load_all(changed) if changed and not held else {}
            fresh = {
                course_id: loaded.get(course_id) or self._load_course(course_id, version)
                for course_id, version in changed.items()
            }
        except BaseException:
            with self._lock:
                self._loading = False
            raise
        with self._lock:
            for course_id in held.keys() - live.keys():
                self._drop(course_id)
            for course_id, version in changed.items():
                self._drop(course_id)
                self._add(course_id, version, fresh[course_id])
            if held != live:
                courses = [(course_id, *self._courses[course_id]) for course_id in sorted(self._courses)]
                # A new view each change: a search still scoring the old one keeps a consistent library.
                self._view = LibraryView(courses, +self._frequencies)
            self._followed, self._loading = library.stamp, False
            return self._view

    def _add(self, course_id: str, version: str, course: CourseTerms) -> None:
        """Hold one course version and add its statistics."""
        self._courses[course_id] = (version, course)
        self._frequencies.update({term: len(rows) for term, (rows, _) in course.postings.items()})

    def _drop(self, course_id: str) -> None:
        """Stop holding a course and subtract its statistics."""
        if course_id not in self._courses:
            return
        _, course = self._courses.pop(course_id)
        self._frequencies.subtract({term: len(rows) for term, (rows, _) in course.postings.items()})
