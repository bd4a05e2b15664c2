"""A scripted stand-in for the Messages API: deterministic replies in the real JSON and SSE shapes.

The first request of a question gets one `get_weather` tool_use per city the question names; a
request carrying tool_results gets an `end_turn` text built only from them, so the judge can tell
a right temperature from a wrong one or an honest "unavailable". A history whose tool_use is not
answered in the very next message gets the real API's 400.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = [
    "answer_line",
    "content_text",
    "error_body",
    "protocol_error",
    "question_of",
    "reply",
    "sse_events",
    "sse_stream_error",
    "tool_results",
]

Json = dict[str, Any]

_CITIES = re.compile(r"weather in (.+?)\s*\?", re.IGNORECASE)
_SPLIT = re.compile(r"\s*,\s*|\s+and\s+")
_TEMPERATURE = re.compile(r"(-?\d+(?:\.\d+)?)\s*°C")
_ERROR_TYPES = {400: "invalid_request_error", 429: "rate_limit_error", 529: "overloaded_error"}


def question_of(messages: list[Json]) -> str:
    """The text of the conversation's first user message."""
    return content_text(messages[0]["content"]) if messages else ""


def cities_in(question: str) -> list[str]:
    """The cities a question asks about: "What's the weather in Bonn, Paris and Tokyo?"."""
    match = _CITIES.search(question)
    return [c for c in _SPLIT.split(match.group(1)) if c] if match else []


def reply(body: Json, number: int) -> Json:
    """The scripted model's reply to one well-formed request."""
    messages = body["messages"]
    results = tool_results(messages[-1])
    if results:
        return _message(body, number, [_text_block(_summary(messages, results))], "end_turn")
    cities = cities_in(question_of(messages))
    if not cities:
        return _message(body, number, [_text_block("I can only look up the weather.")], "end_turn")
    blocks = [_tool_use(f"toolu_{number:06d}_{i}", city) for i, city in enumerate(cities)]
    return _message(body, number, blocks, "tool_use")


def tool_results(message: Json) -> list[Json]:
    """The tool_result blocks of a user message."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def protocol_error(messages: list[Json]) -> str | None:
    """The real API's 400 message if some tool_use is not answered in the very next message."""
    for index, message in enumerate(messages):
        asked = _tool_use_ids(message)
        answered = {r.get("tool_use_id") for r in tool_results(_at(messages, index + 1))}
        if asked - answered:
            missing = ", ".join(sorted(asked - answered))
            return (
                f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {missing}. Each `tool_use` block must have a corresponding "
                "`tool_result` block in the next message."
            )
    return None


def answer_line(city: str, content: str) -> str:
    """What the scripted model says about one city, given only its tool_result text."""
    match = _TEMPERATURE.search(_readable(content))
    return f"{city}: {match.group(1)}°C." if match else f"{city}: unavailable."


def error_body(status: int, message: str) -> Json:
    """The Messages API error body for a status."""
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_bench"}


def sse_events(message: Json) -> Iterator[tuple[str, Json]]:
    """A whole message as the stream of server-sent events the API would send."""
    start = {**message, "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        yield from _block_events(index, block)
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 9}}
    yield "message_stop", {"type": "message_stop"}


def sse_stream_error(message: Json) -> Iterator[tuple[str, Json]]:
    """A stream that starts and then fails with `overloaded_error`, as the API does under load."""
    start = {**message, "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": start}
    yield "error", error_body(529, "Overloaded")


def _block_events(index: int, block: Json) -> Iterator[tuple[str, Json]]:
    opening: Json
    delta: Json
    if block["type"] == "text":
        opening, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
    else:
        opening = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": opening},
    )
    yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


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


def _tool_use_ids(message: Json) -> set[str]:
    return set(_asked_cities(message)) if message.get("role") == "assistant" else set()


def _at(messages: list[Json], index: int) -> Json:
    return messages[index] if index < len(messages) else {}


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
    return {
        "id": f"msg_bench_{number:06d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-sonnet-4-6"),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 25, "output_tokens": 9},
    }


def _text_block(text: str) -> Json:
    return {"type": "text", "text": text}


def _tool_use(block_id: str, city: str) -> Json:
    return {"type": "tool_use", "id": block_id, "name": "get_weather", "input": {"city": city}}
