"""The names a question mentions, and whether the courses searched say them in any spelling they use."""

from __future__ import annotations

from app.assistant.extractive.confidence import Signals, names, names_a_course, unmentioned
from app.search.models import Outline

ORDINARY = frozenset({"stanford", "explain", "prison"})


def _unmentioned(question: str, said: set[str], spelled: dict[str, str] | None = None) -> tuple[str, ...]:
    """`unmentioned` over courses that say exactly the stemmed words `said`."""
    spelled = spelled or {}
    return unmentioned(
        question,
        ORDINARY,
        lambda word: spelled.get(word, word),
        lambda terms: said & set(terms),
    )


def test_names_are_capitalised_words_and_acronyms_run_together():
    assert names("What does the course say about the Stanford prison experiment?", ORDINARY) == [["Stanford"]]
    assert names("Is the Monty Hall problem solved with LoRA or GPT?", ORDINARY) == [
        ["Monty", "Hall"],
        ["LoRA"],
        ["GPT"],
    ]


def test_an_ordinary_opening_word_and_a_question_in_capitals_name_nothing():
    assert names("Explain how prisons reward good behaviour", ORDINARY) == []
    assert names("Stanford prison experiment?", ORDINARY) == []
    assert names("Shapley values?", ORDINARY) == [["Shapley"]]  # no ordinary word: a name
    assert names("Shapley values?", frozenset()) == []  # without a vocabulary no opening word is
    assert names("WHAT IS THE SHAPLEY VALUE", ORDINARY) == []
    assert names("How Does Prompt Caching Reduce Costs?", ORDINARY) == []
    named = names("What is the Stanford Prison Experiment?", ORDINARY)
    assert named == [["Stanford", "Prison", "Experiment"]]
    assert names("How do I deploy an MCP server on AWS Lambda?", ORDINARY) == [["MCP"], ["AWS", "Lambda"]]
    assert names("How do I add batch normalization?", ORDINARY) == []


def test_who_teaches_and_which_part_of_a_course_are_no_names():
    question = "What did Professor Polak say in the Monday Lab about Nash?"
    assert names(question, ORDINARY) == [["Polak"], ["Nash"]]


def test_a_name_the_courses_never_say_is_unmentioned():
    said = {"mcp", "server", "deploy"}

    assert _unmentioned("How do I deploy an MCP server on AWS Lambda?", said) == ("AWS Lambda",)
    assert _unmentioned("How do I deploy an MCP server?", said) == ()


def test_a_run_of_names_is_unmentioned_when_one_of_its_names_is():
    assert _unmentioned("What is the price of Claude Opus?", {"claude", "price"}) == ("Claude Opus",)


def test_a_name_is_said_split_at_its_capitals_joined_or_as_the_library_spells_it():
    assert _unmentioned("When did a network beat humans on ImageNet?", {"image", "net"}) == ()
    assert _unmentioned("What is Image Net?", {"imagenet"}) == ()
    assert _unmentioned("what is Thorndike's law", {"thorndyke", "law"}, {"Thorndike": "thorndyke"}) == ()
    assert _unmentioned("What is ImageNet?", {"image"}) == ("ImageNet",)


def test_a_question_naming_what_no_course_says_has_no_confidence_whatever_its_word_share():
    assert Signals(cosine=0.5, coverage=0.9, unmentioned=("Stanford",)).confidence == 0.0
    assert Signals(cosine=0.5, coverage=0.9).confidence == 0.9


def test_a_name_naming_a_course_by_its_title_initials_or_instructor_is_no_subject():
    rag = Outline(title="Retrieval-Augmented Generation in Practice", instructor="Ada Lovelace")
    courses = [rag]

    assert names_a_course("RAG", courses) and names_a_course("Lovelace", courses)
    assert names_a_course("Generation", courses) and not names_a_course("Pinecone", courses)
    question = "how do the vector course and the RAG course use Pinecone?"
    assert unmentioned(question, ORDINARY, str, lambda terms: {"vector"}, courses) == ("Pinecone",)


def test_a_name_offered_as_an_alternative_to_one_the_courses_say_is_not_unmentioned():
    said = {"api", "run"}

    # "a GPU or an external API": the question is covered when the courses say either.
    assert _unmentioned("Does it need a GPU or an external API to run?", said) == ()
    assert _unmentioned("Does it need a GPU or an external TPU to run?", said) == ("GPU", "TPU")
    assert _unmentioned("Does it need a GPU and an external API to run?", said) == ("GPU",)
