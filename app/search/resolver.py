"""CourseResolver: the one place a course name ("RAG", "the vector DB course") becomes a catalog record."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from app.courses.models import slugify
from app.errors import CourseNotFound
from app.language.acronyms import (
    acronym_matches,
    all_words_match,
    distinctive_words,
    initials,
    longest_run,
    word_matches,
)
from app.language.lexicon import STOPWORDS
from app.language.tokens import content_words, is_acronym_token, tokens
from app.search.embedding import Embedder
from app.search.models import CourseRecord
from app.search.store import CATALOG, ChromaStore

# Course-name resolution by meaning, calibrated on the test library and the sample docs (all-MiniLM-L6-v2).
# A name word that is no title word may still mean one: "DBs" ~ "databases" 0.77, "apps" ~ "applications"
# 0.71, while near misses stay below WORD_SCORE ("programming" ~ "python" 0.61, "sql" ~ "databases" 0.61,
# "django" ~ "flask" 0.48). A whole name that no word rule explains must reach MATCH_SCORE against a title and
# beat the runner-up by MATCH_MARGIN: names that mean a course score 0.80-0.92 ("flask web development",
# "python unit testing", "retrieval augmented generation"); near misses stay at or below 0.65 on both
# libraries ("advanced python" 0.65, "software testing" 0.63, "python programming" 0.62, "SQL databases"
# 0.54, "machine learning" 0.37, "Kubernetes for beginners" 0.25).
WORD_SCORE = 0.7
YEAR_RE = re.compile(r"(?:19|20)\d\d")
# Honorifics before an instructor's name.
TITLES = frozenset({"dr", "prof", "professor", "mr", "mrs", "ms"})
MATCH_SCORE = 0.75
MATCH_MARGIN = 0.1


def mentioned_course(text: str, records: list[CourseRecord]) -> tuple[CourseRecord, str] | None:
    """The one course the text mentions and the words that mention it; None for none, or for two (ambiguous:
    search everything rather than pick one). Shared title words ("test a Flask app") are not enough; a
    course code ("BAKE 101", "6.B12", "CIA") or the instructor's name ("miller's") is."""
    words = content_words(text)
    found = []
    for record in records:
        title_words = content_words(record.title)
        named = code_words(text, record.title) or instructor_words(text, record.instructor)
        if named:
            found.append((record, " ".join(named)))
            continue
        acronyms = [
            token
            for token in tokens(text)
            if is_acronym_token(token)
            and acronym_matches(token, record.title)
            and (len(token) >= 3 or token.lower() in initials(record.title))
        ]
        if acronyms:
            found.append((record, " ".join(acronyms)))
        elif len(title_words) >= 2 and longest_run(words, title_words) >= max(2, len(title_words) - 1):
            found.append((record, record.title))
    return found[0] if len(found) == 1 else None


def _codes(title: str) -> set[str]:
    """A title's code words, lower-cased: numbers of 3+ characters ("101", "b12", not a year) and the
    capitalised word before a number ("BAKE 101", "CIA 6.B12"), which name a course and nothing else. A
    capitalised word alone ("HTMX") is a topic as often as a name."""
    words = tokens(title)
    numbered = [any(char.isdigit() for char in word) for word in words]
    codes = set()
    for position, word in enumerate(words):
        number = numbered[position] and not YEAR_RE.fullmatch(word)
        before_number = is_acronym_token(word) and position + 1 < len(words) and numbered[position + 1]
        if len(word) >= 3 and (number or before_number):
            codes.add(word.lower())
    return codes


def code_words(text: str, title: str) -> list[str]:
    """The words of the text that are code words of the title ("BAKE 101", "6.B12", "chem 110")."""
    codes = _codes(title)
    return list(dict.fromkeys(token for token in tokens(text) if token.lower() in codes))


def instructor_words(text: str, instructor: str | None) -> list[str]:
    """The words of the text that are the instructor's surname ("Miller's", "Pasteur"), capitalised or not."""
    surnames = set()
    for person in re.split(r",|&|\band\b", instructor or ""):
        names = [token for token in tokens(person) if len(token) >= 3 and token.lower() not in TITLES]
        if names:
            surnames.add(names[-1].lower())
    return list(dict.fromkeys(token for token in tokens(text) if token.lower() in surnames))


def not_found(name: str, records: list[CourseRecord], candidates: list[CourseRecord] | None = None):
    """The CourseNotFound for a name: which courses exist, or which ones it could mean."""
    if candidates:
        titles = ", ".join(record.title for record in candidates)
        return CourseNotFound(f"'{name}' could mean several courses: {titles}. Please name one.")
    if not records:
        return CourseNotFound(f"No course matches '{name}'. No courses are indexed yet.")
    titles = ", ".join(record.title for record in records)
    return CourseNotFound(f"No course matches '{name}'. Courses are: {titles}.")


def _acronym_matches(name: str, title: str) -> bool:
    """True when the name's one content word spells the title's initials (whole, or from the start)."""
    words = [token for token in tokens(name) if token.lower() not in STOPWORDS]
    return len(words) == 1 and len(words[0]) <= 8 and acronym_matches(words[0], title)


def _lesson_or_instructor_matches(words: list[str], record: CourseRecord) -> bool:
    """True when the name is the instructor's (with title words: "miller's baking"), or names one lesson:
    all its words are words of one lesson title, and a one-word name is a term of that title ("pytest",
    "HNSW"), not an ordinary word."""
    instructor = content_words(record.instructor or "")
    if all_words_match(words, instructor) or all_words_match(words, instructor + content_words(record.title)):
        return True
    for lesson in record.lessons:
        title_words = distinctive_words(lesson.title) if len(words) == 1 else content_words(lesson.title)
        if all_words_match(words, title_words):
            return True
    return False


class CourseResolver:
    """Resolve course names against catalog records, by text rules first and meaning last."""

    def __init__(self, store: ChromaStore, embedder: Embedder):
        self.store = store
        self.embedder = embedder

    def resolve(self, name: str, records: list[CourseRecord]) -> CourseRecord:
        """Resolve a course name against catalog records; ambiguity and no match both raise CourseNotFound.

        Text rules first, strictest first: the exact title or id; an acronym; the title's own words; a
        lesson-title term or the instructor's name that only one course has. Only then meaning: every name
        word close to a title word, or the whole name clearly closest to one title. The first rule that
        matches decides; two courses at one rule is ambiguous, never a guess.
        """
        wanted = name.strip()
        words = content_words(wanted)
        steps: tuple[Callable[[CourseRecord], bool], ...] = (
            lambda record: record.title.casefold() == wanted.casefold() or record.id == slugify(wanted),
            lambda record: _acronym_matches(wanted, record.title),
            lambda record: all_words_match(words, content_words(record.title)),
            lambda record: _lesson_or_instructor_matches(words, record),
        )
        if wanted and records:
            for matches in steps:
                found = [record for record in records if matches(record)]
                if found:
                    return self._one(name, records, found)
            found = self._words_by_meaning(words, records) or self._closest_by_meaning(wanted, records)
            if found:
                return self._one(name, records, found)
        raise not_found(name, records)

    @staticmethod
    def _one(name: str, records: list[CourseRecord], found: list[CourseRecord]) -> CourseRecord:
        """The single course found, or CourseNotFound listing the candidates."""
        if len(found) > 1:
            raise not_found(name, records, candidates=found)
        return found[0]

    def _words_by_meaning(self, words: list[str], records: list[CourseRecord]) -> list[CourseRecord]:
        """Courses whose title has, for every name word, the same word or one that means it ("DBs")."""
        titles = {record.id: content_words(record.title) for record in records}
        vocabulary = {*words, *(word for title in titles.values() for word in title)}
        # One cached vector per word: the title words are the same on every resolution.
        vectors = {word: self.embedder.embed_query(word) for word in vocabulary}

        def close(word: str, other: str) -> bool:
            """True when two words are one, or mean nearly the same."""
            similarity = float(np.dot(vectors[word], vectors[other]))
            return word_matches(word, other) or similarity >= WORD_SCORE

        return [
            record
            for record in records
            if words and all(any(close(word, other) for other in titles[record.id]) for word in words)
        ]

    def _closest_by_meaning(self, name: str, records: list[CourseRecord]) -> list[CourseRecord]:
        """The course whose title embedding is clearly closest to the name, above the threshold; ties: all."""
        # "the vector DB course" is compared as "vector DB": the filler words only blur the meaning.
        phrase = " ".join(token for token in tokens(name) if token.lower() not in STOPWORDS)
        if not phrase:
            return []
        result = self.store.run(
            CATALOG,
            "query",
            query_embeddings=[self.embedder.embed_query(phrase)],
            n_results=min(len(records), 3),
            include=["distances"],
        )
        scored = [
            (1 - distance, course_id)
            for course_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        ]
        scored.sort(reverse=True)
        if not scored or scored[0][0] < MATCH_SCORE:
            return []
        by_id = {record.id: record for record in records}
        close = [course_id for score, course_id in scored if scored[0][0] - score < MATCH_MARGIN]
        return [by_id[course_id] for course_id in close if course_id in by_id]
