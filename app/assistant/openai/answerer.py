"""An OpenAI-compatible chat completions model (Ollama, vLLM, LM Studio, OpenAI) as the answerer: the course
tools when the model calls functions, else one search whose numbered passages go into the prompt."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import openai

from app.assistant.base import Answer, AnswerEvent, DoneEvent, Exchange, StatusEvent, TextEvent
from app.assistant.history import history_turns
from app.assistant.model_messages import EMPTY_ANSWER, REFUSED_ANSWER, TRUNCATED_NOTE
from app.assistant.openai.markers import ModelCitations
from app.assistant.openai.prompts import (
    PASSAGES_PROMPT,
    TOOLS_PROMPT,
    function_tools,
    numbered_passages,
    question_with_passages,
)
from app.assistant.openai.streaming import ToolCall, ToolsRefused, Turn, streamed_turn
from app.assistant.tools import SEARCH_TOOL, ToolBox
from app.config import Settings
from app.errors import ModelUnavailable
from app.search.models import Passage

log = logging.getLogger(__name__)

MAX_TOKENS = 2048
# A local server checks no key, but the SDK sends one.
NO_KEY = "not-needed"
MALFORMED_MESSAGE = (
    "The assistant's model asked for course material in a form the app could not read. Please try again."
)
LOOPING_MESSAGE = "The assistant kept searching without answering. Please try rephrasing your question."


class OpenAIAnswerer:
    """Answers with a chat completions endpoint; one SDK client per instance, shared across threads."""

    def __init__(self, settings: Settings, toolbox: ToolBox):
        self.settings = settings
        self.toolbox = toolbox
        self.model = settings.openai_model
        self.client = openai.OpenAI(
            api_key=settings.openai_api_key or NO_KEY,
            base_url=settings.openai_base_url,
            timeout=settings.openai_timeout,
            max_retries=settings.openai_max_retries,
        )
        self.tools = function_tools(toolbox.schemas)
        # OPENAI_TOOLS=auto: tools until the endpoint refuses them, then passages for the process's life.
        self.tool_calling = settings.openai_tools != "off"

    def stream(self, question: str, history: list[Exchange]) -> Iterator[AnswerEvent]:
        """Answer as events: a status per search, the reply's text as it streams (without markers), the
        Answer; closing the iterator early closes the HTTP stream, which stops the model."""
        usage: Counter[str] = Counter()
        if self.tool_calling:
            try:
                yield from self._with_tools(question, history, usage)
                return
            except ToolsRefused as exc:
                if self.settings.openai_tools != "auto":
                    raise
                log.warning("the model refused tools (%s): answering with passages in the prompt", exc.detail)
                self.tool_calling = False
        yield from self._with_passages(question, history, usage)

    def _with_tools(
        self, question: str, history: list[Exchange], usage: Counter[str]
    ) -> Iterator[AnswerEvent]:
        """The tool loop: up to max_tool_rounds rounds of tools, then an answer without them."""
        messages = [
            {"role": "system", "content": TOOLS_PROMPT},
            *history_turns(history),
            {"role": "user", "content": question},
        ]
        given: list[Passage] = []  # every passage sent, numbered from 1 in this order
        texts: list[str] = []
        rounds = 0
        while True:
            last = rounds >= self.settings.max_tool_rounds
            params = self._params(messages, tools=True, tool_choice="none" if last else None)
            try:
                turn = yield from streamed_turn(self.client, params, usage, separate=any(texts))
            except ToolsRefused as exc:
                if rounds:  # tools worked a round ago: this refusal is about something else
                    raise ModelUnavailable(exc.message, detail=exc.detail) from exc
                raise
            texts.append(turn.text)
            if not turn.tool_calls:
                break
            if last:
                if turn.text.strip():
                    break  # it answered and asked for more: the answer stands
                raise ModelUnavailable(LOOPING_MESSAGE, detail=f"tool calls after {rounds} rounds")
            messages.append(_assistant_turn(turn, rounds))
            for call in turn.tool_calls:
                arguments = _arguments(call)
                yield StatusEvent(self.toolbox.describe(call.name, arguments))
                content = self._run_tool(call.name, arguments, given)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            rounds += 1
        yield from self._done("\n\n".join(text for text in texts if text.strip()), turn, given, rounds, usage)

    def _with_passages(
        self, question: str, history: list[Exchange], usage: Counter[str]
    ) -> Iterator[AnswerEvent]:
        """Without tool calling: one search (the question in its context), its passages in the prompt."""
        yield StatusEvent(self.toolbox.describe(SEARCH_TOOL, {"query": question}))
        passages = self.toolbox.search(search_query(question, history)).passages
        messages = [
            {"role": "system", "content": PASSAGES_PROMPT},
            *history_turns(history),
            {"role": "user", "content": question_with_passages(question, passages)},
        ]
        turn = yield from streamed_turn(self.client, self._params(messages), usage, separate=False)
        yield from self._done(turn.text, turn, passages, 0, usage)

    def _params(
        self, messages: list[dict[str, Any]], tools: bool = False, tool_choice: str | None = None
    ) -> dict[str, Any]:
        """The parameters of one chat completions call (plain dicts, as the API documents them)."""
        params: dict[str, Any] = {"model": self.model, "max_tokens": MAX_TOKENS, "messages": messages}
        if tools:
            params["tools"] = self.tools
        if tool_choice:
            params["tool_choice"] = tool_choice
        return params

    def _run_tool(self, name: str, arguments: dict[str, Any], given: list[Passage]) -> str:
        """Run one tool call into the text the model reads; its passages are numbered on from `given`."""
        result = self.toolbox.run(name, arguments)
        log.info("tool %s(%s) -> %s", name, arguments, "error" if result.is_error else "ok")
        if result.is_error:
            return f"Error: {result.text}"
        if not result.passages:
            return result.text
        text = numbered_passages(result.passages, len(given) + 1)
        given.extend(result.passages)
        return text

    def _done(
        self, text: str, turn: Turn, given: list[Passage], rounds: int, usage: Counter[str]
    ) -> Iterator[AnswerEvent]:
        """The finished answer: markers checked against the passages given, sources only the cited ones."""
        citations = ModelCitations(given)
        markdown = citations.markdown(text)
        if not markdown:
            markdown = REFUSED_ANSWER if turn.finish_reason == "content_filter" else EMPTY_ANSWER
        elif turn.finish_reason == "length":
            markdown += TRUNCATED_NOTE
            yield TextEvent(TRUNCATED_NOTE)
        answer = Answer(
            markdown=markdown,
            sources=citations.sources,
            mode="openai",
            tool_rounds=rounds,
            usage=dict(usage) or None,
            unverified_citations=citations.unverified,
        )
        yield DoneEvent(answer)


def search_query(question: str, history: list[Exchange]) -> str:
    """What the one search looks for: the question after the previous one (a follow-up keeps its subject)."""
    return f"{history[-1].question}\n{question}" if history else question


def _arguments(call: ToolCall) -> dict[str, Any]:
    """A tool call's arguments: a JSON object, else the model is not making sense and the answer stops."""
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        value = None
    if not isinstance(value, dict):
        detail = f"{call.name} arguments are not a JSON object: {call.arguments[:200]!r}"
        raise ModelUnavailable(MALFORMED_MESSAGE, detail=detail)
    return value


def _assistant_turn(turn: Turn, rounds: int) -> dict[str, Any]:
    """Echo the model's turn back: its text and tool calls (each given an id if the server sent none)."""
    for number, call in enumerate(turn.tool_calls):
        call.id = call.id or f"call_{rounds}_{number}"
    calls = [
        {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
        for call in turn.tool_calls
    ]
    return {"role": "assistant", "content": turn.text or None, "tool_calls": calls}
