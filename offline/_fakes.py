"""Models that misbehave on purpose, and one that replays a queue: for the demo and tests.

`QueuedModel` is the fake for tests that script a conversation::

    model = QueuedModel(calls(("get_weather", {"city": "Paris"})), text("Sunny."))

`FlakyModel` wraps any backend and fails its next calls with errors built exactly as the SDK
raises them (`api_error` imports the SDK when first called); `MangledInputModel` spoils the
first tool call's input, as a confused model might.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agent.models import ModelBackend, ModelRequest, Reply, Text, ToolCall
from offline._messages_wire import error_body

if TYPE_CHECKING:
    import anthropic

__all__ = ["FlakyModel", "MangledInputModel", "QueuedModel", "api_error", "calls", "text"]


def text(answer: str, stop_reason: str | None = "end_turn") -> Reply:
    """A text-only reply."""
    return Reply((Text(answer),), stop_reason)


def calls(*uses: tuple[str, dict[str, Any]], stop_reason: str | None = "tool_use") -> Reply:
    """A reply that calls tools, one tool call per (name, input), ids toolu_00, toolu_01, …"""
    blocks = tuple(ToolCall(f"toolu_{i:02d}", name, args) for i, (name, args) in enumerate(uses))
    return Reply(blocks, stop_reason)


class QueuedModel:
    """Answers with queued replies (or raises queued errors) and records every request;
    streamed text goes to `on_text` as a real model's would."""

    def __init__(
        self, *replies: Reply | BaseException, repeat_last: bool = False, name: str = "queued"
    ) -> None:
        self.replies: deque[Reply | BaseException] = deque(replies)
        self.requests: list[ModelRequest] = []
        self.repeat_last = repeat_last
        self.name = name

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
        """Nothing to release."""


def api_error(
    status: int, error_type: str, message: str = "", *, headers: dict[str, str] | None = None
) -> anthropic.APIStatusError:
    """The SDK's exception for an error response (status 200: a mid-stream `event: error`)."""
    import anthropic
    import httpx2

    body = error_body(error_type, message)
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(status, headers=headers, json=body, request=request)
    classes: dict[int, type[anthropic.APIStatusError]] = {
        401: anthropic.AuthenticationError,
        429: anthropic.RateLimitError,
        500: anthropic.InternalServerError,
        529: anthropic.OverloadedError,
    }
    error_class = classes.get(status, anthropic.APIStatusError)
    return error_class(f"Error code: {status} - {json.dumps(body)}", response=response, body=body)


class _Wrapper:
    """A backend around `inner`, under its name; closing it closes `inner`."""

    def __init__(self, inner: ModelBackend) -> None:
        self._inner = inner
        self.name = inner.name

    async def aclose(self) -> None:
        """Close the inner model."""
        await self._inner.aclose()


class FlakyModel(_Wrapper):
    """Raises `errors`, one per call, then behaves like `inner`."""

    def __init__(self, inner: ModelBackend, errors: Iterable[Exception]) -> None:
        super().__init__(inner)
        self._errors = deque(errors)

    async def create(self, request: ModelRequest) -> Reply:
        """The next injected error, or the inner model's answer."""
        if self._errors:
            raise self._errors.popleft()
        return await self._inner.create(request)


def _wrong_type(tool_input: dict[str, Any]) -> dict[str, Any]:
    return dict.fromkeys(tool_input, 42) or {"input": 42}


class MangledInputModel(_Wrapper):
    """Replaces the input of the first tool call `inner` makes (by default: numbers for text)."""

    def __init__(
        self,
        inner: ModelBackend,
        mangle: Callable[[dict[str, Any]], dict[str, Any]] = _wrong_type,
    ) -> None:
        super().__init__(inner)
        self._mangle: Callable[[dict[str, Any]], dict[str, Any]] | None = mangle

    async def create(self, request: ModelRequest) -> Reply:
        """The inner answer, with its first tool call spoiled once."""
        reply = await self._inner.create(request)
        if self._mangle is None or not reply.tool_calls:
            return reply
        first = reply.tool_calls[0]
        spoiled = dataclasses.replace(first, input=self._mangle(dict(first.input)))
        self._mangle = None
        content = tuple(spoiled if block is first else block for block in reply.content)
        return dataclasses.replace(reply, content=content)
