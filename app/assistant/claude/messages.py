"""The parts of a Messages API request: cached tool definitions, echoed turns, tool results."""

from __future__ import annotations

from typing import Any

CACHE = {"type": "ephemeral"}


def cached_tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool definitions, the last one marked as a cache breakpoint (caching every tool)."""
    tools = [dict(schema) for schema in schemas]
    tools[-1]["cache_control"] = CACHE
    return tools


def assistant_turn(content: list[Any]) -> dict[str, Any]:
    """Echo the model's turn back as params: its text and tool_use blocks."""
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text" and block.text:
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
    return {"role": "assistant", "content": blocks}


def tool_result(tool_use_id: str, content: str | list[dict[str, Any]], is_error: bool) -> dict[str, Any]:
    """The tool_result block answering one tool_use block."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}
