"""The answerer used without an API key: the same tools, chosen from the question, and the best sentences."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from app.assistant.comparison import CUE_RE, split_comparison
from app.assistant.definitions import defined_term, defines
from app.assistant.models import Answer, AnswerEvent, DoneEvent, Exchange, Source
from app.assistant.tools import (
    OUTLINE_TOOL,
    SEARCH_TOOL,
    SourceCollector,
    ToolBox,
    ToolResult,
    passage_source,
)
from app.courses.chunking import split_sentences
from app.errors import CourseNotFound
from app.search.models import CourseRecord, Outline, Passage
from app.search.names import (
    STOPWORDS,
    acronym_matches,
    content_words,
    initials,
    is_acronym_token,
    longest_run,
    stem,
    tokens,
)

SEARCH_NOTE = "_No language model is configured; here are the most relevant passages from the courses._"
OUTLINE_NOTE = "_No language model is configured; here is the outline from the course materials._"
NO_MATCH = "The course materials don't cover this. Try other words, or name a course."
MIN_WORDS = 4
# Sentences whose vectors are kept between questions: ~1.5 KB each, so about 8 MB.
SENTENCE_CACHE_SIZE = 5000
# The lead: a few consecutive sentences of the best passage, so the answer reads as an explanation rather
# than a keyword hit. Then up to MAX_MORE further sentences from the other relevant passages.
LEAD_SENTENCES = 3
# A lead that ends on a short sentence usually introduces what comes next; follow it up to this many.
SHORT_SENTENCE_WORDS = 6
MAX_FOLLOW_ON = 2
MAX_MORE = 3
# A sentence is ranked by how close it is to the question and how close its passage is: a short sentence
# that repeats the question's keyword ("Three parameters control HNSW.") must not beat the passage that
# explains it. Cosine similarities (all-MiniLM-L6-v2).
# The question's own words count too: the model knows little of terms such as "HNSW" or "CSRF".
SENTENCE_WEIGHT = 0.4
PASSAGE_WEIGHT = 0.4
KEYWORD_WEIGHT = 0.2
# Below MIN_RELEVANCE the best sentence is not about the question; further sentences must be on topic
# (MIN_SCORE) and close to the lead (MAX_GAP), from a passage close to the best one or the lead's lesson.
MIN_RELEVANCE = 0.3
MIN_SCORE = 0.25
MAX_GAP = 0.12
# How far below the best run a run opening on the asked term's definition may score and still lead.
DEFINITION_GAP = 0.1
MIN_SHARED = 0.5

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
LESSON_RE = re.compile(
    r"\blesson\s*(?:#|no\.?\s*|number\s*)?(\d{1,3}|" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE
)
INSTRUCTOR_RE = re.compile(
    r"\bwho\s+(?:teaches|taught|is\s+teaching|runs|gives|is\s+the\s+(?:instructor|teacher))\b"
    r"|\btaught\s+by\b|\b(?:instructor|teacher)\s+(?:of|for)\b|\bwhich\s+(?:instructor|teacher)\b"
    r"|\bwhat(?:'s|\s+is)\s+the\s+(?:name\s+of\s+the\s+)?(?:instructor|teacher)\b",
    re.IGNORECASE,
)
OUTLINE_RE = re.compile(
    r"\b(outline|syllabus|curriculum|table of contents|structure|lesson list|list (?:of |the )?lessons"
    r"|(?:which|what|how many) lessons|lessons (?:are )?(?:in|of)|what is covered"
    r"|what (?:does|do|will) .+ cover)\b",
    re.IGNORECASE,
)
PREPOSITIONS = r"(?:in|of|from|about|on|for|to)"
THE = r"(?:the\s+)?"
NAME = r"(.{2,80}?)"
WORDS = r"(\w[\w\s\-']{0,80}?)"
END = r"\s*(?:[?.!,;]|$)"
LISTING = r"(?:outline|syllabus|curriculum|lessons)"
# Where a student names a course. Strict phrases clearly name one ("the course called X", "the outline of
# X"): when X looks like a name and matches no course, the answer says which courses exist. Loose phrases
# ("the X course", quoted text, "the X class", "what does X cover") often hold other words ("the best
# course", "the instructor say in the course", "the base class"): a miss there searches every course.
COURSE_PATTERNS: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(rf"\bcourse\s+(?:called|named|titled)\s+{NAME}{END}", re.I), True),
    (re.compile(rf"\b{LISTING}\s+(?:of|for|in)\s+{THE}{NAME}{END}", re.I), True),
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+course\b", re.I), False),
    (re.compile(rf"\bcourse\s+(?:on|about)\s+{NAME}{END}", re.I), False),
    (re.compile(r"[\"“]([^\"”]{2,100})[\"”]"), False),
    (re.compile(rf"\b(?:{PREPOSITIONS}\s+{THE}|the\s+){WORDS}\s+class\b", re.I), False),
    (re.compile(rf"\bwhat\s+(?:does|do|will)\s+{THE}{NAME}\s+cover\b", re.I), False),
]  # fmt: skip
# A name a strict phrase gives is at most this many words; longer text is a question, not a name.
MAX_NAME_WORDS = 5
# Words of a question that ask rather than say what about: a question left with none of its other words
# asks for an overview ("What does lesson 4 of the Flask course cover?").
QUESTION_WORDS = STOPWORDS | frozenset(
    {
        "say", "says", "said", "tell", "explain", "explains", "cover", "covers", "covered", "teach",
        "teaches", "taught", "learn", "summarise", "summarize", "summary", "describe", "discuss", "talk",
        "did", "was", "were", "will", "there", "main", "key", "point", "topic", "instructor", "overview",
        "work", "works", "use", "used", "mean", "means", "best", "good", "get",
    }
)  # fmt: skip


@dataclass
class CourseRef:
    """The course a question names, the text that named it, and what to say when it named none that exists."""

    course: CourseRecord | None = None
    named_by: str = ""
    error: str | None = None
    note: str | None = None


@dataclass
class Plan:
    """What the question asks for: the tool, the course and lesson it names, and its topic."""

    outline: bool
    course: CourseRecord | None
    lesson: int | None
    topic: str
    course_error: str | None = None
    note: str | None = None
    instructor: bool = False
    ask: str | None = None  # the one outline fact asked for (see outline_ask)


@dataclass
class Quote:
    """One candidate sentence: where it is, how close it is to the question, and its rank score."""

    passage: Passage
    position: int
    sentence: str
    similarity: float
    score: float
    shared: float = 0.0

    @property
    def order(self) -> tuple[int, int, int]:
        """Reading order within a course: lesson, chunk, sentence."""
        return (self.passage.lesson_number, self.passage.chunk_index, self.position)


def lesson_number(question: str) -> int | None:
    """The lesson number a question names ("lesson 2", "lesson two"), if any."""
    match = LESSON_RE.search(question)
    if not match:
        return None
    value = match.group(1).lower()
    return int(value) if value.isdigit() else NUMBER_WORDS[value]


def asks_instructor(question: str) -> bool:
    """True when the question asks who teaches a course."""
    return bool(INSTRUCTOR_RE.search(question))


# Outline questions with one answer, led by that answer before the outline itself.
COUNT_RE = re.compile(r"\bhow\s+many\s+lessons\b", re.IGNORECASE)
LINK_RE = re.compile(r"\b(?:link|url|web\s*site|web\s*page)\b", re.IGNORECASE)
LAST_RE = re.compile(r"\b(?:last|final)\s+lesson\b", re.IGNORECASE)
FIRST_RE = re.compile(r"\bfirst\s+lesson\b", re.IGNORECASE)
TITLE_RE = re.compile(r"\b(?:called|named|titled|title|name)\b", re.IGNORECASE)
# A question that refers back to the conversation rather than naming its own course.
FOLLOW_UP_RE = re.compile(
    r"^\s*(?:and|but|also|so|then|what about|how about)\b"
    r"|\b(?:the next one|the previous one|the same course|that course|this course|next lesson)\b"
    r"|\b(?:simpler|more simply|in simpler terms|more detail|elaborate)\b"
    r"|^\s*lesson\s+\w+\s*\??\s*$",
    re.IGNORECASE,
)
# A short question that points at what was just said ("why is that?", "explain it").
POINTING_RE = re.compile(r"\b(?:that|this|it|those|these)\b", re.IGNORECASE)
SHORT_QUESTION_WORDS = 6
NEXT_RE = re.compile(r"\b(?:next|following)\s+(?:one|lesson)\b", re.IGNORECASE)
AGAIN_RE = re.compile(
    r"\b(?:simpler|more simply|simply|in simpler terms|more detail|elaborate|explain (?:that|this|it))\b",
    re.IGNORECASE,
)
# Politeness and filler that name nothing: "outline of the rag course pls".
FILLER_RE = re.compile(r"\b(?:pls|plz|please|thx|thanks|thank\s+you)\b[.!]?", re.IGNORECASE)


def outline_ask(question: str) -> str | None:
    """Which one fact of an outline the question asks for: count, lesson title, last, first, link."""
    if COUNT_RE.search(question):
        return "count"
    if lesson_number(question) is not None and TITLE_RE.search(question):
        return "lesson title"
    if LAST_RE.search(question):
        return "last"
    if FIRST_RE.search(question) and TITLE_RE.search(question):
        return "first"
    if LINK_RE.search(question):
        return "link"
    return None


def wants_outline(question: str) -> bool:
    """True when the question is about a course's structure or instructor rather than its content."""
    if outline_ask(question):
        return True
    asks = OUTLINE_RE.search(question) or asks_instructor(question)
    return bool(asks) and lesson_number(question) is None


def _looks_like_name(phrase: str) -> bool:
    """True when every meaningful word is capitalised or an acronym ("Kubernetes", "Machine Learning")."""
    words = [token for token in tokens(phrase) if token.lower() not in STOPWORDS]
    return bool(words) and all(word[0].isupper() or word[0].isdigit() for word in words)


def _without(text: str, named_by: str) -> str:
    """The question without the words that named the course and the lesson: what it is about."""
    text = LESSON_RE.sub(" ", text)
    if named_by:
        gone = {stem(token) for token in tokens(named_by)} | {token.lower() for token in tokens(named_by)}
        text = re.sub(
            r"[A-Za-z0-9]+",
            lambda match: (
                "" if stem(match.group(0)) in gone or match.group(0).lower() in gone else match.group(0)
            ),
            text,
        )
    return " ".join(text.split())


class CourseFinder:
    """Find the course a question names, without guessing: a phrase, an acronym, a (near) full title."""

    def __init__(self, index):
        self.index = index

    def find(self, question: str) -> CourseRef:
        """The course the question names; a strict miss is an error, a loose miss of a name a note."""
        note, missed = None, ""
        for pattern, strict in COURSE_PATTERNS:
            for match in pattern.finditer(question):
                phrase = match.group(1)
                record, name, error = self._resolve_phrase(phrase)
                if record is not None:
                    return CourseRef(record, named_by=name)
                words = content_words(LESSON_RE.sub(" ", phrase))
                if error and strict and len(words) <= MAX_NAME_WORDS:
                    return CourseRef(error=error)
                if error and note is None and _looks_like_name(phrase) and len(words) <= MAX_NAME_WORDS:
                    titles = ", ".join(record.title for record in self.index.courses())
                    note = f"_No course matches '{phrase.strip()}', so every course was searched ({titles})._"
                # "the best course" says nothing about the topic; "the base class" or a quote may well.
                if "course" in match.group(0).lower() and not missed:
                    missed = match.group(0)
        ref = self._explicit_reference(question)
        if ref.course is None:
            ref.note, ref.named_by = note, missed
        return ref

    def _resolve_phrase(self, phrase: str) -> tuple[CourseRecord | None, str, str | None]:
        """Resolve a phrase, then its tails after each small word ("lesson 2 of the RAG" -> "RAG"): the
        course, the words that named it, or the first error."""
        words = LESSON_RE.sub(" ", phrase).split()
        tails = [
            " ".join(words[i:]) for i in range(len(words)) if i == 0 or words[i - 1].lower() in STOPWORDS
        ]
        first_error = None
        for tail in tails:
            if not content_words(tail):
                continue
            try:
                return self.index.resolve_course(tail), tail, None
            except CourseNotFound as exc:
                first_error = first_error or exc.message
        return None, "", first_error

    def _explicit_reference(self, question: str) -> CourseRef:
        """A course the question names without saying "course": its acronym ("RAG") or most of its title in
        a row ("Vector Databases from Scratch"). Shared title words ("test a Flask app") are not enough."""
        words = content_words(question)
        found = []
        for record in self.index.courses():
            title_words = content_words(record.title)
            acronyms = [
                token
                for token in tokens(question)
                if is_acronym_token(token)
                and acronym_matches(token, record.title)
                and (len(token) >= 3 or token.lower() in initials(record.title))
            ]
            if acronyms:
                found.append(CourseRef(record, named_by=" ".join(acronyms)))
            elif len(title_words) >= 2 and longest_run(words, title_words) >= max(2, len(title_words) - 1):
                found.append(CourseRef(record, named_by=record.title))
        # Two courses named at once is ambiguous: search everything rather than pick one.
        return found[0] if len(found) == 1 else CourseRef()


class SentenceVectors:
    """Sentence vectors, embedded once and kept (most recent first out): the same passages come back.

    Kept as float32 arrays: a full cache is 8 MB, where lists of Python floats would take 60 MB.
    """

    def __init__(self, embedder, size: int = SENTENCE_CACHE_SIZE):
        self.embedder = embedder
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sentences: list[str]) -> list[np.ndarray]:
        """The vector of each sentence, embedding only those not seen before, in one batch."""
        with self._lock:
            known = {sentence: self._vectors[sentence] for sentence in sentences if sentence in self._vectors}
            for sentence in known:
                self._vectors.move_to_end(sentence)
        missing = [sentence for sentence in dict.fromkeys(sentences) if sentence not in known]
        if missing:
            vectors = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            known.update(zip(missing, vectors, strict=True))
            with self._lock:
                for sentence in missing:
                    self._vectors[sentence] = known[sentence]
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return [known[sentence] for sentence in sentences]


class ExtractiveAnswerer:
    """Answer from the course materials alone: pick a tool from the question, quote the best sentences."""

    def __init__(self, toolbox: ToolBox, embedder):
        self.toolbox = toolbox
        self.embedder = embedder
        self.finder = CourseFinder(toolbox.index)
        self.sentence_vectors = SentenceVectors(embedder)

    def plan(self, question: str) -> Plan:
        """Decide the tool, course, lesson and topic from the question."""
        question = FILLER_RE.sub(" ", question).strip() or question
        ref = self.finder.find(question)
        topic = _without(question, ref.named_by)
        # Typos are searched as the library spells them, and the answer says so.
        corrected = self.toolbox.index.corrected(topic)
        notes = [ref.note] if ref.note else []
        if corrected != topic:
            notes.append(f'_Searched for "{corrected.strip()}"._')
        return Plan(
            ask=outline_ask(question),
            outline=wants_outline(question),
            course=ref.course,
            lesson=lesson_number(question),
            topic=corrected,
            course_error=ref.error,
            note="\n\n".join(notes) or None,
            instructor=asks_instructor(question),
        )

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """Answer as events; for now the whole answer arrives at once."""
        yield DoneEvent(self.answer(question, history))

    def answer(self, question: str, history: list[Exchange]) -> Answer:
        """Answer one question; a follow-up that names no course carries on from the previous exchange."""
        plan = self.plan(question)
        if history:
            self._follow_up(plan, question, history[-1])
        parts = None if plan.outline else split_comparison(question)
        compared = self._compare(plan, parts) if parts else None
        if compared is not None:
            return compared
        if plan.course_error:
            return self._reply(OUTLINE_NOTE if plan.outline else SEARCH_NOTE, plan.course_error, [], False)
        if plan.outline:
            return self._outline(plan)
        overview = not content_words(plan.topic, QUESTION_WORDS)
        arguments = {
            "query": self._query(plan) if overview else plan.topic,
            "course_name": plan.course.title if plan.course else None,
            "lesson_number": plan.lesson,
        }
        return self._search(plan, overview, self.toolbox.run(SEARCH_TOOL, arguments))

    def _compare(self, plan: Plan, parts: tuple[str, str]) -> Answer | None:
        """Answer each half of a comparison on its own and quote both; None when it does not split cleanly.

        A half that names a course searches it ("the RAG course and the vector databases course"). When
        neither half names one, both keep the whole question's course (a follow-up's, say); when only one
        does, the other searches every course.
        """
        halves = [self.plan(CUE_RE.sub(" ", part)) for part in parts]
        if any(half.course_error or not content_words(half.topic, QUESTION_WORDS) for half in halves):
            return None
        shared = None if plan.course_error or any(half.course for half in halves) else plan.course
        leads: list[list[Quote]] = []
        for half in halves:
            course = half.course or shared
            arguments = {
                "query": half.topic,
                "course_name": course.title if course else None,
                "lesson_number": half.lesson if half.lesson is not None else plan.lesson,
            }
            result = self.toolbox.run(SEARCH_TOOL, arguments)
            lead = [] if result.is_error else self.lead(self.quotes(half.topic, result.passages), False)
            if not lead:
                return None
            leads.append(lead)
        first, second = ({_place(quote) for quote in lead} for lead in leads)
        if first & second:  # both halves found the same sentences: one answer, not a comparison
            return None
        notes = list(dict.fromkeys(half.note for half in halves if half.note))
        body, sources = render_quotes(leads[0] + leads[1])
        return self._reply("\n\n".join([SEARCH_NOTE, *notes]), body, sources, True)

    def _follow_up(self, plan: Plan, question: str, previous: Exchange) -> None:
        """Carry the previous exchange's course (and lesson) into a question that refers back to it.

        "And lesson 4?" keeps the course; "what about the next one?" moves to the following lesson; "explain
        that more simply" asks the previous question again within its lesson.
        """
        pointing = POINTING_RE.search(question) and len(question.split()) <= SHORT_QUESTION_WORDS
        if plan.course is not None or plan.course_error or not (FOLLOW_UP_RE.search(question) or pointing):
            return
        cited = next((source for source in previous.sources if source.course_title), None)
        if cited is None:
            return
        try:
            plan.course = self.toolbox.index.resolve_course(cited.course_title)
        except CourseNotFound:  # the course went since the previous answer
            return
        plan.note = None
        if plan.lesson is None and NEXT_RE.search(question) and cited.lesson_number is not None:
            plan.lesson = cited.lesson_number + 1
            plan.topic = ""  # "the next one" is no topic: an overview of that lesson
        elif plan.lesson is None and AGAIN_RE.search(question):
            plan.lesson = cited.lesson_number
            plan.topic = _without(previous.question, "")
        if plan.lesson is not None and plan.lesson not in {lesson.number for lesson in plan.course.lessons}:
            plan.lesson = None  # past the last lesson: the whole course rather than an error

    @staticmethod
    def _query(plan: Plan) -> str:
        """What to search for when the question names only a course or lesson: that lesson or course."""
        if plan.course is not None:
            titles = {lesson.number: lesson.title for lesson in plan.course.lessons}
            return (
                titles.get(plan.lesson, plan.course.title) if plan.lesson is not None else plan.course.title
            )
        return plan.topic or "overview"

    def _reply(self, note: str, body: str, sources: list[Source], tool_used: bool) -> Answer:
        """An Answer under the mode note."""
        return Answer(
            markdown=f"{note}\n\n{body}", sources=sources, mode="extractive", tool_rounds=int(tool_used)
        )

    def _outline(self, plan: Plan) -> Answer:
        """The named course's outline as markdown; without a course, the list of courses."""
        course = plan.course
        if course is None:
            courses = self.toolbox.index.courses()
            if len(courses) != 1:
                return self._reply(OUTLINE_NOTE, render_course_list(courses), [], False)
            course = courses[0]
        result = self.toolbox.run(OUTLINE_TOOL, {"course_name": course.title})
        if result.is_error or result.outline is None:
            return self._reply(OUTLINE_NOTE, result.text, [], True)
        body = render_outline(result.outline)
        lead = outline_fact(result.outline, plan)
        if lead:
            body = f"{lead}\n\n{body}"
        return self._reply(OUTLINE_NOTE, body, result.sources, True)

    def _search(self, plan: Plan, overview: bool, result: ToolResult) -> Answer:
        """A lead of consecutive sentences from the best passage, then more quotes, grouped by lesson."""
        note = f"{SEARCH_NOTE}\n\n{plan.note}" if plan.note else SEARCH_NOTE
        if result.is_error:
            return self._reply(note, result.text, [], True)
        quotes = self.quotes(plan.topic, result.passages)
        # A question about a lesson it names is answered from that lesson, however loosely it is worded.
        floor = MIN_RELEVANCE if plan.lesson is None else 0.0
        lead = self.lead(quotes, overview, plan.topic, floor)
        if not lead:
            # One plain line: the banner "here are the most relevant passages" would contradict it.
            body = f"{plan.note}\n\n{NO_MATCH}" if plan.note else NO_MATCH
            return Answer(markdown=body, sources=[], mode="extractive", tool_rounds=1)
        more = self.more(quotes, lead)
        term = defined_term(plan.topic)
        if term is not None and defines(lead[0].sentence, term):
            # Quotes render in reading order: nothing of the lesson may come before its definition.
            more = [
                quote for quote in more if _lesson(quote) != _lesson(lead[0]) or quote.order > lead[0].order
            ]
        body, sources = render_quotes(lead + more)
        return self._reply(note, body, sources, True)

    def quotes(self, topic: str, passages: list[Passage]) -> list[Quote]:
        """Every sentence of the passages once (overlapping chunks repeat some), scored against the topic."""
        candidates = _unique_sentences(passages)
        if not candidates:
            return []
        query = self.embedder.embed_query(topic)
        vectors = self.sentence_vectors.get([sentence for _, _, sentence in candidates])
        keywords = set(content_words(topic, QUESTION_WORDS))
        quotes = []
        for (passage, position, sentence), vector in zip(candidates, vectors, strict=True):
            similarity = float(np.dot(query, vector))
            shared = _keyword_share(keywords, passage, sentence)
            score = SENTENCE_WEIGHT * similarity + PASSAGE_WEIGHT * passage.score + KEYWORD_WEIGHT * shared
            quotes.append(Quote(passage, position, sentence, similarity, score, shared))
        return quotes

    @staticmethod
    def lead(
        quotes: list[Quote], overview: bool, topic: str = "", floor: float = MIN_RELEVANCE
    ) -> list[Quote]:
        """Consecutive sentences of one passage: the best-scoring run, or for an overview a lesson's opening.

        Runs are scored as a whole, so a short sentence that merely repeats the question's keyword ("Three
        parameters control HNSW.") cannot carry the lead alone. A "what is X" question leads with the run that
        opens on X's definition ("X is …") when one scores nearly as well as the best run. A run scoring below
        `floor` is no lead: nothing relevant was found.
        """
        if not quotes:
            return []
        if overview:
            first = min(quotes, key=lambda quote: quote.order)
            return [quote for quote in quotes if quote.passage is first.passage][:LEAD_SENTENCES]
        windows = _windows(quotes)
        best = max(windows, key=_mean, default=[])
        if not best or max(quote.score for quote in best) < floor:
            return []
        term = defined_term(topic)
        if term is not None:
            defining = [window for window in windows if defines(window[0].sentence, term)]
            definition = max(defining, key=_mean, default=[])
            if definition and _mean(definition) >= _mean(best) - DEFINITION_GAP:
                best = definition
        return _complete(best, quotes)

    @staticmethod
    def more(quotes: list[Quote], lead: list[Quote]) -> list[Quote]:
        """The best other sentences: on topic, close to the lead's score, from passages near the best one."""
        top = _mean(lead)
        best_passage = max(quote.passage.score for quote in quotes)
        lesson = (lead[0].passage.course_title, lead[0].passage.lesson_number)
        rest = [
            quote
            for quote in quotes
            if quote not in lead
            and len(tokens(quote.sentence)) >= MIN_WORDS
            and quote.similarity >= MIN_SCORE
            and quote.score >= top - MAX_GAP
            and (
                (quote.passage.course_title, quote.passage.lesson_number) == lesson
                # Another lesson must also share most telling keywords: closeness alone let in sentences
                # that merely sound alike (a distance formula under a question about rank fusion).
                or (quote.passage.score >= best_passage - MAX_GAP and quote.shared >= MIN_SHARED)
            )
        ]
        return sorted(rest, key=_score, reverse=True)[:MAX_MORE]


def _lesson(quote: Quote) -> tuple[str, int]:
    """The course and lesson a quote comes from."""
    return quote.passage.course_title, quote.passage.lesson_number


def _place(quote: Quote) -> tuple[str, int, int, int]:
    """Where a quoted sentence is: course, lesson, chunk and position (the same across searches)."""
    return (quote.passage.course_title, *quote.order)


def _unique_sentences(passages: list[Passage]) -> list[tuple[Passage, int, str]]:
    """List each sentence with its passage and position, skipping repeats of a sentence already seen."""
    candidates: list[tuple[Passage, int, str]] = []
    seen: set[str] = set()
    for passage in passages:
        for position, sentence in enumerate(split_sentences(passage.text)):
            key = " ".join(sentence.lower().split())
            if key not in seen:
                seen.add(key)
                candidates.append((passage, position, sentence.strip()))
    return candidates


def _keyword_share(keywords: set[str], passage: Passage, sentence: str) -> float:
    """Return the share of the topic's telling keywords that the sentence contains."""
    # A word of the passage's own course title ("flask" in the Flask course) tells nothing apart.
    telling = keywords - set(content_words(passage.course_title))
    return len(telling & set(content_words(sentence))) / len(telling) if telling else 0.0


def _complete(lead: list[Quote], quotes: list[Quote]) -> list[Quote]:
    """Extend a lead that ends on a short sentence with what follows it ("Three parameters control X.")."""
    own = sorted((quote for quote in quotes if quote.passage is lead[-1].passage), key=lambda q: q.position)
    following = {quote.position: quote for quote in own}
    lead = list(lead)
    for _ in range(MAX_FOLLOW_ON):
        after = following.get(lead[-1].position + 1)
        if after is None or len(tokens(lead[-1].sentence)) > SHORT_SENTENCE_WORDS:
            break
        lead.append(after)
    return lead


def _windows(quotes: list[Quote]) -> list[list[Quote]]:
    """List each run of LEAD_SENTENCES consecutive sentences of a passage that has a sentence of substance."""
    windows = []
    for passage in {id(quote.passage): quote.passage for quote in quotes}.values():
        own = [quote for quote in quotes if quote.passage is passage]
        for start in range(max(1, len(own) - LEAD_SENTENCES + 1)):
            window = own[start : start + LEAD_SENTENCES]
            if any(len(tokens(quote.sentence)) >= MIN_WORDS for quote in window):
                windows.append(window)
    return windows


def _score(quote: Quote) -> float:
    """A quote's rank score (for sorting)."""
    return quote.score


def _mean(quotes: list[Quote]) -> float:
    """The mean rank score of a run of sentences."""
    return sum(quote.score for quote in quotes) / len(quotes)


def _join(quotes: list[Quote]) -> str:
    """Sentences in reading order; a gap between non-adjacent sentences shows as an ellipsis."""
    text = ""
    previous: Quote | None = None
    for quote in sorted(quotes, key=lambda quote: quote.order):
        if previous is not None:
            adjacent = quote.passage is previous.passage and quote.position == previous.position + 1
            text += " " if adjacent else " … "
        text += quote.sentence
        previous = quote
    return text


def render_quotes(quotes: list[Quote]) -> tuple[str, list[Source]]:
    """Render quotes as a block per lesson, headed by its label, in order of first use; return the sources."""
    collector = SourceCollector()
    groups: dict[tuple[str, int | None], list[Quote]] = {}
    for quote in quotes:
        source = passage_source(quote.passage)
        collector.add([source])
        groups.setdefault((source.course_title, source.lesson_number), []).append(quote)
    blocks = [
        f"**{source.label}**\n\n{_join(groups[(source.course_title, source.lesson_number)])}"
        for source in collector.sources
    ]
    return "\n\n".join(blocks), collector.sources


def outline_fact(outline: Outline, plan: Plan) -> str | None:
    """The one-line answer an outline question asks for (lesson count, a lesson's title, the link), if any."""
    lessons = sorted(outline.lessons, key=lambda lesson: lesson.number)
    if plan.ask == "count":
        counted = [lesson for lesson in lessons if lesson.number > 0] or lessons
        return f"{outline.title} has {len(counted)} lesson{'' if len(counted) == 1 else 's'}."
    if plan.ask in ("lesson title", "last", "first") and lessons:
        if plan.ask == "lesson title":
            chosen = next((lesson for lesson in lessons if lesson.number == plan.lesson), None)
            if chosen is None:
                numbers = ", ".join(str(lesson.number) for lesson in lessons)
                return f"{outline.title} has no lesson {plan.lesson}; its lessons are {numbers}."
        elif plan.ask == "last":
            chosen = lessons[-1]
        else:
            chosen = next((lesson for lesson in lessons if lesson.number >= 1), lessons[0])
        title = f"[{chosen.title}]({chosen.link})" if chosen.link else chosen.title
        return f"Lesson {chosen.number} of {outline.title} is “{title}”."
    if plan.ask == "link":
        return (
            f"{outline.title}: {outline.link}" if outline.link else f"No link is listed for {outline.title}."
        )
    if plan.instructor:
        return (
            f"{outline.title} is taught by {outline.instructor}."
            if outline.instructor
            else "No instructor is listed."
        )
    return None


def render_outline(outline: Outline) -> str:
    """An outline as markdown: linked title, instructor, then a bullet per lesson (lesson 0 included)."""
    title = f"[{outline.title}]({outline.link})" if outline.link else outline.title
    lines = [f"**{title}**", ""]
    if outline.instructor:
        lines += [f"Instructor: {outline.instructor}", ""]
    for lesson in outline.lessons:
        name = f"[{lesson.title}]({lesson.link})" if lesson.link else lesson.title
        lines.append(f"- Lesson {lesson.number}: {name}")
    return "\n".join(lines)


def render_course_list(courses: list[CourseRecord]) -> str:
    """The courses there are, for an outline question that names none."""
    if not courses:
        return "No courses are indexed yet."
    lines = ["Which course? Name one of these to see its outline:", ""]
    for course in courses:
        title = f"[{course.title}]({course.link})" if course.link else course.title
        teacher = f", taught by {course.instructor}" if course.instructor else ""
        lines.append(f"- {title} ({len(course.lessons)} lessons{teacher})")
    return "\n".join(lines)
