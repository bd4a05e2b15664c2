"""The benchmark's scripted Messages API: deterministic replies the judge can grade.

The first request of a question gets one `get_weather` tool_use per city the question names; a
request carrying tool_results gets an `end_turn` text built only from them ("Bonn: 9.1°C."), so
the judge can tell a right temperature from a wrong one or an honest "unavailable". The wire
shapes (message bodies, error bodies, server-sent events, the API's 400 for a tool_use left
unanswered) come from `offline._messages_wire`, the encoders every fake in the project shares.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from offline._messages_wire import (
    ERROR_TYPES,
    Json,
    error_body,
    message_body,
    protocol_error,
    sse_error_events,
    sse_events,
    text_block,
    tool_results,
    tool_use_block,
)

__all__ = [
    "answer_line",
    "content_text",
    "error_for",
    "protocol_error",
    "question_of",
    "reply",
    "sse_events",
    "sse_stream_error",
    "tool_results",
]

_CITIES = re.compile(r"weather in (.+?)\s*\?", re.IGNORECASE)
_SPLIT = re.compile(r"\s*,\s*|\s+and\s+")
_TEMPERATURE = re.compile(r"(-?\d+(?:\.\d+)?)\s*°C")


def question_of(messages: list[Json]) -> str:
    """The latest question: the text of the last user message that carries no tool results
    (in a one-question conversation, its first message)."""
    for message in reversed(messages):
        if message.get("role") == "user" and not tool_results(message):
            return content_text(message.get("content", ""))
    return ""


def cities_in(question: str) -> list[str]:
    """The cities a question asks about: "What's the weather in Bonn, Paris and Tokyo?"."""
    match = _CITIES.search(question)
    return [c for c in _SPLIT.split(match.group(1)) if c] if match else []


def reply(body: Json, number: int) -> Json:
    """The scripted model's reply to one well-formed request."""
    messages = body["messages"]
    if results := tool_results(messages[-1]):
        return _message(body, number, [text_block(_summary(messages, results))], "end_turn")
    cities = cities_in(question_of(messages))
    if not cities:
        return _message(body, number, [text_block("I can only look up the weather.")], "end_turn")
    blocks = [_ask(f"toolu_{number:06d}_{i}", city) for i, city in enumerate(cities)]
    return _message(body, number, blocks, "tool_use")


def answer_line(city: str, content: str) -> str:
    """What the scripted model says about one city, given only its tool_result text."""
    match = _TEMPERATURE.search(_readable(content))
    return f"{city}: {match.group(1)}°C." if match else f"{city}: unavailable."


def error_for(status: int, message: str) -> Json:
    """The Messages API error body for a status."""
    return error_body(ERROR_TYPES.get(status, "api_error"), message, request_id="req_bench")


def sse_stream_error(message: Json) -> Iterator[tuple[str, Json]]:
    """A stream that starts and then fails with `overloaded_error`, as the API does under load."""
    return sse_error_events("", message=message)


def _summary(messages: list[Json], results: list[Json]) -> str:
    cities = _asked_cities(messages[-2]) if len(messages) >= 2 else {}
    lines = [
        answer_line(cities.get(r.get("tool_use_id", ""), "?"), content_text(r.get("content", "")))
        for r in results
    ]
    return " ".join(lines)


def _asked_cities(message: Json) -> dict[str, str]:
    blocks = message.get("content") if isinstance(message.get("content"), list) else []
    return {
        b["id"]: str(b.get("input", {}).get("city", "?"))
        for b in blocks or []
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }


def content_text(content: object) -> str:
    """A message or tool_result content (a string or text blocks) as plain text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _readable(content: str) -> str:
    """JSON text with its escapes undone (a port may send `\\u00b0C`), else the text itself."""
    try:
        return json.dumps(json.loads(content), ensure_ascii=False)
    except ValueError:
        return content


def _message(body: Json, number: int, content: list[Json], stop_reason: str) -> Json:
    model = body.get("model", "claude-sonnet-4-6")
    return message_body(
        *content, stop_reason=stop_reason, model=model, message_id=f"msg_bench_{number:06d}"
    )


def _ask(block_id: str, city: str) -> Json:
    return tool_use_block(block_id, "get_weather", {"city": city})
