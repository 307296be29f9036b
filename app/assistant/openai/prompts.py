"""What an OpenAI-compatible model is sent: system prompts, function tools and numbered passages."""

from __future__ import annotations

from typing import Any

from app.assistant.prompts import INTRO, TOOLS, answering
from app.assistant.tools import lesson_label
from app.search.models import Passage

CITING = (
    "The course passages you get are numbered: [1], [2], … After each sentence you take from a passage, "
    'put its number in square brackets, for example "Chunks keep whole sentences [2]." Use only the numbers '
    "you were given, and no other brackets with numbers."
)

TOOLS_PROMPT = INTRO + TOOLS + answering("what the tools returned", CITING)
PASSAGES_PROMPT = (
    INTRO
    + "\nThe course passages that may answer the student's question come with it.\n"
    + answering("the course passages given with the question", CITING)
)


def function_tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The course tools as chat completions function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": schema["name"],
                "description": schema["description"],
                "parameters": schema["input_schema"],
            },
        }
        for schema in schemas
    ]


def numbered_passages(passages: list[Passage], first: int) -> str:
    """Passages as the model reads them, numbered from `first`: `[n] Course – Lesson n: title`, then text."""
    blocks = [
        f"[{number}] {lesson_label(p.course_title, p.lesson_number, p.lesson_title)}\n{p.text.strip()}"
        for number, p in enumerate(passages, start=first)
    ]
    return "\n\n".join(blocks)


def question_with_passages(question: str, passages: list[Passage]) -> str:
    """The user's turn without tool calling: the numbered passages found for it, then the question."""
    found = numbered_passages(passages, 1) if passages else "(No course passage matched this question.)"
    return f"Course passages:\n\n{found}\n\nQuestion: {question}"
