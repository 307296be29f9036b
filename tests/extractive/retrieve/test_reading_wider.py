"""Every answer but a term's definition reads the next best passages of its course or lesson beyond the
search tool's five."""

from __future__ import annotations

import pytest

from app.assistant.extractive.retrieve import search_query, wider


@pytest.mark.parametrize(
    "question",
    [
        "how many results does the search return by default?",  # asks for a number
        "explain how HNSW works",  # asks for no fact; one lesson's passage is far ahead of the others
        "explain how the search ranks results",  # passages from two lessons alike
    ],
)
def test_an_answer_reads_the_next_best_passages(services, question):
    answerer = services.assistant._answerer
    plan = answerer.plan(question, [])
    found = answerer.index.search(search_query(plan), k=5)
    read = wider(answerer.index, plan, search_query(plan), found)
    assert read[: len(found)] == found  # the passages found keep their order, first
    assert len(read) > len(found)
    assert len({passage.place for passage in read}) == len(read)  # none read twice


def test_nothing_found_reads_nothing_more(services):
    answerer = services.assistant._answerer
    plan = answerer.plan("explain how HNSW works", [])
    assert wider(answerer.index, plan, search_query(plan), []) == []


def test_a_question_asking_what_one_term_is_reads_the_five(services):
    # A definition is said where the term is: a further passage's sentence that sounds alike would join it.
    answerer = services.assistant._answerer
    plan = answerer.plan("what is HNSW?", [])
    assert plan.term is not None
    found = answerer.index.search(search_query(plan), k=5)
    assert wider(answerer.index, plan, search_query(plan), found) == found
