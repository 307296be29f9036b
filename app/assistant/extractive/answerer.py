"""The answerer used without an API key: the same tools, chosen from the question, and the best sentences.

A question walks the pipeline once: understand it (intent.py: an immutable Plan), retrieve the passages or
the outline (retrieve.py), select the sentences to quote (quotes.py), render the markdown (render.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import NamedTuple

from app.assistant.base import Answer, AnswerEvent, DoneEvent, Exchange
from app.assistant.extractive.answer_types import asked_type
from app.assistant.extractive.comparison import about, distinctive, named_lesson, own_subject, without_title
from app.assistant.extractive.confidence import (
    MIN_CONFIDENCE,
    MeaningWeights,
    Signals,
    passage_words,
    side_by_side,
    signals,
    unmentioned,
    with_titles,
)
from app.assistant.extractive.fact_near import fact_near_topic
from app.assistant.extractive.half_pool import half_passages, half_reading
from app.assistant.extractive.intent import PRONOUN_RE, Plan, understand
from app.assistant.extractive.nearest import nearest_share
from app.assistant.extractive.quotes import MIN_RELEVANCE, lead, lead_at, more, more_of, second_lead
from app.assistant.extractive.render import (
    OUTLINE_NOTE,
    SEARCH_NOTE,
    no_match,
    outline_fact,
    render_course_list,
    render_outline,
    render_quotes,
    reply,
)
from app.assistant.extractive.retrieve import course_outline, search, search_query, wider
from app.assistant.extractive.scoring import Quote, SentenceScorer
from app.assistant.tools import ToolBox, ToolResult
from app.language.acronyms import spelled_out
from app.language.lexicon import NO_TOPIC_WORDS
from app.language.tokens import content_words
from app.search.embedding.protocol import Embedder
from app.search.models import CourseRecord, Passage


class HalfRead(NamedTuple):
    """One half of a comparison as read: its plan, the passages it searched, their scored sentences, and its
    lead (empty when nothing relevant was found)."""

    half: Plan
    passages: list[Passage]
    quotes: list[Quote]
    lead: list[Quote]


# The passages of a lesson read together when a follow-up chooses between the lessons just quoted.
AROUND = 5


class ExtractiveAnswerer:
    """Answer from the course materials alone: pick a tool from the question, quote the best sentences."""

    def __init__(self, toolbox: ToolBox, embedder: Embedder):
        self.toolbox = toolbox
        self.index = toolbox.index
        self.scorer = SentenceScorer(embedder, toolbox.index.chunks_at)
        self.meaning = MeaningWeights(embedder)

    def plan(self, question: str, history: list[Exchange] | None = None) -> Plan:
        """Understand the question, carrying on from the last exchange when it refers back to it."""
        return understand(question, self.index, history[-1] if history else None)

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """Answer as events; for now the whole answer arrives at once."""
        yield DoneEvent(self.answer(question, history))

    def answer(self, question: str, history: list[Exchange]) -> Answer:
        """Answer one question; a follow-up that names no course carries on from the previous exchange."""
        plan = self.plan(question, history)
        compared = self._compare(plan)
        if compared is not None:
            return compared
        if plan.course_error:
            return reply(OUTLINE_NOTE if plan.outline else SEARCH_NOTE, plan.course_error, [], False)
        if plan.outline:
            return self._outline(plan)
        return self._search(plan)

    def _search(self, plan: Plan) -> Answer:
        """A lead of consecutive sentences from the best passage, then more quotes, grouped by lesson."""
        result = self.retrieve(plan)
        note = f"{SEARCH_NOTE}\n\n{plan.note}" if plan.note else SEARCH_NOTE
        if result.is_error:
            return reply(note, result.text, [], True)
        measured = self.signals(plan, result.passages)
        # A question about a lesson it names is answered from that lesson, however loosely it is worded.
        named = plan.lesson is not None or plan.overview
        if not named and measured.confidence < MIN_CONFIDENCE:
            course = plan.course.title if plan.course is not None else None
            declined = no_match(plan.note, measured.unmentioned, course)
            return declined.model_copy(update={"confidence": measured.confidence})
        passages = wider(self.index, plan, search_query(plan), result.passages)
        quotes = self.scorer.quotes(plan.quoted_for, passages)
        floor = MIN_RELEVANCE if not named else 0.0
        opening = lead(quotes, plan.overview, plan.term, floor)
        fact = self._fact_about_context(plan, quotes)
        # The fact said where the topic is named comes first; the sentences the question's words find
        # stay (a capitalised word is only a likely name).
        opening = fact + [quote for quote in opening if quote not in fact] if fact else opening
        if not opening and plan.quoted_for != plan.query:
            # A follow-up's own words found nothing close: its sentences are read with the previous question's
            # words too (their vectors are cached).
            quotes = self.scorer.quotes(plan.query, passages)
            opening = lead(quotes, plan.overview, plan.term, floor)
        if not opening and plan.near:
            # Nothing close in the lessons just quoted ("which server should I use?" after an answer from
            # the fundamentals lesson): the whole course, as for a follow-up that moves on.
            return self._search(replace(plan, near=()))
        if not opening:
            return no_match(plan.note).model_copy(update={"confidence": measured.confidence})
        body, sources = render_quotes(opening + more(quotes, opening, plan.term))
        return reply(note, body, sources, True).model_copy(update={"confidence": measured.confidence})

    def _fact_about_context(self, plan: Plan, quotes: list[Quote]) -> list[Quote]:
        """For a fact asked about what a pronoun stands for ("who thought of it?"), the lead at the
        sentence of that kind said just after the topic is named; empty for any other question."""
        kind = asked_type(plan.topic)
        if kind is None or not plan.context or not PRONOUN_RE.search(plan.topic):
            return []
        fact = fact_near_topic(self.scorer, kind, plan.query, plan.context, quotes)
        return lead_at(quotes, fact) if fact is not None else []

    def retrieve(self, plan: Plan) -> ToolResult:
        """The passages for a plan. A follow-up is about the previous answer: it looks first in the lessons
        that answer quoted, in the one whose passages hold most of its own words, and searches its whole
        course when none holds them ("and how is it tested?" may move on)."""
        query = search_query(plan)
        best: tuple[float, ToolResult] | None = None
        for lesson in plan.near if plan.lesson is None else ():
            near = search(self.toolbox, query, plan.course, lesson)
            if near.is_error or not self._holds_own_words(plan, near.passages):
                continue
            held = self._own_words_around(plan, near.passages)
            if best is None or held > best[0]:
                best = (held, near)
        if best is not None:
            return best[1]
        return search(self.toolbox, query, plan.course, plan.lesson)

    def _holds_own_words(self, plan: Plan, passages: list[Passage]) -> bool:
        """True when the first passage holds the follow-up's own words (weighed as for a decline), or it
        has none ("and lesson 4?")."""
        own = content_words(plan.topic, NO_TOPIC_WORDS)
        measured = signals(plan.topic, own, passages, self.index.rarity, self.meaning)
        return not own or measured.confidence >= MIN_CONFIDENCE

    def _own_words_around(self, plan: Plan, passages: list[Passage]) -> float:
        """The rarity-weighted share of the follow-up's own words that the passages found hold between them:
        a lesson whose passages say more of its words ("effort", "level", "too") is the one it asks about."""
        own = list(dict.fromkeys(content_words(plan.topic, NO_TOPIC_WORDS)))
        rare = self.index.rarity(own)
        total = sum(rare.get(word, 0.0) for word in own)
        if total <= 0:
            return 0.0
        held = set().union(*(passage_words(passage) for passage in passages[:AROUND]))
        return sum(rare.get(word, 0.0) for word in own if word in held) / total

    def signals(self, plan: Plan, passages: list[Passage]) -> Signals:
        """How sure the passages found make an answer that the library covers the plan's topic."""
        words = content_words(plan.query, NO_TOPIC_WORDS)
        # A two-letter term no course writes is likely a student's short form of a word the courses spell out
        # ("db" for database), not a subject they lack: it does not count against the passages.
        short = [word for word in words if len(word) == 2]
        unsaid = set(short) - self.index.held(short) if short else set()
        words = [word for word in words if word not in unsaid]
        measured = signals(plan.query, words, passages, self.index.rarity, self.meaning)
        # A comparison's whole question spans courses (it is answered whole when its halves find one thing).
        course = plan.course.title if plan.course is not None and plan.halves is None else None
        missing = unmentioned(
            plan.query,
            self.index.embedder.vocabulary(),
            lambda name: self.index.corrected(name, names=True),
            lambda terms: self.index.held(terms, course),
            self.index.courses(),
            lambda run: side_by_side(run, [with_titles(passage) for passage in passages]),
        )
        # An acronym the search was given in full ("VAE (variational auto encoder)") is said.
        missing = tuple(name for name in missing if spelled_out(name, plan.query) is None)
        if missing or measured.confidence < MIN_CONFIDENCE:
            return replace(measured, unmentioned=missing)
        nearest = nearest_share(self.index, self.meaning, plan.query, words, course, plan.lesson)
        return replace(measured, unmentioned=missing, nearest=nearest)

    def _compare(self, plan: Plan) -> Answer | None:
        """Answer each half of a comparison on its own and quote both; None for a question that is no
        comparison, or when that finds no two answers."""
        read = self.read_halves(plan)
        if read is None or not all(one.lead for one in read):
            return None
        halves = (read[0].half, read[1].half)
        confidence = min(self.signals(one.half, one.passages).confidence for one in read)
        picked = [(one.quotes, one.lead) for one in read]
        second = second_lead(*picked[1], picked[0][1], distinctive(halves[1].topic, halves[0].topic))
        if second is None:  # the halves find one thing (“fixtures and fixture setup”): one answer
            return None
        notes = list(dict.fromkeys(half.note for half in halves if half.note))
        body, sources = render_quotes(
            picked[0][1] + more_of(*picked[0]) + second + more_of(picked[1][0], second)
        )
        answer = reply("\n\n".join([SEARCH_NOTE, *notes]), body, sources, True)
        return answer.model_copy(update={"confidence": confidence})

    def read_halves(self, plan: Plan) -> list[HalfRead] | None:
        """Each half of a comparison read on its own: its passages, scored sentences and lead (empty when
        nothing relevant was found); None for a question that is no comparison.

        A half that names a course searches it ("the baking course and the pottery course"), one that
        names a lesson by a word of its title searches that lesson ("the Pasteur lecture"). A half that names
        no course keeps the whole question's course (a follow-up's, say, or the one course the other half
        names: "what MCP servers expose vs what clients expose") when that course says every word of the half
        that the library says. A half stops being read once one before it found no lead.
        """
        if plan.halves is None:
            return None
        halves = plan.halves
        named = {half.course.title for half in halves if half.course is not None}
        whole = plan.course if plan.course is not None and named <= {plan.course.title} else None
        shared = None if plan.course_error else whole
        read: list[HalfRead] = []
        places = [self._place(half, other, shared, plan) for half, other in (halves, halves[::-1])]
        for (half, other), (course, lesson, query), (taken, owned, _) in zip(
            (halves, halves[::-1]), places, places[::-1], strict=True
        ):
            topic = half.topic
            # A half that points back ("and what did he get for it?") is searched with the other's words too.
            query = f"{query} {other.topic}" if PRONOUN_RE.search(topic) else query
            result = search(self.toolbox, query, course, lesson)
            passages = half_passages(
                self.index, query, course, lesson, [] if result.is_error else result.passages
            )
            if lesson is None and owned is not None and taken is not None:
                # The lesson the other half names is that half's: this half is about something else.
                elsewhere = [p for p in passages if (p.course_title, p.lesson_number) != (taken.title, owned)]
                passages = elsewhere or passages
            if lesson is None:
                # A half is answered by what speaks of its own subject ("IVF" against "HNSW"), not by what
                # both halves share ("trades recall for speed").
                own, theirs = own_subject(topic, other.topic), own_subject(other.topic, topic)
                passages = [p for p in passages if about(own, theirs, passage_words(p))] or passages
            reading = half_reading(passages)
            quotes = self.scorer.quotes(topic, passages, reading) if passages else []
            found = lead(quotes, False, floor=0.0 if lesson is not None else MIN_RELEVANCE)
            read.append(HalfRead(half, passages, quotes, found))
            if not found:
                break
        return read

    def _place(
        self, half: Plan, other: Plan, shared: CourseRecord | None, plan: Plan
    ) -> tuple[CourseRecord | None, int | None, str]:
        """Where one half of a comparison searches, and with what words: its course, the lesson it names."""
        course, lesson = half.course or shared, half.lesson
        # The course the other half names is this one's only if it says every word of this half that any
        # course says ("in Jinja templates" is not about the course that "a RAG answer" names); the lesson
        # the other half names stays that half's.
        borrowed = half.course is None and shared is not None and other.course == shared
        if borrowed and shared is not None:
            words = content_words(half.topic)
            course = shared if self.index.covers(words, shared.title) else None
        # The question's lesson number is of the question's course: a half searching elsewhere leaves it.
        if (
            lesson is None
            and not borrowed
            and (plan.course is None or (course is not None and course.title == plan.course.title))
        ):
            lesson = plan.lesson
        named = None if lesson is not None else named_lesson(half.topic, other.topic, self.index.courses())
        if named is None or (course is not None and named[0].title != course.title):
            return course, lesson, half.topic
        title = next(item.title for item in named[0].lessons if item.number == named[1])
        return named[0], named[1], without_title(half.topic, title)

    def _outline(self, plan: Plan) -> Answer:
        """The named course's outline as markdown; without a course, the list of courses."""
        course = plan.course
        if course is None:
            courses = self.index.courses()
            if len(courses) != 1:
                return reply(OUTLINE_NOTE, render_course_list(courses), [], False)
            course = courses[0]
        result = course_outline(self.toolbox, course)
        if result.is_error or result.outline is None:
            return reply(OUTLINE_NOTE, result.text, [], True)
        body = render_outline(result.outline)
        fact = outline_fact(result.outline, plan)
        if fact:
            body = f"{fact}\n\n{body}"
        return reply(OUTLINE_NOTE, body, result.sources, True)
