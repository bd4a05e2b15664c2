"""A model that answers with queued replies: the fake for tests that script a conversation.

    model = QueuedModel(calls(("get_weather", {"city": "Paris"})), text("Sunny."))

Each `create` takes the next reply (or raises the next queued exception) and records the
request; streamed text goes to `on_text` as a real model's would.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from agent.models import ModelRequest, Reply, Text, ToolCall

__all__ = ["QueuedModel", "calls", "text"]


def text(answer: str, stop_reason: str | None = "end_turn", **fields: Any) -> Reply:
    """A text-only reply."""
    return Reply((Text(answer),), stop_reason, **fields)


def calls(*uses: tuple[str, dict[str, Any]], stop_reason: str | None = "tool_use") -> Reply:
    """A reply that calls tools, one tool call per (name, input), ids toolu_00, toolu_01, …"""
    blocks = tuple(ToolCall(f"toolu_{i:02d}", name, args) for i, (name, args) in enumerate(uses))
    return Reply(blocks, stop_reason)


class QueuedModel:
    """Answers with queued replies (or raises queued errors) and records every request."""

    def __init__(
        self, *replies: Reply | BaseException, repeat_last: bool = False, name: str = "queued"
    ) -> None:
        self.replies: deque[Reply | BaseException] = deque(replies)
        self.requests: list[ModelRequest] = []
        self.repeat_last = repeat_last
        self.name = name
        self.closed = False

    async def create(self, request: ModelRequest) -> Reply:
        """The next queued reply, or the next queued exception raised."""
        self.requests.append(request)
        repeat = self.repeat_last and len(self.replies) == 1
        reply = self.replies[0] if repeat else self.replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if request.on_text is not None:
            request.on_text("".join(b.text for b in reply.content if isinstance(b, Text)))
        return reply

    async def aclose(self) -> None:
        """Note that it was closed."""
        self.closed = True
