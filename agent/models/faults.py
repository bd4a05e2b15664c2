"""Fault-injecting wrappers around any backend, for the demo and tests.

`FlakyModel` fails the next calls with errors built exactly as the SDK raises them;
`MangledInputModel` spoils the first tool call's input, as a confused model might.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message, ToolUseBlock

from agent.models._base import ModelBackend, ModelRequest

__all__ = ["FlakyModel", "MangledInputModel", "api_error"]

_URL = "https://api.anthropic.com/v1/messages"


def api_error(
    status: int, error_type: str, message: str = "", *, headers: dict[str, str] | None = None
) -> anthropic.APIStatusError:
    """The SDK's exception for an error response (status 200: a mid-stream `event: error`)."""
    body = {"type": "error", "error": {"type": error_type, "message": message or error_type}}
    request = httpx2.Request("POST", _URL)
    response = httpx2.Response(status, headers=headers, json=body, request=request)
    error_class = _CLASSES.get(status, anthropic.APIStatusError)
    return error_class(f"Error code: {status} - {json.dumps(body)}", response=response, body=body)


_CLASSES: dict[int, type[anthropic.APIStatusError]] = {
    401: anthropic.AuthenticationError,
    429: anthropic.RateLimitError,
    500: anthropic.InternalServerError,
    529: anthropic.OverloadedError,
}


class FlakyModel:
    """Raises `errors`, one per call, then behaves like `inner`."""

    def __init__(self, inner: ModelBackend, errors: Iterable[Exception]) -> None:
        self._inner = inner
        self._errors = deque(errors)
        self.name = inner.name

    async def create(self, request: ModelRequest) -> Message:
        """The next injected error, or the inner model's answer."""
        if self._errors:
            raise self._errors.popleft()
        return await self._inner.create(request)

    async def aclose(self) -> None:
        """Close the inner model."""
        await self._inner.aclose()


def _wrong_type(tool_input: dict[str, Any]) -> dict[str, Any]:
    return dict.fromkeys(tool_input, 42) or {"input": 42}


class MangledInputModel:
    """Replaces the input of the first tool call `inner` makes (by default: numbers for text)."""

    def __init__(
        self,
        inner: ModelBackend,
        mangle: Callable[[dict[str, Any]], dict[str, Any]] = _wrong_type,
    ) -> None:
        self._inner = inner
        self._mangle: Callable[[dict[str, Any]], dict[str, Any]] | None = mangle
        self.name = inner.name

    async def create(self, request: ModelRequest) -> Message:
        """The inner answer, with its first tool call spoiled once."""
        message = await self._inner.create(request)
        uses = [block for block in message.content if isinstance(block, ToolUseBlock)]
        if self._mangle is None or not uses:
            return message
        uses[0].input = self._mangle(dict(uses[0].input))
        self._mangle = None
        return message

    async def aclose(self) -> None:
        """Close the inner model."""
        await self._inner.aclose()
