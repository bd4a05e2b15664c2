"""The Messages API on the wire: bodies, errors and server-sent event streams, as plain JSON.

The same encoders serve the tests' fake Claude (over httpx2) and the benchmark's fault server
(over real sockets), so every fake speaks the shapes the real API sends. `protocol_error` is
the real API's 400 for a `tool_use` left without its `tool_result` in the very next message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

__all__ = [
    "ERROR_TYPES",
    "Json",
    "error_body",
    "message_body",
    "protocol_error",
    "sse_bytes",
    "sse_error_events",
    "sse_events",
    "text_block",
    "tool_results",
    "tool_use_block",
]

Json = dict[str, Any]
Event = tuple[str, Json]
MODEL = "claude-sonnet-4-6"

# The error body's `type` for each status the API sends (anything else: api_error).
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def text_block(text: str) -> Json:
    """A text content block."""
    return {"type": "text", "text": text}


def tool_use_block(tool_id: str, name: str, tool_input: Mapping[str, Any]) -> Json:
    """A tool_use content block."""
    return {"type": "tool_use", "id": tool_id, "name": name, "input": dict(tool_input)}


def message_body(
    *blocks: Json,
    stop_reason: str | None = "end_turn",
    model: str = MODEL,
    message_id: str = "msg_fake",
    **extra: Any,
) -> Json:
    """A whole message, as a non-streaming 200 answer carries it."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
        **extra,
    }


def error_body(error_type: str, message: str = "", *, request_id: str = "req_fake") -> Json:
    """The API's error body, e.g. `error_body("overloaded_error", "Overloaded")`."""
    error = {"type": error_type, "message": message or error_type}
    return {"type": "error", "error": error, "request_id": request_id}


def sse_events(message: Json) -> Iterator[Event]:
    """A whole message as the stream the API sends: text as one delta, a tool's input in two."""
    yield _event("message_start", message=_opening(message))
    for index, block in enumerate(message["content"]):
        yield from _block_events(index, block)
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield _event("message_delta", delta=delta, usage={"output_tokens": 5})
    yield _event("message_stop")


def sse_error_events(
    partial_text: str, error_type: str = "overloaded_error", *, message: Json | None = None
) -> Iterator[Event]:
    """A stream that starts (with some text, if any), then fails with an `error` event."""
    yield _event("message_start", message=_opening(message or message_body()))
    if partial_text:
        yield from list(_block_events(0, text_block(partial_text)))[:2]  # no block stop
    yield _event("error", error={"type": error_type, "message": "Overloaded"})


def sse_bytes(events: Iterable[Event]) -> bytes:
    """Events in the `event:`/`data:` framing of server-sent events."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _opening(message: Json) -> Json:
    return {**message, "content": [], "stop_reason": None}


def _block_events(index: int, block: Json) -> Iterator[Event]:
    if block["type"] == "text":
        opening: Json = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": block["text"]}]
    else:
        opening = {**block, "input": {}}
        raw = json.dumps(block["input"])
        half = len(raw) // 2
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in (raw[:half], raw[half:])]
    yield _event("content_block_start", index=index, content_block=opening)
    for delta in deltas:
        yield _event("content_block_delta", index=index, delta=delta)
    yield _event("content_block_stop", index=index)


def _event(name: str, **data: Any) -> Event:
    """An event named `name`, its data typed the same, as every event of the API is."""
    return name, {"type": name, **data}


def tool_results(message: Mapping[str, Any]) -> list[Json]:
    """The tool_result blocks of a user message."""
    return _blocks(message, "user", "tool_result")


def protocol_error(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The real API's 400 message if some tool_use is not answered in the very next message."""
    for index, message in enumerate(messages):
        asked = {str(b["id"]) for b in _blocks(message, "assistant", "tool_use")}
        following = messages[index + 1] if index + 1 < len(messages) else {}
        answered = {r.get("tool_use_id") for r in tool_results(following)}
        if missing := asked - answered:
            return (
                f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(sorted(missing))}. Each `tool_use` block must "
                "have a corresponding `tool_result` block in the next message."
            )
    return None


def _blocks(message: Mapping[str, Any], role: str, block_type: str) -> list[Json]:
    content = message.get("content")
    if message.get("role") != role or not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == block_type]
