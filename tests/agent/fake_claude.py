"""A fake Messages API for the real anthropic SDK: JSON or SSE replies over httpx2, recorded.

The bodies and event streams come from `offline._messages_wire`, the encoders every fake in
the project shares; this module only puts them on httpx2.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

import httpx2

from offline._messages_wire import (
    MODEL,
    error_body,
    message_body,
    sse_bytes,
    sse_error_events,
    sse_events,
    text_block,
    tool_use_block,
)

__all__ = [
    "MODEL",
    "FakeClaude",
    "error",
    "message",
    "message_body",
    "sse_bytes",
    "sse_events",
    "start_events",
    "stream",
    "stream_error",
    "stream_tool_use",
    "text_block",
    "tool_use",
]

Reply = httpx2.Response | Callable[[httpx2.Request], httpx2.Response]
_SSE = {"content-type": "text/event-stream"}


def tool_use(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return tool_use_block(tool_id, name, tool_input)


def message(
    *blocks: dict[str, Any], stop_reason: str = "end_turn", **extra: Any
) -> httpx2.Response:
    """A non-streaming 200 answer."""
    return httpx2.Response(200, json=message_body(*blocks, stop_reason=stop_reason, **extra))


def error(
    status: int, error_type: str, text: str = "", headers: dict[str, str] | None = None
) -> httpx2.Response:
    """An error answer with the API's error body."""
    return httpx2.Response(status, json=error_body(error_type, text), headers=headers)


def stream(text: str, stop_reason: str = "end_turn") -> httpx2.Response:
    """A streamed text answer."""
    body = message_body(text_block(text), stop_reason=stop_reason)
    return httpx2.Response(200, headers=_SSE, content=sse_bytes(sse_events(body)))


def stream_tool_use(
    text: str, tool_id: str, name: str, tool_input: dict[str, Any]
) -> httpx2.Response:
    """A streamed answer: some text, then one tool_use whose input arrives in two pieces."""
    body = message_body(
        text_block(text), tool_use_block(tool_id, name, tool_input), stop_reason="tool_use"
    )
    return httpx2.Response(200, headers=_SSE, content=sse_bytes(sse_events(body)))


def stream_error(partial: str, error_type: str = "overloaded_error") -> httpx2.Response:
    """A stream that starts, then carries an `event: error` (e.g. overloaded_error)."""
    events = sse_error_events(partial, error_type)
    return httpx2.Response(200, headers=_SSE, content=sse_bytes(events))


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

    def transport(self) -> httpx2.MockTransport:
        """An httpx2 transport that is this fake (`ClaudeModel(transport=…)` caps it)."""
        return httpx2.MockTransport(self)


def _fresh(response: httpx2.Response) -> httpx2.Response:
    """A response may be served more than once: copy it each time."""
    return httpx2.Response(response.status_code, headers=response.headers, content=response.content)


def start_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The opening events of a text stream, cut before the block ends (for streams cut short)."""
    return list(sse_error_events(text))[:-1]
