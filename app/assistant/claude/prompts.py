"""The system prompt for the Claude assistant."""

from __future__ import annotations

from app.assistant.prompts import INTRO, TOOLS, answering

SYSTEM_PROMPT = (
    INTRO
    + TOOLS
    + answering(
        "what the tools returned",
        "Cite the search results you use: every claim taken from the courses should carry its citation.",
    )
)
