"""A fake Messages API for the real anthropic SDK: JSON or SSE replies over httpx2, recorded."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

import httpx2

MODEL = "claude-sonnet-4-6"
Reply = httpx2.Response | Callable[[httpx2.Request], httpx2.Response]


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def message_body(
    *blocks: dict[str, Any], stop_reason: str = "end_turn", **extra: Any
) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
        **extra,
    }


def message(
    *blocks: dict[str, Any], stop_reason: str = "end_turn", **extra: Any
) -> httpx2.Response:
    """A non-streaming 200 answer."""
    return httpx2.Response(200, json=message_body(*blocks, stop_reason=stop_reason, **extra))


def error(
    status: int, error_type: str, text: str = "", headers: dict[str, str] | None = None
) -> httpx2.Response:
    """An error answer with the API's error body."""
    body = {
        "type": "error",
        "error": {"type": error_type, "message": text or error_type},
        "request_id": "req_fake",
    }
    return httpx2.Response(status, json=body, headers=headers)


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _start_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    start = message_body(stop_reason="end_turn")
    start["stop_reason"] = None
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
    ]


def stream(text: str, stop_reason: str = "end_turn") -> httpx2.Response:
    """A streamed text answer."""
    events = [
        *_start_events(text),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_sse(events))


def stream_tool_use(
    text: str, tool_id: str, name: str, tool_input: dict[str, Any]
) -> httpx2.Response:
    """A streamed answer: some text, then one tool_use whose input arrives in two pieces."""
    raw = json.dumps(tool_input)
    half = len(raw) // 2
    events = [
        *_start_events(text),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}},
            },
        ),
        *(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                },
            )
            for part in (raw[:half], raw[half:])
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_sse(events))


def stream_error(partial: str, error_type: str = "overloaded_error") -> httpx2.Response:
    """A stream that starts, then carries an `event: error` (e.g. overloaded_error)."""
    failure = {"type": "error", "error": {"type": error_type, "message": "Overloaded"}}
    events = [*_start_events(partial), ("error", failure)]
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_sse(events))


class FakeClaude:
    """Serves queued replies (the last one again if `repeat_last`); records every request."""

    def __init__(self, *replies: Reply, repeat_last: bool = False) -> None:
        self.replies: deque[Reply] = deque(replies)
        self.repeat_last = repeat_last
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies[0] if self.repeat_last and len(self.replies) == 1 else None
        reply = reply or self.replies.popleft()
        return reply(request) if callable(reply) else _fresh(reply)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of every request, in order."""
        return [json.loads(request.content) for request in self.requests]

    def client(self) -> httpx2.AsyncClient:
        """An httpx2 client whose transport is this fake."""
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def _fresh(response: httpx2.Response) -> httpx2.Response:
    """A response may be served more than once: copy it each time."""
    return httpx2.Response(response.status_code, headers=response.headers, content=response.content)
